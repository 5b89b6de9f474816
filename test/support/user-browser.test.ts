import { existsSync } from "node:fs";
import { afterAll, describe, expect, test } from "bun:test";
import { discoverBrowsers, isPidAlive } from "../../src/discovery/index.ts";
import { listPageTargets, openUserTab, startUserBrowser, type UserBrowser } from "./user-browser.ts";

describe("user browser fixture", () => {
  let browser: UserBrowser | undefined;
  afterAll(async () => {
    await browser?.stop();
  });

  test("discovery sees it as a running, debuggable, not yet connected Chromium", async () => {
    browser = await startUserBrowser();
    expect(browser.userDataDir).toBe(`${browser.home}/.config/chromium`);
    expect(browser.wsEndpoint).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/devtools\/browser\/.+/);

    const candidates = await discoverBrowsers({ env: { HOME: browser.home } });
    const chromium = candidates.find((c) => c.userDataRoot === browser?.userDataDir);
    expect(chromium).toBeDefined();
    expect(chromium?.id).toStartWith("browser:chromium-stable:");
    expect(chromium?.processState).toBe("running");
    expect(chromium?.remoteDebuggingState).toBe("enabled");
    expect(chromium?.authorizationState).toBe("unknown");
    expect(chromium?.state).toBe("disconnected");
    expect(chromium?.remediation?.code).toBe("connect_browser");
    expect(chromium?.endpoint).toBe(browser.wsEndpoint);
  });

  test("a user tab can be opened and listed", async () => {
    if (!browser) throw new Error("browser not started");
    const url = "data:text/html,<title>user tab</title>?a=1&b=2";
    const tab = await openUserTab(browser.port, url);
    expect(tab.type).toBe("page");
    const pages = await listPageTargets(browser.port);
    expect(pages.map((p) => p.id)).toContain(tab.id);
    expect(pages.find((p) => p.id === tab.id)?.url).toBe(url);
    expect(pages.some((p) => p.url === "about:blank")).toBe(true);
  });

  test("stop kills exactly its process and removes the fake home", async () => {
    if (!browser) throw new Error("browser not started");
    const { pid, home } = browser;
    await browser.stop();
    expect(isPidAlive(pid)).toBe(false);
    expect(existsSync(home)).toBe(false);
    // /usr/bin/chromium still counts as installed, but nothing may claim to be running.
    const after = await discoverBrowsers({ env: { HOME: home } });
    for (const candidate of after.filter((c) => c.userDataRoot.startsWith(home))) {
      expect(candidate.processState).toBe("not_running");
      expect(candidate.state).toBe("not_running");
      expect(candidate.endpoint).toBeUndefined();
    }
    browser = undefined;
  });
});
