/**
 * The launched browser's lifecycle and the janitor's cleanup, against real processes: a
 * browser Browser Pilot launched is Browser Pilot's and goes away with the broker (unless the
 * person has a tab in it); the person's own browser is never closed, only our tabs in it.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { requireChromium } from "../support/chromium.ts";
import { alive, browsersUnder, killAndWait, envPool, processesFor, waitFor, type BpEnv } from "../support/bp.ts";
import { startFixtureServer } from "../support/fixture-server.ts";
import { listPageTargets, openUserTab, startUserBrowser } from "../support/user-browser.ts";

requireChromium();
const site = startFixtureServer();
const { newEnv, cleanupAll } = envPool();
afterAll(async () => {
  await cleanupAll();
  site.stop();
});

/** Opens n managed tabs, a few agents at a time. */
async function openMany(env: BpEnv, n: number): Promise<void> {
  for (let i = 0; i < n; i += 8) {
    const batch = Array.from({ length: Math.min(8, n - i) }, (_, j) =>
      env.run(["open", `${site.a}/second?n=${i + j}`, "--new"], { key: `agent-${(i + j) % 4}` }),
    );
    for (const r of await Promise.all(batch)) expect(r.json.ok).toBe(true);
  }
}

function portOf(env: BpEnv, profile = "default"): number {
  return Number(readFileSync(join(env.home, "profiles", profile, "DevToolsActivePort"), "utf8").split("\n")[0]);
}

describe("the launched browser", () => {
  test("builds no address-bar popup pages for the windows our tabs open in", async () => {
    const env = newEnv();
    expect((await env.run(["launch", "--headless"])).json.ok).toBe(true);
    await openMany(env, 3);
    const targets = (await (await fetch(`http://127.0.0.1:${portOf(env)}/json/list`)).json()) as {
      type: string;
      url: string;
    }[];
    expect(targets.filter((t) => t.type === "page").length).toBeGreaterThanOrEqual(3);
    expect(targets.filter((t) => t.url.startsWith("chrome://omnibox-popup"))).toEqual([]);
  });
});

describe("kill -9 of the broker", () => {
  test("a launched browser with more than 32 managed tabs: every tab closes, then the browser", async () => {
    const env = newEnv();
    expect((await env.run(["launch", "--headless"])).json.ok).toBe(true);
    await openMany(env, 34);
    const port = portOf(env);
    expect((await listPageTargets(port)).length).toBeGreaterThanOrEqual(34);
    const [chromium] = browsersUnder(env.home);
    const janitors = processesFor(env.home, "janitor");
    expect(janitors).toHaveLength(1);
    await killAndWait(env.brokerPid() ?? 0, "SIGKILL");
    await waitFor(() => janitors.every((p) => !alive(p)), 40_000, "janitor exit");
    await waitFor(() => !alive(chromium ?? 0), 20_000, "launched browser exit");
    expect(browsersUnder(env.home)).toHaveLength(0);
  }, 120_000);

  test("the person's browser with more than 32 managed tabs: all of ours close, the person's tab and browser stay", async () => {
    const user = await startUserBrowser({ url: `${site.a}/` });
    try {
      await waitFor(
        async () => (await listPageTargets(user.port)).some((t) => t.title === "Home"),
        10_000,
        "user page",
      );
      const env = newEnv();
      env.env.HOME = user.home;
      expect((await env.run(["connect"])).json.ok).toBe(true);
      await openMany(env, 34);
      const janitors = processesFor(env.home, "janitor");
      await killAndWait(env.brokerPid() ?? 0, "SIGKILL");
      await waitFor(() => janitors.every((p) => !alive(p)), 40_000, "janitor exit");
      // The janitor has sent every close; the browser finishes closing a moment later.
      const onlyHome = async () =>
        JSON.stringify((await listPageTargets(user.port)).map((t) => t.title)) === '["Home"]';
      await waitFor(onlyHome, 10_000, "only the person's tab left").catch(() => undefined);
      const left = await listPageTargets(user.port);
      expect(left.map((t) => t.title)).toEqual(["Home"]);
      expect(alive(user.pid)).toBe(true);
    } finally {
      await user.stop();
    }
  }, 120_000);
});

describe("concurrent launches", () => {
  test("30 launches at once share one attempt: one browser, all ok; one that times out kills nothing", async () => {
    const env = newEnv();
    const runs = Array.from({ length: 30 }, (_, i) => env.run(["launch", "--headless"], { key: `agent-${i}` }));
    const short = env.run(["launch", "--headless", "--timeout", "200"], { key: "agent-short" });
    const results = await Promise.all(runs);
    for (const r of results) expect(r.json).toMatchObject({ ok: true, browser: { generation: 1 } });
    // Only the one that started the browser says nothing; the others were reused.
    expect(results.filter((r) => r.json.reused === undefined)).toHaveLength(1);
    const s = await short;
    expect(s.json.ok === true || s.json.code === "command_expired" || s.json.code === "command_cancelled").toBe(true);
    expect(browsersUnder(env.home)).toHaveLength(1);
    await Bun.sleep(300);
    expect((await env.run(["open", `${site.a}/`, "--new"], { key: "agent-0" })).json.ok).toBe(true);
    expect(browsersUnder(env.home)).toHaveLength(1);
  }, 120_000);
});

describe("launch while another browser is connected", () => {
  test("broker_in_use and nothing started; nothing of that profile left after disconnect", async () => {
    const env = newEnv();
    expect((await env.run(["launch", "--headless"])).json.ok).toBe(true);
    const before = browsersUnder(env.home);
    const r = await env.run(["launch", "--headless", "--profile", "other"], { key: "agent-x" });
    expect(r.json).toMatchObject({ ok: false, code: "broker_in_use", remediation: { code: "close_active_clients" } });
    expect(browsersUnder(join(env.home, "profiles", "other"))).toHaveLength(0);
    expect(existsSync(join(env.home, "profiles", "other", "DevToolsActivePort"))).toBe(false);
    expect(browsersUnder(env.home)).toEqual(before);
    expect((await env.run(["disconnect"])).json.ok).toBe(true);
    await waitFor(() => browsersUnder(env.home).length === 0, 20_000, "launched browser closed on disconnect");
  }, 60_000);
});

describe("tab ids across broker restarts", () => {
  test("an id from before a restart is tab_not_found, never another tab; new ids stay short", async () => {
    const env = newEnv();
    expect((await env.run(["launch", "--headless"])).json.ok).toBe(true);
    // The person's tab keeps the launched browser running when the broker stops.
    await openUserTab(portOf(env), `${site.a}/third`);
    await waitFor(
      async () => ((await env.run(["tabs"])).json.tabs as { title: string }[]).some((t) => t.title === "Third"),
      10_000,
      "person's tab listed",
    );
    const before = (await env.run(["tabs"])).json.tabs as { id: string; title: string }[];
    const old = before.find((t) => t.title === "Third")?.id ?? "";
    expect(old).toBe("t1");
    expect((await env.run(["disconnect"])).json).toMatchObject({ ok: true, brokerStopped: true });
    await waitFor(() => processesFor(env.home, "broker").length === 0, 10_000, "broker exit");
    expect((await env.run(["launch", "--headless"])).json).toMatchObject({ ok: true, reused: true });
    const stale = await env.run(["tab", old]);
    expect(stale.json).toMatchObject({ ok: false, code: "tab_not_found", context: { reason: "broker_restarted" } });
    const after = (await env.run(["tabs"])).json.tabs as { id: string; title: string }[];
    const now = after.find((t) => t.title === "Third")?.id ?? "";
    expect(now).not.toBe(old);
    expect(now).toMatch(/^t\d{1,3}$/);
    // kill -9 of the broker (nothing written on exit) does not bring old numbers back either.
    await killAndWait(env.brokerPid() ?? 0, "SIGKILL");
    await env.run(["launch", "--headless"]);
    const third = (await env.run(["tabs"])).json.tabs as { id: string; title: string }[];
    const latest = third.find((t) => t.title === "Third")?.id ?? "";
    expect([old, now]).not.toContain(latest);
    expect((await env.run(["tab", now])).json).toMatchObject({
      ok: false,
      code: "tab_not_found",
      context: { reason: "broker_restarted" },
    });
  }, 60_000);
});

describe("SIGTERM right after the agent closed its last tab", () => {
  test("a tab still closing in the browser does not pass for the person's: the launched browser goes", async () => {
    const env = newEnv();
    expect((await env.run(["launch", "--headless"])).json.ok).toBe(true);
    expect((await env.run(["open", `${site.a}/second`, "--new"])).json.ok).toBe(true);
    // A slow unload handler keeps the closed page listed by the browser for a while.
    const slow = "addEventListener('pagehide', () => { const end = Date.now() + 1500; while (Date.now() < end); }); 1";
    expect((await env.run(["eval", slow])).json.ok).toBe(true);
    const [chromium] = browsersUnder(env.home);
    expect((await env.run(["close"])).json).toMatchObject({ ok: true, remaining: 0 });
    await killAndWait(env.brokerPid() ?? 0, "SIGTERM");
    await waitFor(() => !alive(chromium ?? 0), 20_000, "launched browser exit");
  }, 60_000);
});
