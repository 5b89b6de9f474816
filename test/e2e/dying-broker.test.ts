/**
 * A CLI call made while the broker is on its way out, killed or stopping, must reach a new
 * broker and get a real answer. Found by the reliability suite: right after a kill -9 of the
 * broker, 'bp connect' printed "Broker closed the connection before replying". The kernel
 * tears a killed process down over several milliseconds (longer on a loaded machine), and
 * until it closes the listening socket a connection to it is queued there, then reset unread.
 */
import { afterAll, expect, test } from "bun:test";
import { existsSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isPidAlive } from "../../src/shared/process-identity.ts";
import { requireChromium } from "../support/chromium.ts";
import { BP, alive, envPool, processesFor, waitFor, type BpEnv } from "../support/bp.ts";

const pool = envPool();
afterAll(() => pool.cleanupAll());

/** Connections the kernel has queued at this socket path that no process has accepted yet. */
function queuedAt(socket: string): number {
  // /proc/net/unix: Num RefCount Protocol Flags Type St Inode Path; an embryo is St 02, no inode.
  return readFileSync("/proc/net/unix", "utf8")
    .split("\n")
    .filter((line) => line.endsWith(` ${socket}`) && line.split(/\s+/)[5] === "02").length;
}

function spawnBp(env: BpEnv, args: string[]) {
  const proc = Bun.spawn([BP, ...args], { env: env.env, stdout: "pipe", stderr: "pipe" });
  return { proc, json: async () => JSON.parse(await new Response(proc.stdout).text()) as Record<string, unknown> };
}

/**
 * The window held open: the broker is stopped, so the CLI's connection waits in its listening
 * socket's queue exactly as it does at a broker the kernel is still tearing down; then it dies.
 */
async function sendToDyingBroker(env: BpEnv, args: string[]): Promise<{ reply: Record<string, unknown>; old: number }> {
  expect((await env.run(["commands"])).json.ok).toBe(true);
  const old = env.brokerPid() ?? 0;
  process.kill(old, "SIGSTOP");
  try {
    const cli = spawnBp(env, args);
    await waitFor(
      () => queuedAt(join(env.home, "broker.sock")) > 0,
      10_000,
      "the call queued at the dying broker's socket",
    );
    process.kill(old, "SIGKILL");
    return { reply: await cli.json(), old };
  } finally {
    if (alive(old)) process.kill(old, "SIGKILL");
  }
}

test("a call queued at a killed broker's socket is answered by a new broker", async () => {
  const env = pool.newEnv();
  const { reply, old } = await sendToDyingBroker(env, ["commands"]);
  expect(reply).toMatchObject({ ok: true });
  const now = env.brokerPid() ?? 0;
  expect(now).not.toBe(old);
  expect(processesFor(env.home, "broker")).toEqual([now]);
});

test("a mutating call no broker read is sent to the new broker once, not reported unknown_outcome", async () => {
  const env = pool.newEnv();
  const { reply } = await sendToDyingBroker(env, ["net", "block", "*.png"]);
  expect(reply).toMatchObject({ ok: true, rule: { id: "r1" } });
  expect((await env.run(["net", "rules"])).json.rules).toEqual([{ id: "r1", type: "block", pattern: "*.png" }]);
});

test("a long-running broker that is stopping is waited for, not reported as unresponsive", async () => {
  const env = pool.newEnv();
  expect((await env.run(["launch", "--headless", "--executable", requireChromium()])).json.ok).toBe(true);
  const old = env.brokerPid() ?? 0;
  // Started a minute ago as far as the CLI can tell: past the grace a starting broker gets.
  const locator = join(env.home, "broker-locator.json");
  writeFileSync(
    locator,
    JSON.stringify({
      ...JSON.parse(readFileSync(locator, "utf8")),
      startedAt: new Date(Date.now() - 60_000).toISOString(),
    }),
    { mode: 0o600 },
  );
  // A janitor that does not answer holds the broker's stop open (up to its 7 s shutdown deadline)
  // after its socket has gone: the window in which every CLI call used to fail.
  const [janitor] = processesFor(env.home, "janitor");
  if (janitor === undefined) throw new Error("no janitor");
  process.kill(janitor, "SIGSTOP");
  try {
    expect((await env.run(["disconnect"])).json).toMatchObject({ ok: true, brokerStopped: true });
    await waitFor(() => !existsSync(join(env.home, "broker.sock")), 10_000, "the stopping broker's socket to go");
    expect(isPidAlive(old)).toBe(true);
    const r = await env.run(["commands"]);
    expect(r.json).toMatchObject({ ok: true });
    expect(isPidAlive(old)).toBe(false);
    expect(env.brokerPid()).not.toBe(old);
  } finally {
    if (alive(janitor)) process.kill(janitor, "SIGKILL");
  }
});

test("a live broker whose socket was removed is named by status and disconnect, not reported as gone", async () => {
  const env = pool.newEnv();
  expect((await env.run(["commands"])).json.ok).toBe(true);
  const pid = env.brokerPid() ?? 0;
  // Removed under it (a runtime-directory cleanup): the broker lives on but takes no connection.
  unlinkSync(join(env.home, "broker.sock"));
  try {
    const status = await env.run(["status"]);
    expect(status.json).toMatchObject({ ok: true, service: { state: "unresponsive" } });
    const disconnect = await env.run(["disconnect"]);
    expect(disconnect.json).toMatchObject({
      ok: false,
      code: "browser_disconnected",
      context: { brokerPid: pid },
      remediation: { code: "restart_unresponsive_broker" },
    });
    expect(isPidAlive(pid)).toBe(true);
  } finally {
    process.kill(pid, "SIGTERM");
    await waitFor(() => !alive(pid), 15_000, "the broker to stop");
  }
});
