/**
 * Where a person may move the real mouse, every click moves the pointer first, even onto the
 * spot the last click left it: in a browser bp connected to (here over --cdp-url), on the
 * person's own tab and on a tab bp opened. Real Chromium; the page logs its trusted mouse events.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { requireChromium } from "../support/chromium.ts";
import { makeBpEnv, type BpEnv } from "../support/bp.ts";
import { startFixtureServer } from "../support/fixture-server.ts";
import { startUserBrowser, type UserBrowser } from "../support/user-browser.ts";

requireChromium();

const PAGE = `<!doctype html><title>Pointer</title>
  <p><button id=a>Alpha</button></p>
  <script>
    window.seen = [];
    for (const t of ["mousemove", "mousedown", "mouseup", "click"])
      addEventListener(t, (e) => { if (e.isTrusted) seen.push(t + ":" + (e.target.id || e.target.localName)); }, true);
  </script>`;

const site = startFixtureServer({ "/pointer": PAGE });
let user: UserBrowser;
let env: BpEnv;

beforeAll(async () => {
  user = await startUserBrowser({ url: `${site.a}/pointer` });
  env = makeBpEnv({ HOME: user.home });
  expect((await env.run(["connect", "--cdp-url", user.wsEndpoint])).json.ok).toBe(true);
});
afterAll(async () => {
  await env.cleanup();
  await user.stop();
  site.stop();
});

/** Clicks Alpha twice on the same spot and answers the trusted mouse events of each click. */
async function clickTwice(): Promise<string[][]> {
  const els = (await env.run(["snapshot"])).json.elements as { r: number; n?: string }[];
  const ref = String(els.find((e) => e.n === "Alpha")?.r);
  const out: string[][] = [];
  for (let i = 0; i < 2; i++) {
    expect((await env.run(["eval", "seen.length = 0"])).json.ok).toBe(true);
    expect((await env.run(["click", ref])).json.ok).toBe(true);
    out.push((await env.run(["eval", "seen.slice()"])).json.value as string[]);
  }
  return out;
}

describe("click pointer where a person may move the mouse", () => {
  test("the person's own tab: the second click on the same spot moves first too", async () => {
    const tabs = (await env.run(["tabs"])).json.tabs as { id: string; origin: string; url: string }[];
    const mine = tabs.find((t) => t.url.endsWith("/pointer"));
    expect(mine?.origin).toBe("user_tab");
    expect((await env.run(["tab", mine?.id ?? ""])).json.ok).toBe(true);
    for (const events of await clickTwice()) {
      expect(events).toContain("mousemove:a");
      expect(events.slice(-3)).toEqual(["mousedown:a", "mouseup:a", "click:a"]);
    }
  });

  test("a tab bp opened in the connected browser: the second click moves first too", async () => {
    expect((await env.run(["open", `${site.a}/pointer`, "--new"])).json.ok).toBe(true);
    for (const events of await clickTwice()) {
      expect(events).toContain("mousemove:a");
      expect(events.slice(-3)).toEqual(["mousedown:a", "mouseup:a", "click:a"]);
    }
  });
});
