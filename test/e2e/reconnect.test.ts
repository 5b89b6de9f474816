/**
 * The browser goes away and comes back. Commands in flight end with clear codes, nothing
 * reconnects by itself, the next explicit connect or launch is a new generation, and every
 * address of the old one (tab ids, refs, profile ids) fails with a code instead of reaching
 * something else.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { BP, browsersUnder, killAndWait, envPool, waitFor, type BpEnv } from "../support/bp.ts";
import { requireChromium } from "../support/chromium.ts";
import { startFakeCdp } from "../support/fake-cdp.ts";
import { startFixtureServer } from "../support/fixture-server.ts";
import { readListing } from "../../src/protocol/elements.ts";

requireChromium();
const site = startFixtureServer();
const { newEnv, cleanupAll } = envPool();

afterAll(async () => {
  await cleanupAll();
  site.stop();
});

type Json = Record<string, unknown> & { ok: boolean; code?: string; context?: Record<string, unknown> };

function spawnBp(env: BpEnv, args: string[], key: string): Promise<Json> {
  const proc = Bun.spawn([BP, ...args], {
    env: { ...env.env, BROWSER_PILOT_CLIENT_KEY: key },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "ignore",
  });
  return (async () => {
    const [out] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    return readListing(JSON.parse(out.trim().split("\n").at(-1) ?? "{}") as object) as Json;
  })();
}

async function dispatched(env: BpEnv, key: string): Promise<boolean> {
  const r = await env.run(["commands", "--status", "dispatched"], { key });
  return ((r.json.commands as unknown[] | undefined)?.length ?? 0) >= 1;
}

const button = `${site.a}/echo?html=${encodeURIComponent("<title>Work</title><button>Go</button>")}`;

describe("the browser killed and started again", () => {
  test("in-flight commands end clearly; the new generation refuses every old tab id, ref and profile id", async () => {
    const env = newEnv();
    expect((await env.run(["launch", "--headless"], { key: "agent-a" })).json).toMatchObject({
      ok: true,
      browser: { generation: 1 },
    });
    expect((await env.run(["open", button, "--new"], { key: "agent-a" })).json).toMatchObject({ ok: true, tab: "t1" });
    expect((await env.run(["snapshot"], { key: "agent-a" })).stdout).toContain("Go");
    const [old] = (await env.run(["profiles"], { key: "agent-a" })).json.profiles as { id: string }[];
    expect((await env.run(["profile", old?.id ?? ""], { key: "agent-a" })).json.ok).toBe(true);

    expect((await env.run(["open", `${site.a}/`, "--new"], { key: "reader" })).json.ok).toBe(true);
    expect((await env.run(["open", `${site.a}/`, "--new"], { key: "writer" })).json.ok).toBe(true);
    expect((await env.run(["open", `${site.a}/`, "--new"], { key: "shooter" })).json.ok).toBe(true);
    const read = spawnBp(env, ["wait", "--text", "never appears", "--timeout", "30000"], "reader");
    const write = spawnBp(env, ["eval", "new Promise(() => {})", "--timeout", "30000"], "writer");
    // A page whose main thread is stuck holds a screenshot in flight: when the browser dies
    // its tab session goes first, and the answer must still be the browser, not the tab.
    // The loop starts in the task right after the eval's reply: a warm CLI call and a small
    // snapshot together take well under 50 ms, so a later start let the snapshot finish first.
    expect(
      (
        await env.run(["eval", "setTimeout(() => { const t = Date.now(); while (Date.now() - t < 30000); }, 0); 1"], {
          key: "shooter",
        })
      ).json.ok,
    ).toBe(true);
    const shots = [["snapshot"], ["read"], ["screenshot"]].map((c) =>
      spawnBp(env, [...c, "--timeout", "30000"], "shooter"),
    );
    await waitFor(
      async () =>
        (await dispatched(env, "reader")) && (await dispatched(env, "writer")) && (await dispatched(env, "shooter")),
      10_000,
      "commands in flight",
    );

    for (const pid of browsersUnder(env.home)) await killAndWait(pid, "SIGKILL");
    expect(await read).toMatchObject({ ok: false, code: "browser_disconnected", retryable: true });
    expect(await write).toMatchObject({ ok: false, code: "unknown_outcome" });
    for (const shot of shots)
      expect(await shot).toMatchObject({ ok: false, code: "browser_disconnected", retryable: true });
    expect((await env.run(["status"], { key: "agent-a" })).json).toMatchObject({
      browser: { state: "disconnected" },
      recovery: { required: true },
    });

    const relaunched = (await env.run(["launch", "--headless"], { key: "agent-a" })).json;
    expect(relaunched).toMatchObject({ ok: true, browser: { generation: 2 } });
    expect(relaunched).not.toHaveProperty("reused");
    expect((await env.run(["tab", "t1"], { key: "agent-a" })).json).toMatchObject({
      ok: false,
      code: "tab_not_found",
      context: { reason: "browser_reconnected" },
    });
    // The old selection (and with it every ref observed in it) is gone, said with a code.
    expect((await env.run(["click", "1"], { key: "agent-a" })).json).toMatchObject({
      ok: false,
      code: "no_selected_tab",
    });
    expect(
      (await env.run(["open", button, "--new", "--profile", old?.id ?? ""], { key: "agent-a" })).json,
    ).toMatchObject({
      ok: false,
      code: "profile_context_stale",
      context: { reason: "browser_reconnected" },
    });
    // Its own earlier choice is not quietly moved to whatever profile exists now.
    expect((await env.run(["open", button, "--new"], { key: "agent-a" })).json).toMatchObject({
      ok: false,
      code: "profile_context_stale",
    });
    const [fresh] = (await env.run(["profiles"], { key: "agent-a" })).json.profiles as { id: string }[];
    expect(fresh?.id).not.toBe(old?.id);
    expect((await env.run(["profile", fresh?.id ?? ""], { key: "agent-a" })).json.ok).toBe(true);
    expect((await env.run(["open", button, "--new"], { key: "agent-a" })).json).toMatchObject({ ok: true, tab: "t2" });
  });
});

describe("no reconnect by itself; explicit reconnects share one attempt", () => {
  test("after a drop, passive and failing commands open no socket; eight concurrent connects make one", async () => {
    const fake = startFakeCdp({ upgradeDelayMs: 300 });
    const env = newEnv({ HOME: fake.home });
    try {
      expect((await env.run(["connect"], { key: "k-0" })).json).toMatchObject({ ok: true, browser: { generation: 1 } });
      expect(fake.upgrades()).toBe(1);
      fake.dropAll();
      await waitFor(
        async () => (await env.run(["tabs"], { key: "k-0" })).json.code === "browser_disconnected",
        5000,
        "loss noticed",
      );
      expect((await env.run(["status"], { key: "k-0" })).json).toMatchObject({ browser: { state: "disconnected" } });
      expect((await env.run(["open", `${site.a}/`, "--new"], { key: "k-1" })).json.code).toBe("browser_disconnected");
      expect(fake.upgrades()).toBe(1);
      const again = await Promise.all(Array.from({ length: 8 }, (_, i) => env.run(["connect"], { key: `k-${i}` })));
      for (const r of again) expect(r.json).toMatchObject({ ok: true, browser: { generation: 2 } });
      expect(again.filter((r) => r.json.reused === undefined)).toHaveLength(1);
      expect(fake.upgrades()).toBe(2);
    } finally {
      await env.stop();
      fake.stop();
    }
  });
});
