/**
 * An action whose input handlers set a timer and changed nothing yet waits (up to
 * LATE_TIMER_MS) for the change that timer brings: a "Copied" label 200 ms after the click, a
 * menu that opens 150 ms after the pointer came over its item (hover intent). One that changed
 * the page at once, or whose timer never changes anything, is not held longer than that.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { LATE_TIMER_MS } from "../../src/broker/settle/late.ts";
import { requireChromium } from "../support/chromium.ts";
import { makeBpEnv, refNamed } from "../support/bp.ts";
import { startFixtureServer } from "../support/fixture-server.ts";

requireChromium();

const site = startFixtureServer({
  "/late": `<!doctype html><title>Late</title>
    <button id=copy>Copy link</button> <span id=copied role=status></span>
    <button id=later>Show options</button> <div id=opts></div>
    <nav><span id=menu tabindex=0>Products</span><div id=sub></div></nav>
    <nav><span id=menu2 tabindex=0>Support</span><div id=sub2></div></nav>
    <button id=beacon>Track</button>
    <button id=tip>Save draft</button> <span id=tiptext role=status></span>
    <script>
      let copies = 0;
      copy.onclick = () => setTimeout(() => { copied.textContent = "Copied " + ++copies; }, 200);
      later.onclick = () => setTimeout(() => { opts.innerHTML = "<button>Option A</button><button>Option B</button>"; }, 250);
      let timer = 0;
      menu.addEventListener("mouseover", () => { clearTimeout(timer); timer = setTimeout(() => { sub.innerHTML = '<a href="#laptops">Laptops</a> <a href="#phones">Phones</a>'; }, 150); });
      // mouseenter does not bubble, as jQuery's hover() uses it.
      menu2.addEventListener("mouseenter", () => setTimeout(() => { sub2.innerHTML = '<a href="#faq">FAQ</a>'; }, 150));
      // A tooltip 400 ms after the pointer came over the button (inside a hover's late wait, and
      // far enough out that a click slowed by a busy machine is over first); its click does nothing.
      tip.addEventListener("mouseover", () => setTimeout(() => { tiptext.textContent = "Saves your work"; }, 400));
      // A timer that changes nothing (an analytics beacon sent later).
      beacon.onclick = () => setTimeout(() => { window.sent = (window.sent || 0) + 1; }, 50);
    </script>`,
});
const env = makeBpEnv();
const KEY = "agent-settle-late-timer";
const run = (args: string[]) => env.run(args, { key: KEY });

type El = { r: number; n?: string };
const refOf = (name: string) => refNamed(run, name);
const diffOf = (json: Record<string, unknown>) => (json.diff ?? {}) as { added?: El[]; announced?: string[] };

beforeAll(async () => {
  expect((await env.run(["launch", "--headless"])).json.ok).toBe(true);
  expect((await run(["open", `${site.a}/late`, "--new"])).json.ok).toBe(true);
});
afterAll(async () => {
  await env.cleanup();
  site.stop();
});

describe("a change a timer of the action's handlers brings", () => {
  test("a label 200 ms after the click is in the click's reply, every time", async () => {
    const copy = await refOf("Copy link");
    for (let round = 1; round <= 3; round++) {
      const r = await run(["click", copy]);
      expect(r.json.ok).toBe(true);
      expect({ round, evidence: r.json.evidence, announced: diffOf(r.json).announced }).toEqual({
        round,
        evidence: { status: "verified", effects: ["dom_changed"] },
        announced: [`Copied ${round}`],
      });
    }
  });

  test("buttons rendered 250 ms after the click are in its reply, with refs", async () => {
    const r = await run(["click", await refOf("Show options")]);
    expect(diffOf(r.json).added?.map((e) => e.n)).toEqual(["Option A", "Option B"]);
  });

  test("a menu that opens 150 ms after the pointer came over its item is in the hover's reply (mouseover, and mouseenter that does not bubble)", async () => {
    const r = await run(["hover", await refOf("Products")]);
    expect(r.json.ok).toBe(true);
    expect(diffOf(r.json).added?.map((e) => e.n)).toEqual(["Laptops", "Phones"]);
    const r2 = await run(["hover", await refOf("Support")]);
    expect(diffOf(r2.json).added?.map((e) => e.n)).toEqual(["FAQ"]);
  });

  test("a click waits for its press's timers only: a tooltip its pointer move starts is not its answer; a hover's is", async () => {
    const tip = await refOf("Save draft");
    const clicked = await run(["click", tip]);
    expect(clicked.json.ok).toBe(true);
    expect(diffOf(clicked.json).announced).toBeUndefined();
    await run(["eval", "tiptext.textContent = ''; 1"]);
    // Away and back over it: the hover's own pointer move starts the tooltip's timer again.
    await run(["hover", await refOf("Track")]);
    expect(diffOf((await run(["hover", tip])).json).announced).toEqual(["Saves your work"]);
  });

  test("a timer that changes nothing costs the late wait; the click stays unavailable", async () => {
    const track = await refOf("Track");
    // The first click also focuses the button (a change of its own); the second changes nothing.
    expect((await run(["click", track])).json.ok).toBe(true);
    const started = performance.now();
    const r = await run(["click", track]);
    expect(r.json).toEqual({ ok: true, evidence: { status: "unavailable", reason: "no_observable_effect" } });
    expect(performance.now() - started).toBeGreaterThanOrEqual(LATE_TIMER_MS);
    expect((await run(["eval", "window.sent"])).json.value).toBe(2);
  });
});
