/**
 * The page's own steps after a click, made by its animation-frame loop (real jQuery's `slideDown`,
 * src/page/settle/loop.ts): the reply comes once the loop asks for no next frame, with the
 * animation's end and its completion in it, not 50 ms and three frames later (also where the page
 * moves under the pointer as it slides, and its hover styles follow). A step the loop's end set a
 * timer for, and steps an interval makes (also beside the slide), still hold the reply until they came.
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
  // An interval beside the slide, stepping 35 ms apart for 280 ms (past the slide's end): more than a frame and our
  // task after it, well under the 50 ms of quiet.
  "/slide-interval": page(
    "Slide and interval",
    `$("#go").on("click", function () {
      $("#panel").slideDown(200);
      var n = 0, t = setInterval(function () {
        $("#bar").css("width", ++n * 10);
        if (n === 8) { clearInterval(t); $("#out").html("<button>Ticked</button>"); }
      }, 35);
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

/** Clicks the element named `name` (a ref from a snapshot); the reply and the settle answers the broker's trace records. */
async function clickOn(name: string): Promise<{ r: BpResult; settles: Record<string, unknown>[] }> {
  const el = ((await run(["snapshot"])).json.elements as El[]).find((e) => e.n === name);
  const r = await run(["click", String(el?.r)]);
  expect(r.json.ok, r.stdout).toBe(true);
  const trace = (await nthTrace(file, "click", ++clicks)) ?? [];
  const settles = trace
    .map((e) => (e[1] === "reply" ? (e[2] as { page?: { settle?: Record<string, unknown> } }).page?.settle : undefined))
    .filter((s): s is Record<string, unknown> => s !== undefined);
  return { r, settles };
}

/**
 * Whether the settle ended with the loop. Not every click need show it: a settle call that came late (a first click
 * in a document, a loaded machine) finds the first frames' changes in before it, cannot tell them from a task's, and
 * keeps the 50 ms.
 */
const looped = (settles: Record<string, unknown>[]): boolean => settles.some((s) => s.looped === true);

describe("a click whose page animates by an animation-frame loop", () => {
  test("slideDown and slideUp: the reply has the end and the completion's change; the settle ends with the loop", async () => {
    const ended: boolean[] = [];
    for (const state of ["Opened", "Closed", "Opened", "Closed"]) {
      const { r, settles } = await clickOn("Go");
      expect(added(r), r.stdout).toContain(state);
      if (state === "Opened") expect(added(r), r.stdout).toContain("Inside");
      ended.push(looped(settles));
    }
    // Ended by the loop's end, not by 50 ms of quiet after it.
    expect(ended).toContain(true);
  });

  test("jQuery UI's accordion, whose headers move under the pointer as it slides: the links listed; ended by the loop", async () => {
    expect((await run(["open", `${site.a}/ui/accordion`])).json.ok).toBe(true);
    const ended: boolean[] = [];
    for (const part of [2, 3, 2, 3]) {
      const { r, settles } = await clickOn(`Part ${part}`);
      expect(added(r), r.stdout).toEqual([`go-${part}a`, `go-${part}b`]);
      ended.push(looped(settles));
    }
    expect(ended).toContain(true);
  });

  test("a change the completion set a timer for is in the reply", async () => {
    expect((await run(["open", `${site.a}/slide-late`])).json.ok).toBe(true);
    const { r, settles } = await clickOn("Go");
    expect(added(r), r.stdout).toEqual(expect.arrayContaining(["Inside", "Late step"]));
    expect(looped(settles)).toBe(false);
  });

  test("an interval beside the slide, stepping on past its end: its last step is in the reply", async () => {
    expect((await run(["open", `${site.a}/slide-interval`])).json.ok).toBe(true);
    const { r, settles } = await clickOn("Go");
    expect(added(r), r.stdout).toEqual(expect.arrayContaining(["Inside", "Ticked"]));
    expect(looped(settles)).toBe(false);
  });

  test("an interval's steps are in the reply up to its last", async () => {
    expect((await run(["open", `${site.a}/interval`])).json.ok).toBe(true);
    const { r, settles } = await clickOn("Go");
    expect(added(r), r.stdout).toContain("Filled");
    expect(looped(settles)).toBe(false);
  });
});
