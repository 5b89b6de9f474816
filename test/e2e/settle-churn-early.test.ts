/**
 * An agent that acts a moment after a page loaded, before any of its churn has run for a second:
 * a loop that moves a box every frame from the load is still no change of the action's and does
 * not hold its settle to the cap. The loop is proven by keeping its pace through the action's
 * input (src/page/settle/churn.ts); the settle takes back what it had counted of it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { requireChromium } from "../support/chromium.ts";
import { type BpResult, makeBpEnv } from "../support/bp.ts";
import { nthTrace, traceTo } from "../support/phases-trace.ts";
import { startFixtureServer } from "../support/fixture-server.ts";

requireChromium();

const site = startFixtureServer({
  "/loop": `<!doctype html><title>Loop</title>
    <div id=box style="position:relative;width:10px;height:10px;background:#c60"></div>
    <button id=dead>Nothing</button>
    <button onclick="out.textContent = 'Paid with 4242'">Pay</button>
    <p id=out role=status></p>
    <script>
      // When the click came, from the document's start: the churn rule's second-long streak cannot have passed yet.
      addEventListener("mousedown", () => { if (window.downAt === undefined) window.downAt = performance.now(); }, true);
      (function move(ts) { box.style.left = (Math.sin(ts / 300) * 100 + 100).toFixed(0) + "px"; requestAnimationFrame(move); })(0);
    </script>`,
});
const traced = makeBpEnv();
const file = traceTo(traced);
const KEY = "agent-early";
const run = (args: string[]) => traced.run(args, { key: KEY });

let clicks = 0;
/** Clicks `ref`; the reply and the settle's verdict from the broker's record of that click. */
async function click(ref: string): Promise<{ r: BpResult; settle: { capped?: boolean; mutations: number } }> {
  const r = await run(["click", ref]);
  const settle = ((await nthTrace(file, "click", ++clicks)) ?? [])
    .map((e) => (e[1] === "reply" ? (e[2] as { page?: { settle?: unknown } }).page?.settle : undefined))
    .find((x) => x !== undefined);
  return { r, settle: settle as { capped?: boolean; mutations: number } };
}

beforeAll(async () => {
  expect((await traced.run(["launch", "--headless"])).json.ok).toBe(true);
});
afterAll(async () => {
  await traced.cleanup();
  site.stop();
});

/** Opens the page afresh and returns its refs by name, read at once. */
async function fresh(): Promise<(name: string) => string> {
  expect((await run(["open", `${site.a}/loop`])).json.ok).toBe(true);
  const els = (await run(["snapshot"])).json.elements as { r: number; n?: string }[];
  return (name) => String(els.find((e) => e.n === name)?.r);
}

/** When the click reached the page, in ms from the document's start. */
async function downAt(): Promise<number> {
  return Number((await run(["eval", "window.downAt"])).json.value);
}

describe("acting right after the load of a page with a loop", () => {
  test("a button that does nothing: the loop's frames are not its change, nor do they hold it to the cap", async () => {
    const ref = await fresh();
    const { r, settle: s } = await click(ref("Nothing"));
    expect(r.json.ok).toBe(true);
    expect((r.json.evidence as { effects?: string[] }).effects ?? []).not.toContain("dom_changed");
    expect(s.capped).toBeUndefined();
    expect(s.mutations).toBe(0);
    expect(await downAt()).toBeLessThan(1_000);
  });

  test("a button that writes a status: the status is the change and the outcome, uncapped", async () => {
    const ref = await fresh();
    const { r, settle: s } = await click(ref("Pay"));
    expect(r.json.ok).toBe(true);
    expect((r.json.evidence as { effects?: string[] }).effects ?? []).toContain("dom_changed");
    expect(r.stdout).toContain("Paid with 4242");
    expect(s.capped).toBeUndefined();
    // The status's text, not the loop's frames.
    expect(s.mutations).toBe(1);
    expect(await downAt()).toBeLessThan(1_000);
  });
});
