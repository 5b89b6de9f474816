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
import { connect as netConnect, createServer, type Socket } from "node:net";
import { listPageTargets, openUserTab, startUserBrowser } from "../support/user-browser.ts";

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
  expect((await env.run(["open", `${site.a}/second`, "--new"], { key: "harness-main" })).json).toMatchObject({
    ok: true,
    title: "Second",
  });
  const [chromium] = browsersUnder(env.home);
  expect(chromium).toBeDefined();
  const janitors = processesFor(env.home, "janitor");
  expect(janitors).toHaveLength(1);
  for (const pid of janitors) await killAndWait(pid, "SIGKILL");
  const lost = async () =>
    ((await env.run(["status"], { key: "harness-main" })).json.browser as { state?: string } | undefined)?.state ===
    "disconnected";
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
    await waitFor(
      async () => !(await listPageTargets(port)).some((t) => t.title === "Second"),
      15_000,
      "our tab closed",
    );
    expect((await listPageTargets(port)).map((t) => t.title)).toEqual(["Third"]);
    expect(alive(chromium)).toBe(true);
  }, 90_000);

  test("a remote endpoint is not connected to again at the stop: a new socket there is a new session", async () => {
    const user = await startUserBrowser();
    // A proxy in front of the browser; once told to hang, it passes the WebSocket handshake and nothing after it.
    let hang = false;
    let connections = 0;
    const proxy = createServer((client: Socket) => {
      connections++;
      const mute = hang;
      const up = netConnect(user.port, "127.0.0.1");
      let upgraded = false;
      client.on("data", (d) => up.write(d));
      up.on("data", (d) => {
        if (mute && upgraded) return;
        upgraded = true;
        client.write(d);
      });
      client.on("error", () => up.destroy());
      up.on("error", () => client.destroy());
      client.on("close", () => up.destroy());
      up.on("close", () => client.destroy());
    });
    try {
      await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", () => r()));
      const url = user.wsEndpoint.replace(/:\d+\//, `:${(proxy.address() as { port: number }).port}/`);
      const env = newEnv();
      expect((await env.run(["connect", "--cdp-url", url], { key: "harness-main" })).json.ok).toBe(true);
      expect((await env.run(["open", `${site.a}/second`, "--new"], { key: "harness-main" })).json.ok).toBe(true);
      for (const pid of processesFor(env.home, "janitor")) await killAndWait(pid, "SIGKILL");
      const lost = async () =>
        ((await env.run(["status"], { key: "harness-main" })).json.browser as { state?: string } | undefined)?.state ===
        "disconnected";
      await waitFor(lost, 10_000, "the broker to see its connection lost");
      const before = connections;
      hang = true;
      const broker = env.brokerPid() ?? 0;
      const t0 = Date.now();
      process.kill(broker, "SIGTERM");
      await waitFor(() => !alive(broker), 60_000, "the broker to exit");
      // A remote service ends the browser with its socket and may start (and bill) a new one
      // for any other: the stop opens none, so it cannot hang on one either.
      expect(connections - before).toBe(0);
      expect(Date.now() - t0).toBeLessThan(15_000);
    } finally {
      proxy.close();
      await user.stop();
    }
  }, 90_000);

  test("a browser found on this machine is not connected to again at the stop (that may prompt the person)", async () => {
    const user = await startUserBrowser();
    try {
      const env = newEnv();
      env.env.HOME = user.home;
      expect((await env.run(["connect"], { key: "harness-main" })).json).toMatchObject({
        ok: true,
        browser: { source: "discovered" },
      });
      expect((await env.run(["open", `${site.a}/second`, "--new"], { key: "harness-main" })).json.ok).toBe(true);
      for (const pid of processesFor(env.home, "janitor")) await killAndWait(pid, "SIGKILL");
      const lost = async () =>
        ((await env.run(["status"], { key: "harness-main" })).json.browser as { state?: string } | undefined)?.state ===
        "disconnected";
      await waitFor(lost, 10_000, "the broker to see its connection lost");
      await killAndWait(env.brokerPid() ?? 0, "SIGTERM");
      // Nothing connected to close it: our tab is left for the person, as before the stop.
      await Bun.sleep(500);
      expect((await listPageTargets(user.port)).map((t) => t.title)).toContain("Second");
      expect(alive(user.pid)).toBe(true);
    } finally {
      await user.stop();
    }
  }, 90_000);
});
