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
      (function move(ts) { box.style.left = (Math.sin(ts / 300) * 100 + 100).toFixed(0) + "px"; requestAnimationFrame(move); })(0);
    </script>`,
});
const traced = makeBpEnv();
const file = join(traced.home, "..", "phases.jsonl");
traced.env.BROWSER_PILOT_PHASES = file;
const KEY = "agent-early";
const run = (args: string[]) => traced.run(args, { key: KEY });

type Entry = [number, string, unknown?];

/** The settle's verdict in the trace of the `n`th request named `command` (the broker appends after replying). */
async function settleOf(command: string, n: number): Promise<{ capped?: boolean; mutations: number }> {
  const find = () =>
    readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Entry[])
      .filter((l) => l.some((e) => e[1] === "request" && e[2] === command))[n];
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

describe("acting right after the load of a page with a loop", () => {
  test("a button that does nothing: the loop's frames are not its change, nor do they hold it to the cap", async () => {
    const ref = await fresh();
    const r = await run(["click", ref("Nothing")]);
    expect(r.json.ok).toBe(true);
    expect((r.json.evidence as { effects?: string[] }).effects ?? []).not.toContain("dom_changed");
    const s = await settleOf("click", 0);
    expect(s.capped).toBeUndefined();
    expect(s.mutations).toBe(0);
  });

  test("a button that writes a status: the status is the change and the outcome, uncapped", async () => {
    const ref = await fresh();
    const r = await run(["click", ref("Pay")]);
    expect(r.json.ok).toBe(true);
    expect((r.json.evidence as { effects?: string[] }).effects ?? []).toContain("dom_changed");
    expect(r.stdout).toContain("Paid with 4242");
    expect((await settleOf("click", 1)).capped).toBeUndefined();
  });
});
