/**
 * Scrolling before a click: an element wholly in view and reachable is clicked where it is
 * (the page does not move under the agent, nor do its scroll handlers run); one out of view,
 * or covered where it is, is scrolled to the centre first. Real Chromium.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { requireChromium } from "../support/chromium.ts";
import { makeBpEnv } from "../support/bp.ts";
import { startFixtureServer } from "../support/fixture-server.ts";

requireChromium();

// Near sits wholly in the viewport, just above its bottom edge, where a fixed bar can cover it.
const PAGE = `<!doctype html><title>Tall</title>
  <style>body{margin:0} footer{position:fixed;bottom:0;left:0;right:0;height:120px;background:#eee}</style>
  <footer id=bar hidden>Cookie bar</footer>
  <div id=spacer style="height:300px"></div>
  <script>document.getElementById("spacer").style.height = (innerHeight - 80) + "px";</script>
  <button id=near onclick="hits.push('near')">Near</button>
  <div style="height:3000px"></div>
  <button id=far onclick="hits.push('far')">Far</button>
  <div style="height:600px"></div>
  <script>window.hits = []; window.scrolls = 0; addEventListener("scroll", () => scrolls++);</script>`;

const site = startFixtureServer({ "/tall": PAGE });
const env = makeBpEnv();

beforeAll(async () => {
  expect((await env.run(["launch", "--headless"])).json.ok).toBe(true);
  expect((await env.run(["open", `${site.a}/tall`, "--new"])).json.ok).toBe(true);
});
afterAll(async () => {
  await env.cleanup();
  site.stop();
});

type El = { r: number; n?: string };

async function refs(): Promise<Record<string, string>> {
  const s = await env.run(["snapshot", "--limit", "100"]);
  return Object.fromEntries((s.json.elements as El[]).map((e) => [e.n ?? "", String(e.r)]));
}
const js = async (expr: string): Promise<unknown> => (await env.run(["eval", expr])).json.value;

describe("click scroll", () => {
  test("an element wholly in view is clicked where it is: no scroll", async () => {
    const r = await refs();
    const c = await env.run(["click", r.Near ?? ""]);
    expect(c.json.ok).toBe(true);
    expect(await js("hits.slice()")).toEqual(["near"]);
    expect(await js("scrollY")).toBe(0);
    expect(await js("scrolls")).toBe(0);
  });

  test("an element out of view is scrolled into view first, then clicked", async () => {
    const r = await refs();
    const c = await env.run(["click", r.Far ?? ""]);
    expect(c.json.ok).toBe(true);
    expect(await js("hits.slice()")).toEqual(["near", "far"]);
    expect(Number(await js("scrollY"))).toBeGreaterThan(2000);
  });

  test("an element in view but covered where it is (a fixed bar) is scrolled to the centre and clicked", async () => {
    // Still wholly in view, above the bar's top edge no more.
    expect(await js("scrollTo(0, 0); document.getElementById('bar').hidden = false; hits.length = 0; scrollY")).toBe(0);
    const r = await refs();
    const c = await env.run(["click", r.Near ?? ""]);
    expect(c.json.ok).toBe(true);
    expect(await js("hits.slice()")).toEqual(["near"]);
    expect(Number(await js("scrollY"))).toBeGreaterThan(0);
  });
});
