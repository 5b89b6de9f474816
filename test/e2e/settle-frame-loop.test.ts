/**
 * The page's own steps after a click, made by its animation-frame loop (real jQuery's `slideDown`,
 * src/page/settle/loop.ts): the reply comes once the loop asks for no next frame, with the
 * animation's end and its completion in it, not 50 ms and three frames later (also where the page
 * moves under the pointer as it slides, and its hover styles follow). A step the loop's end set a
 * timer for, and steps an interval makes, still hold the reply until they came.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { requireChromium } from "../support/chromium.ts";
import { makeBpEnv, type BpResult } from "../support/bp.ts";
import { startFixtureServer } from "../support/fixture-server.ts";
import { nthTrace, traceTo } from "../support/phases-trace.ts";
import { JQUERY_UI_PAGES } from "./jquery-ui-pages.ts";

requireChromium();

const page = (title: string, script: string) => `<!doctype html><title>${title}</title>
<script src="/lib/jquery.js"></script>
<button id=go>Go</button><div id=panel style="display:none"><p><a href="#in">Inside</a></p></div>
<div id=out></div><div id=bar style="height:10px;width:0;background:#36c"></div>
<script>${script}</script>`;

const site = startFixtureServer({
  ...JQUERY_UI_PAGES,
  // Each click opens or closes the panel; its completion adds a button naming the state.
  "/slide": page(
    "Slide",
    `$("#go").on("click", function () {
      $("#out").empty();
      $("#panel").slideToggle(200, function () { $("#out").html("<button>" + ($(this).is(":visible") ? "Opened" : "Closed") + "</button>"); });
    });`,
  ),
  // The completion sets a timer for one more change, 30 ms later.
  "/slide-late": page(
    "Slide late",
    `$("#go").on("click", function () {
      $("#panel").slideDown(150, function () { setTimeout(function () { $("#out").html("<button>Late step</button>"); }, 30); });
    });`,
  ),
  // The click's change, then steps of an interval 15 ms apart (within the floor of the timer it set), with no frame
  // asked for.
  "/interval": page(
    "Interval",
    `$("#go").on("click", function () {
      $("#out").html("<button>Filling</button>");
      var n = 0, t = setInterval(function () {
        $("#bar").css("width", ++n * 20);
        if (n === 5) { clearInterval(t); $("#out").html("<button>Filled</button>"); }
      }, 15);
    });`,
  ),
});
const env = makeBpEnv();
const file = traceTo(env);
const KEY = "agent-frame-loop";
const run = (args: string[]) => env.run(args, { key: KEY });
let clicks = 0;

beforeAll(async () => {
  expect((await env.run(["launch", "--headless"])).json.ok).toBe(true);
  expect((await run(["open", `${site.a}/slide`, "--new"])).json.ok).toBe(true);
});
afterAll(async () => {
  await env.cleanup();
  site.stop();
});

type El = { r: number; n?: string };
const added = (r: BpResult): string[] =>
  ((r.json.diff as { added?: El[] } | undefined)?.added ?? []).map((a) => a.n).filter((n) => n !== undefined);

async function clickGo(): Promise<{ r: BpResult; settles: Record<string, unknown>[] }> {
  const go = ((await run(["snapshot"])).json.elements as El[]).find((e) => e.n === "Go");
  const r = await run(["click", String(go?.r)]);
  expect(r.json.ok, r.stdout).toBe(true);
  const trace = (await nthTrace(file, "click", ++clicks)) ?? [];
  const settles = trace
    .map((e) => (e[1] === "reply" ? (e[2] as { page?: { settle?: Record<string, unknown> } }).page?.settle : undefined))
    .filter((s): s is Record<string, unknown> => s !== undefined);
  return { r, settles };
}

describe("a click whose page animates by an animation-frame loop", () => {
  test("slideDown and slideUp: the reply has the end and the completion's change, and came with the loop's end", async () => {
    for (const state of ["Opened", "Closed", "Opened"]) {
      const { r, settles } = await clickGo();
      expect(added(r), r.stdout).toContain(state);
      if (state === "Opened") expect(added(r), r.stdout).toContain("Inside");
      // Ended by the loop's end, not by 50 ms of quiet after it.
      expect(
        settles.some((s) => s.looped === true),
        JSON.stringify(settles),
      ).toBe(true);
    }
  });

  test("jQuery UI's accordion, whose headers move under the pointer as it slides: ended by the loop, the links listed", async () => {
    expect((await run(["open", `${site.a}/ui/accordion`])).json.ok).toBe(true);
    for (const [i, part] of [2, 3, 2].entries()) {
      const header = ((await run(["snapshot"])).json.elements as El[]).find((e) => e.n === `Part ${part}`);
      const r = await run(["click", String(header?.r)]);
      clicks++;
      expect(added(r), r.stdout).toEqual([`go-${part}a`, `go-${part}b`]);
      const settles = ((await nthTrace(file, "click", clicks)) ?? [])
        .map((e) =>
          e[1] === "reply" ? (e[2] as { page?: { settle?: Record<string, unknown> } }).page?.settle : undefined,
        )
        .filter((x) => x !== undefined);
      // The first click in a document may find its first frames' changes in before the settle call: no loop it saw.
      if (i > 0)
        expect(
          settles.some((x) => x?.looped === true),
          JSON.stringify(settles),
        ).toBe(true);
    }
  });

  test("a change the completion set a timer for is in the reply", async () => {
    expect((await run(["open", `${site.a}/slide-late`])).json.ok).toBe(true);
    const { r, settles } = await clickGo();
    expect(added(r), r.stdout).toEqual(expect.arrayContaining(["Inside", "Late step"]));
    expect(settles.some((s) => s.looped === true)).toBe(false);
  });

  test("an interval's steps are in the reply up to its last", async () => {
    expect((await run(["open", `${site.a}/interval`])).json.ok).toBe(true);
    const { r, settles } = await clickGo();
    expect(added(r), r.stdout).toContain("Filled");
    expect(settles.some((s) => s.looped === true)).toBe(false);
  });
});
