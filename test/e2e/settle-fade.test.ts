/**
 * A JS fade (jQuery's fadeIn, a requestAnimationFrame opacity tween) rewrites the element's style
 * every frame. Once the element is shown and its content drawn, those rewrites change nothing a
 * snapshot reads: the reply shows what appeared and does not wait out the fade. A fade that ends
 * at zero opacity, or hides the element, is still waited for. A fade an earlier action started and
 * still under way when the next action arms is none of that action's change.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { requireChromium } from "../support/chromium.ts";
import { makeBpEnv } from "../support/bp.ts";
import { startFixtureServer } from "../support/fixture-server.ts";
import { JQUERY_UI_PAGES } from "./jquery-ui-pages.ts";
import { nthTrace, traceTo } from "../support/phases-trace.ts";

requireChromium();

/** `fade(el, from, to, ms, hide)`: a tween as jQuery runs it; `fx` records when the last one began and ended. */
const TWEEN = `<script>
  window.fx = { t: 0, ended: 0 };
  window.fade = (el, from, to, ms, hide) => {
    el.style.display = "block"; el.style.opacity = String(from); fx.t = performance.now(); fx.ended = 0;
    const t0 = performance.now();
    (function step(now) {
      const p = Math.min(1, (now - t0) / ms);
      el.style.opacity = String(from + (to - from) * p);
      if (p < 1) return requestAnimationFrame(step);
      if (hide) el.style.display = "none";
      fx.ended = performance.now();
    })(t0);
  };
  window.seen = () => ({ since: Math.round(performance.now() - fx.t), ended: fx.ended > 0 });
  // A height tween whose rounded value holds for frames at a time (0.3 s at 1px, then 2px): a
  // frame that rewrites nothing does not tell that it ended.
  window.slide = (el, ms) => {
    el.style.display = "block";
    el.style.height = "1px";
    const t0 = performance.now();
    (function step(now) {
      const p = Math.min(1, (now - t0) / ms);
      el.style.height = (p < 1 ? 1 : 2) + "px";
      if (p < 1) requestAnimationFrame(step);
    })(t0);
  };
</script>`;

const site = startFixtureServer({
  ...JQUERY_UI_PAGES,
  "/fade": `<!doctype html><title>Fade</title>${TWEEN}
    <button onclick="fade(cal, 0, 1, 2000)">Open calendar</button>
    <button onclick="fade(cal, 1, 0, 400, true)">Close calendar</button>
    <button onclick="note.textContent = 'Marked ' + (++marks)">Mark</button> <p id=note>none</p>
    <button onclick="slide(drawer, 300)">Open drawer</button>
    <div id=drawer style="display:none;overflow:hidden;height:0"><a href="#d">Drawer link</a></div>
    <div id=cal style="display:none"><a href="#1">1</a> <a href="#2">2</a> <a href="#3">3</a> <a href="#n">Next</a></div>
    <script>let marks = 0;</script>`,
  // jQuery UI's datepicker with its own fadeIn stretched to 2 s.
  "/ui/slow-dp": `<!doctype html><title>Datepicker</title>
    <link rel=stylesheet href="/lib/jquery-ui.css"><script src="/lib/jquery.js"></script><script src="/lib/jquery-ui.js"></script>
    <label for=date>Date</label> <input id=date>
    <script>
      $("#date").datepicker({ defaultDate: new Date(2026, 11, 1), duration: 2000 });
      let t = 0;
      $("#date").on("mousedown", () => { t = performance.now(); });
      window.seen = () => ({ fading: $("#ui-datepicker-div").is(":animated"), early: performance.now() - t < 950 });
    </script>`,
});
const env = makeBpEnv();
// Each request's record (src/cdp/phases.ts): what the settle counted as the page's change.
const trace = traceTo(env);
const run = (args: string[]) => env.run(args, { key: "agent-settle-fade" });

type Settled = { mutations?: number; scripted?: boolean };
type Entry = [number, string, { page?: { settle?: Settled } }?];

/** The mutations the settle of the `n`th click counted (its record is appended after the reply). */
async function clickMutations(n: number): Promise<number | undefined> {
  return (await clickSettle(n))?.mutations;
}

/** The settle's answer for the `n`th click, as the broker's record keeps it. */
async function clickSettle(n: number): Promise<Settled | undefined> {
  const replies = ((await nthTrace(trace, "click", n)) ?? []) as Entry[];
  return replies.filter((e) => e[1] === "reply" && e[2]?.page?.settle !== undefined).at(-1)?.[2]?.page?.settle;
}

type El = { r: number; n?: string; t?: string };
type Diff = { added?: (El & { ex?: string[] })[]; removed?: unknown[] };

async function refOf(name: string): Promise<string> {
  const els = (await run(["snapshot"])).json.elements as El[];
  const el = els.find((e) => e.n === name);
  if (!el) throw new Error(`no element named ${name}: ${JSON.stringify(els.map((e) => e.n))}`);
  return String(el.r);
}
const names = (els: El[] | undefined) => (els ?? []).map((e) => e.n);

beforeAll(async () => {
  expect((await env.run(["launch", "--headless"])).json.ok).toBe(true);
  expect((await run(["open", `${site.a}/fade`, "--new"])).json.ok).toBe(true);
});
afterAll(async () => {
  await env.cleanup();
  site.stop();
});

describe("a JS fade", () => {
  test("fading in over 2 s: the links are in the reply, which comes well before the fade ends (and before the settle's 1 s cap)", async () => {
    const r = await run(["click", await refOf("Open calendar")]);
    expect(r.json.ok).toBe(true);
    expect(names((r.json.diff as Diff).added)).toEqual(["1", "2", "3", "Next"]);
    const seen = (await run(["eval", "seen()"])).json.value as { since: number; ended: boolean };
    expect({ ended: seen.ended, early: seen.since < 950 }).toEqual({ ended: false, early: true });
    // Its frames only raise the opacity: not held as an animation by script that changes what is read.
    expect((await clickSettle(1))?.scripted).toBeUndefined();
  });

  test("fading out to nothing: the reply waits for the end and shows the links gone", async () => {
    // Soon after the open fade ended (well within the 1 s a clock's churn is kept for): its 2 s of
    // per-frame rewrites stopped, so they are not the page's own churn.
    for (let i = 0; i < 100 && !((await run(["eval", "seen()"])).json.value as { ended: boolean }).ended; i++)
      await Bun.sleep(50);
    await Bun.sleep(300);
    const r = await run(["click", await refOf("Close calendar")]);
    expect(r.json.ok).toBe(true);
    expect((await run(["eval", "seen()"])).json.value).toMatchObject({ ended: true });
    expect((r.json.diff as Diff).removed?.length ?? 0).toBeGreaterThan(0);
    expect(names((await run(["snapshot"])).json.elements as El[])).not.toContain("Next");
  });

  test("a fade under way when a click arms (an earlier action's): none of the click's change", async () => {
    const mark = await refOf("Mark");
    // Clicks so far: Open calendar, Close calendar. The third: no fade running.
    expect((await run(["click", mark])).json.ok).toBe(true);
    const still = await clickMutations(3);
    expect(still).toBeGreaterThan(0);
    expect((await run(["eval", "fade(cal, 0, 1, 2000), 1"])).json.ok).toBe(true);
    await Bun.sleep(150);
    const r = await run(["click", mark]);
    expect(r.json.ok).toBe(true);
    expect((await run(["eval", "seen()"])).json.value).toMatchObject({ ended: false });
    // The fade's next frame after the arm (rising, as before it) is not counted as a change.
    expect(await clickMutations(4)).toBe(still);
  });

  test("a size tween the click starts is held for as an animation by script, although its frames rewrite nothing for a while", async () => {
    const r = await run(["click", await refOf("Open drawer")]);
    expect(r.json.ok).toBe(true);
    expect(names((r.json.diff as Diff).added)).toContain("Drawer link");
    // Clicks so far: Open calendar, Close calendar, Mark twice; this is the fifth.
    expect((await clickSettle(5))?.scripted).toBe(true);
  });

  test("jQuery UI's datepicker with a 2 s fadeIn: the calendar's day links are in the click's reply, before the fade ends", async () => {
    expect((await run(["open", `${site.a}/ui/slow-dp`])).json.ok).toBe(true);
    const r = await run(["click", await refOf("Date")]);
    expect(r.json.ok).toBe(true);
    const added = (r.json.diff as Diff).added ?? [];
    expect(names(added)).toContain("Next");
    expect(added.find((e) => e.ex !== undefined)).toMatchObject({ t: "link", ex: ["1", "31"] });
    expect((await run(["eval", "seen()"])).json.value).toEqual({ fading: true, early: true });
    // Shown in the handler's task at an opacity just above zero, then only raised: nothing read
    // changes in its frames, so the settle is not held as for an animation by script.
    expect((await clickSettle(6))?.scripted).toBeUndefined();
  });
});
