/**
 * file: URLs show the machine's files: other agents' downloads in the private store, the broker
 * locator with its token, a profile's cookies. Refused unless whoever starts the broker opts in,
 * and never under bp's own directory even then.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { requireChromium } from "../support/chromium.ts";
import { envPool, waitFor } from "../support/bp.ts";
import { startFixtureServer } from "../support/fixture-server.ts";
import { listPageTargets, openUserTab, startUserBrowser, type UserBrowser } from "../support/user-browser.ts";

requireChromium();
const pool = envPool();
const site = startFixtureServer({ "/plain": "<title>Plain</title><p>plain page</p>" });
afterAll(async () => {
  await pool.cleanupAll();
  site.stop();
});

type Tab = { id: string; url: string };

/** Navigates a page target the way the person's own browser would, over its DevTools socket. */
async function personNavigates(port: number, targetId: string, url: string): Promise<void> {
  const info = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as {
    id: string;
    webSocketDebuggerUrl: string;
  }[];
  const ws = new WebSocket(info.find((t) => t.id === targetId)?.webSocketDebuggerUrl ?? "");
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = reject;
  });
  let id = 0;
  const call = (method: string, params: object = {}) =>
    new Promise<{ result?: { currentIndex: number; entries: { url: string }[] } }>((resolve) => {
      const mine = ++id;
      ws.addEventListener("message", (e) => {
        const m = JSON.parse(String(e.data)) as {
          id: number;
          result?: { currentIndex: number; entries: { url: string }[] };
        };
        if (m.id === mine) resolve(m);
      });
      ws.send(JSON.stringify({ id: mine, method, params }));
    });
  const current = async () => {
    const h = (await call("Page.getNavigationHistory")).result;
    return h?.entries[h.currentIndex]?.url ?? "";
  };
  // The file: load must be a history entry of its own before the next navigation.
  await waitFor(async () => (await current()).startsWith("file:"), 10_000, "the file: entry");
  await call("Page.navigate", { url });
  await waitFor(async () => (await current()) === url, 10_000, `the tab at ${url}`);
  ws.close();
}

describe("without the opt-in", () => {
  const env = pool.newEnv();
  let browser: UserBrowser;
  beforeAll(async () => {
    browser = await startUserBrowser();
    expect((await env.run(["connect", "--cdp-url", browser.wsEndpoint])).json.ok).toBe(true);
  });
  afterAll(async () => {
    await env.cleanup();
    await browser.stop();
  });

  test("open refuses every spelling of a file: URL, with nothing opened", async () => {
    const before = (await listPageTargets(browser.port)).length;
    const locator = `file://${join(env.home, "broker-locator.json")}`;
    for (const url of [
      "file:///etc/hostname",
      "FILE:///etc/hostname",
      "file:/etc/hostname",
      "file://localhost/etc/hostname",
      locator,
    ]) {
      const r = await env.run(["open", url, "--new"]);
      expect(r.json).toMatchObject({ ok: false, code: "invalid_argument", context: { field: "url" } });
      expect(r.stdout).not.toContain("token");
    }
    expect((await listPageTargets(browser.port)).length).toBe(before);
  });

  test("a person's tab showing a local file is neither listed nor addressable", async () => {
    const tab = await openUserTab(browser.port, "file:///etc/hostname");
    await waitFor(
      async () => (await listPageTargets(browser.port)).some((t) => t.id === tab.id && t.url.startsWith("file:")),
      10_000,
      "the file tab",
    );
    const tabs = (await env.run(["tabs"])).json.tabs as Tab[];
    expect(tabs.some((t) => t.url.startsWith("file:"))).toBe(false);
  });

  test("a history step into a file: entry is refused and the tab stays where it was", async () => {
    const tab = await openUserTab(browser.port, "file:///etc/hostname");
    await personNavigates(browser.port, tab.id, `${site.a}/plain`);
    const mine = await waitFor(
      async () => ((await env.run(["tabs"])).json.tabs as Tab[]).find((t) => t.url === `${site.a}/plain`),
      10_000,
      "the tab on the web page",
    );
    expect((await env.run(["tab", mine?.id ?? "none"])).json.ok).toBe(true);
    const back = await env.run(["back"]);
    expect(back.json).toMatchObject({ ok: false, code: "invalid_argument", context: { field: "url" } });
    expect((await env.run(["read"])).json).toMatchObject({ ok: true, url: `${site.a}/plain` });
  });
});

describe("with BROWSER_PILOT_ALLOW_FILE_URLS=1", () => {
  const env = pool.newEnv({ BROWSER_PILOT_ALLOW_FILE_URLS: "1" });
  const outside = join(dirname(env.home), "outside");
  beforeAll(async () => {
    mkdirSync(outside, { recursive: true });
    writeFileSync(join(outside, "note.txt"), "a note outside bp's home");
    symlinkSync(env.home, join(outside, "home-link"));
    expect((await env.run(["launch", "--headless"])).json.ok).toBe(true);
  });

  test("a file outside bp's home opens and reads", async () => {
    expect((await env.run(["open", `file://${outside}/note.txt`, "--new"])).json.ok).toBe(true);
    expect((await env.run(["read"])).json.text).toContain("a note outside bp's home");
  });

  test("bp's own home stays out of reach, directly and through a symlink", async () => {
    for (const url of [
      `file://${env.home}/broker-locator.json`,
      `file://${env.home}/`,
      `file://${outside}/home-link/broker-locator.json`,
    ]) {
      const r = await env.run(["open", url]);
      expect(r.json).toMatchObject({ ok: false, code: "invalid_argument", context: { field: "url" } });
    }
  });

  test("a link of a file: page into bp's home leaves the tab unreadable", async () => {
    expect((await env.run(["open", `file://${outside}/`])).json.ok).toBe(true);
    const found = (await env.run(["snapshot", "--find", "home-link"])).json.elements as { r: number }[];
    expect(found.length).toBeGreaterThan(0);
    const click = await env.run(["click", String(found[0]?.r)]);
    expect(click.stdout).not.toContain("broker-locator");
    const read = await env.run(["read"]);
    expect(read.json).toMatchObject({ ok: false, code: "tab_not_found", context: { reason: "local_file" } });
    expect(read.stdout).not.toContain("token");
  });
});
