/**
 * An agent that acts a moment after a page loaded, before any of its churn has run for a second:
 * a loop that moves a box every frame from the load is still no change of the action's and does
 * not hold its settle to the cap. The loop is proven by keeping its pace through the action's
 * input (src/page/settle/churn.ts); the settle takes back what it had counted of it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { requireChromium } from "../support/chromium.ts";
import { makeBpEnv } from "../support/bp.ts";
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
const file = join(traced.home, "..", "phases.jsonl");
traced.env.BROWSER_PILOT_PHASES = file;
const KEY = "agent-early";
const run = (args: string[]) => traced.run(args, { key: KEY });

type Entry = [number, string, unknown?];

/** The traced requests named `command` so far. */
function traces(command: string): Entry[][] {
  return readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Entry[])
    .filter((l) => l.some((e) => e[1] === "request" && e[2] === command));
}

/** The settle's verdict in the trace of the `n`th request named `command` (the broker appends after replying). */
async function settleOf(command: string, n: number): Promise<{ capped?: boolean; mutations: number }> {
  const find = () => traces(command)[n];
  for (let i = 0; i < 50 && !find(); i++) await Bun.sleep(20);
  const settle = (find() ?? [])
    .map((e) => (e[1] === "reply" ? (e[2] as { page?: { settle?: unknown } }).page?.settle : undefined))
    .find((s) => s !== undefined);
  return settle as { capped?: boolean; mutations: number };
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
    const n = traces("click").length;
    const r = await run(["click", ref("Nothing")]);
    expect(r.json.ok).toBe(true);
    expect((r.json.evidence as { effects?: string[] }).effects ?? []).not.toContain("dom_changed");
    const s = await settleOf("click", n);
    expect(s.capped).toBeUndefined();
    expect(s.mutations).toBe(0);
    expect(await downAt()).toBeLessThan(1_000);
  });

  test("a button that writes a status: the status is the change and the outcome, uncapped", async () => {
    const ref = await fresh();
    const n = traces("click").length;
    const r = await run(["click", ref("Pay")]);
    expect(r.json.ok).toBe(true);
    expect((r.json.evidence as { effects?: string[] }).effects ?? []).toContain("dom_changed");
    expect(r.stdout).toContain("Paid with 4242");
    const s = await settleOf("click", n);
    expect(s.capped).toBeUndefined();
    // The status's text, not the loop's frames.
    expect(s.mutations).toBe(1);
    expect(await downAt()).toBeLessThan(1_000);
  });
});
