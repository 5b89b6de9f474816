/**
 * A broker whose browser connection was lost while the browser lives on (its janitor died, a
 * keepalive gave up): once that broker stops, nothing else would ever close our tabs, or the
 * browser bp launched. It connects once more as it stops, so neither is left behind; a tab
 * the person opened stays open and keeps the launched browser running.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { requireChromium } from "../support/chromium.ts";
import { alive, browsersUnder, envPool, killAndWait, processesFor, waitFor, type BpEnv } from "../support/bp.ts";
import { startFixtureServer } from "../support/fixture-server.ts";
import { listPageTargets, openUserTab } from "../support/user-browser.ts";

requireChromium();
const site = startFixtureServer();
const { newEnv, cleanupAll } = envPool();
afterAll(async () => {
  await cleanupAll();
  site.stop();
});

function portOf(env: BpEnv): number {
  return Number(readFileSync(join(env.home, "profiles", "default", "DevToolsActivePort"), "utf8").split("\n")[0]);
}

/** Launches, opens one managed tab, then kills the janitor: the broker lives on without a connection. */
async function loseConnection(env: BpEnv): Promise<{ chromium: number; port: number }> {
  expect((await env.run(["launch", "--headless"], { key: "harness-main" })).json.ok).toBe(true);
  expect((await env.run(["open", `${site.a}/second`, "--new"], { key: "harness-main" })).json).toMatchObject({ ok: true, title: "Second" });
  const [chromium] = browsersUnder(env.home);
  expect(chromium).toBeDefined();
  const janitors = processesFor(env.home, "janitor");
  expect(janitors).toHaveLength(1);
  for (const pid of janitors) await killAndWait(pid, "SIGKILL");
  const lost = async () => ((await env.run(["status"], { key: "harness-main" })).json.browser as { state?: string } | undefined)?.state === "disconnected";
  await waitFor(lost, 10_000, "the broker to see its connection lost");
  return { chromium: chromium ?? 0, port: portOf(env) };
}

describe("a broker that lost its browser connection", () => {
  test("its lease expires, it exits on idle, and the launched browser and our tab go with it", async () => {
    const env = newEnv({ BROWSER_PILOT_LEASE_MS: "1500", BROWSER_PILOT_IDLE_MS: "3000" });
    const { chromium, port } = await loseConnection(env);
    expect((await listPageTargets(port)).map((t) => t.title)).toContain("Second");
    await waitFor(() => processesFor(env.home, "broker").length === 0, 30_000, "idle exit");
    await waitFor(() => !alive(chromium), 20_000, "launched browser exit");
    expect(browsersUnder(env.home)).toHaveLength(0);
  }, 90_000);

  test("SIGTERM: our tab closes, the person's tab and the launched browser stay", async () => {
    const env = newEnv();
    const { chromium, port } = await loseConnection(env);
    await openUserTab(port, `${site.a}/third`);
    await waitFor(async () => (await listPageTargets(port)).some((t) => t.title === "Third"), 10_000, "person's tab");
    await killAndWait(env.brokerPid() ?? 0, "SIGTERM");
    await waitFor(async () => !(await listPageTargets(port)).some((t) => t.title === "Second"), 15_000, "our tab closed");
    expect((await listPageTargets(port)).map((t) => t.title)).toEqual(["Third"]);
    expect(alive(chromium)).toBe(true);
  }, 90_000);
});
