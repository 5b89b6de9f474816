import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { processIdentity } from "../../src/shared/process-identity.ts";
import { browsersUnder, killAndWait, envPool, processesFor, waitFor, type BpEnv } from "../support/bp.ts";
import { startFakeCdp } from "../support/fake-cdp.ts";
import { startFixtureServer } from "../support/fixture-server.ts";
import { requireChromium } from "../support/chromium.ts";

requireChromium();
const site = startFixtureServer();
const { newEnv, cleanupAll } = envPool();
function locatorOf(env: BpEnv): { token: string; endpoint: string } {
  return JSON.parse(readFileSync(join(env.home, "broker-locator.json"), "utf8")) as { token: string; endpoint: string };
}

/** One request line to the broker socket, as a hand-written client would send it. */
function rawRequest(endpoint: string, body: Record<string, unknown>): Promise<string> {
  return new Promise<string>((resolve) => {
    let buf = "";
    void Bun.connect({
      unix: endpoint,
      socket: {
        open(s) {
          s.write(`${JSON.stringify(body)}\n`);
        },
        data(_s, d) {
          buf += d.toString();
        },
        close() {
          resolve(buf);
        },
      },
    });
  });
}

afterAll(async () => {
  await cleanupAll();
  site.stop();
});

describe("one browser connection, shared", () => {
  test("ten concurrent connects make exactly one WebSocket upgrade; a drop is not retried by a timer", async () => {
    const fake = startFakeCdp({ upgradeDelayMs: 300 });
    const env = newEnv({ HOME: fake.home });
    try {
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => env.run(["connect"], { key: `k-${i}` })));
      for (const r of results) expect(r.json).toMatchObject({ ok: true, browser: { generation: 1 } });
      expect(fake.upgrades()).toBe(1);
      expect(processesFor(env.home, "broker")).toHaveLength(1);

      fake.dropAll();
      await waitFor(
        async () => (await env.run(["tabs"], { key: "k-0" })).json.code === "browser_disconnected",
        5000,
        "disconnect noticed",
      );
      await Bun.sleep(1500);
      expect(fake.upgrades()).toBe(1);

      const again = await env.run(["connect"], { key: "k-0" });
      expect(again.json).toMatchObject({ ok: true, browser: { generation: 2 } });
      expect(again.json).not.toHaveProperty("reused");
      expect(fake.upgrades()).toBe(2);
    } finally {
      await env.stop();
      fake.stop();
    }
  });
});

describe("launch", () => {
  test("a missing executable says what to install, with a stable code", async () => {
    const env = newEnv();
    const r = await env.run(["launch", "--executable", "/nonexistent/chromium"]);
    expect(r.json).toMatchObject({
      ok: false,
      code: "browser_not_found",
      context: { field: "executable" },
      remediation: { code: "select_supported_browser" },
    });
    expect(String((r.json.remediation as { message: string }).message)).toMatch(/install/i);
  });
});

describe("remote CDP endpoint", () => {
  test("connect --cdp-url with headers from stdin; secrets never echoed; page sockets and http refused", async () => {
    const fake = startFakeCdp({ requireHeader: ["authorization", "Bearer s3cret-header"] });
    const env = newEnv();
    try {
      const denied = await env.run(["connect", "--cdp-url", fake.url]);
      // The service's 401 is a refusal of the credentials, not a missing browser (and not retryable).
      expect(denied.json).toMatchObject({
        ok: false,
        code: "browser_not_authorized",
        retryable: false,
        context: { field: "cdpUrl", status: 401 },
      });
      const r = await env.run(["connect", "--cdp-url", fake.url], {
        stdin: JSON.stringify({ authorization: "Bearer s3cret-header" }),
      });
      expect(r.json).toMatchObject({
        ok: true,
        browser: { source: "remote", product: "Remote browser", generation: 1 },
      });
      expect(r.json).not.toHaveProperty("reused");
      const status = await env.run(["status"]);
      expect(status.json.browser).toMatchObject({ source: "remote" });
      const everything = [
        denied.stdout,
        r.stdout,
        status.stdout,
        (await env.run(["commands"])).stdout,
        readFileSync(join(env.home, "broker.log"), "utf8"),
      ].join("\n");
      expect(everything).not.toContain("s3cret-header");
      expect(everything).not.toContain("secret-query-token");
      for (const bad of ["http://127.0.0.1:9222/json/version", "ws://127.0.0.1:9222/devtools/page/ABC", "not a url"]) {
        const b = await env.run(["connect", "--cdp-url", bad], { key: "other-agent" });
        expect(b.json).toMatchObject({ ok: false, code: "invalid_argument", context: { field: "cdpUrl" } });
      }
      const badHeaders = await env.run(["connect", "--cdp-url", fake.url], { stdin: "[1,2]", key: "other-agent" });
      expect(badHeaders.json).toMatchObject({ ok: false, code: "invalid_argument", context: { field: "headers" } });
    } finally {
      await env.stop();
      fake.stop();
    }
  });
});

describe("browser loss and reconnect", () => {
  test("a crashed browser gives browser_disconnected; after reconnect old tab ids do not resolve", async () => {
    const env = newEnv();
    expect((await env.run(["launch", "--headless"])).json.ok).toBe(true);
    const opened = await env.run(["open", `${site.a}/`, "--new"]);
    expect(opened.json).toMatchObject({ ok: true, tab: "t1" });
    const [chromium] = browsersUnder(env.home);
    await killAndWait(chromium ?? 0, "SIGKILL");
    await waitFor(
      async () => (await env.run(["eval", "1"])).json.code === "browser_disconnected",
      10_000,
      "loss noticed",
    );
    const status = await env.run(["status"]);
    expect(status.json.browser).toEqual({ state: "disconnected" });
    const relaunch = await env.run(["launch", "--headless"]);
    expect(relaunch.json).toMatchObject({ ok: true, browser: { generation: 2 } });
    const stale = await env.run(["tab", "t1"]);
    expect(stale.json).toMatchObject({ ok: false, code: "tab_not_found", context: { reason: "browser_reconnected" } });
    const fresh = await env.run(["open", `${site.a}/second`, "--new"]);
    expect(fresh.json).toMatchObject({ ok: true, tab: "t2" });
  });

  test("an agent whose lease expires loses its managed tabs; others keep theirs", async () => {
    const env = newEnv({ BROWSER_PILOT_LEASE_MS: "2000" });
    expect((await env.run(["launch", "--headless"], { key: "keeper" })).json.ok).toBe(true);
    expect((await env.run(["open", `${site.a}/`, "--new"], { key: "sleeper" })).json.ok).toBe(true);
    const gone = await waitFor(
      async () => {
        const r = await env.run(["tabs"], { key: "keeper" });
        return (r.json.tabs as unknown[]).length === 0 ? r : undefined;
      },
      10_000,
      "expired tab closed",
    );
    expect(gone?.json.ok).toBe(true);
  });

  test("a command longer than the lease keeps its agent and tab; the lease runs from its end", async () => {
    const env = newEnv({ BROWSER_PILOT_LEASE_MS: "2000" });
    expect((await env.run(["launch", "--headless"], { key: "keeper" })).json.ok).toBe(true);
    expect((await env.run(["open", `${site.a}/`, "--new"], { key: "sleeper" })).json.ok).toBe(true);
    const r = await env.run(["eval", "new Promise((r) => setTimeout(() => r('done'), 3500))", "--timeout", "30000"], {
      key: "sleeper",
    });
    expect(r.json).toMatchObject({ ok: true, value: "done" });
    const gone = await waitFor(
      async () => ((await env.run(["tabs"], { key: "keeper" })).json.tabs as unknown[]).length === 0,
      15_000,
      "expired tab closed",
    );
    expect(gone).toBe(true);
  });

  test("after a lease expires, that agent's old refs report expired", async () => {
    const env = newEnv({ BROWSER_PILOT_LEASE_MS: "2000" });
    expect((await env.run(["launch", "--headless"], { key: "keeper" })).json.ok).toBe(true);
    const opened = await env.run(["open", `${site.a}/`, "--new"], { key: "keeper" });
    await env.run(["tab", "release"], { key: "keeper" });
    const shared = ((await env.run(["tabs"], { key: "sleeper" })).json.tabs as { id: string; title: string }[]).find(
      (t) => t.title === opened.json.title,
    );
    await env.run(["tab", shared?.id ?? ""], { key: "sleeper" });
    expect((await env.run(["snapshot"], { key: "sleeper" })).json.ok).toBe(true);
    // The keeper stays active while the sleeper's lease runs out and releases the tab.
    await waitFor(
      async () =>
        ((await env.run(["tabs"], { key: "keeper" })).json.tabs as { control: string }[]).every(
          (t) => t.control === "available",
        ),
      10_000,
      "lease expiry",
    );
    const again = ((await env.run(["tabs"], { key: "sleeper" })).json.tabs as { id: string; title: string }[]).find(
      (t) => t.title === opened.json.title,
    );
    expect(again?.id).not.toBe(shared?.id);
    await env.run(["tab", again?.id ?? ""], { key: "sleeper" });
    const old = await env.run(["click", "1"], { key: "sleeper" });
    expect(old.json).toMatchObject({ ok: false, code: "stale_ref", context: { reason: "expired" } });
  });
});

describe("the broker is never replaced", () => {
  test("a live broker that does not answer is reported with restart_unresponsive_broker", async () => {
    const env = newEnv();
    const { mkdirSync, writeFileSync } = await import("node:fs");
    mkdirSync(env.home, { recursive: true, mode: 0o700 });
    const socket = join(env.home, "broker.sock");
    // A real process (this test) holding a real socket that accepts and never replies.
    const listener = Bun.listen({ unix: socket, socket: { data() {} } });
    try {
      const locator = {
        schemaVersion: 1,
        pid: process.pid,
        processIdentity: processIdentity(process.pid),
        endpoint: socket,
        startedAt: new Date(Date.now() - 60_000).toISOString(),
        version: "0.0.1",
        protocol: { min: 1, max: 1 },
        executable: { version: "0.0.1", path: "/nonexistent", identity: "executable:0" },
        token: "t",
      };
      writeFileSync(join(env.home, "broker-locator.json"), JSON.stringify(locator), { mode: 0o600 });
      const r = await env.run(["--timeout", "300", "tabs"]);
      expect(r.json).toMatchObject({
        ok: false,
        code: "browser_disconnected",
        remediation: { code: "restart_unresponsive_broker" },
      });
      const s = await env.run(["status"]);
      expect((s.json.service as { state: string }).state).toBe("unresponsive");
      // disconnect cannot release anything there, and says so rather than "no broker".
      const d = await env.run(["disconnect"]);
      expect(d.json).toMatchObject({
        ok: false,
        code: "browser_disconnected",
        remediation: { code: "restart_unresponsive_broker" },
      });
      expect(processesFor(env.home, "broker")).toHaveLength(0);
    } finally {
      listener.stop(true);
      rmSync(socket, { force: true });
      // The fake locator names this test process; never let cleanup signal it.
      rmSync(join(env.home, "broker-locator.json"), { force: true });
    }
  });

  test("a broker of another protocol answers protocol_incompatible and keeps running", async () => {
    const env = newEnv();
    expect((await env.run(["tabs"])).json.code).toBe("browser_disconnected");
    const pid = env.brokerPid();
    const loc = locatorOf(env);
    const reply = await rawRequest(loc.endpoint, {
      op: "call",
      token: loc.token,
      protocol: 99,
      clientKey: "abc",
      command: "tabs",
      args: {},
      invocation: "x",
      timeoutMs: 1000,
      tabAccess: "all",
    });
    expect(JSON.parse(reply)).toMatchObject({ ok: false, code: "protocol_incompatible" });
    expect(env.brokerPid()).toBe(pid);
    expect((await env.run(["status"])).json.service).toMatchObject({ state: "running" });
  });

  test("a request without the locator token is refused", async () => {
    const env = newEnv();
    await env.run(["tabs"]);
    const loc = locatorOf(env);
    const reply = await rawRequest(loc.endpoint, {
      op: "call",
      token: "wrong",
      protocol: 1,
      clientKey: "abc",
      command: "tabs",
      args: {},
    });
    expect(JSON.parse(reply)).toMatchObject({ ok: false, code: "capability_denied" });
  });

  test("state files are private: 0700 directory, 0600 locator and socket", async () => {
    const env = newEnv();
    await env.run(["tabs"]);
    const { statSync } = await import("node:fs");
    expect(statSync(env.home).mode & 0o777).toBe(0o700);
    expect(statSync(join(env.home, "broker-locator.json")).mode & 0o777).toBe(0o600);
    expect(statSync(join(env.home, "broker.sock")).mode & 0o777).toBe(0o600);
  });

  test("a home too long for a Unix socket path falls back to a short private runtime dir", async () => {
    const env = newEnv();
    const deep = join(env.home, "x".repeat(60), "y".repeat(60));
    const r = await env.run(["tabs"], { env: { BROWSER_PILOT_HOME: deep } });
    expect(r.json.code).toBe("browser_disconnected");
    const loc = JSON.parse(readFileSync(join(deep, "broker-locator.json"), "utf8")) as {
      endpoint: string;
      pid: number;
    };
    expect(loc.endpoint.length).toBeLessThan(100);
    expect(loc.endpoint.startsWith(deep)).toBe(false);
    expect(statSync(dirname(loc.endpoint)).mode & 0o777).toBe(0o700);
    await killAndWait(loc.pid);
  });

  test("a state directory that is a symlink is refused", async () => {
    const env = newEnv();
    const real = `${env.home}-real`;
    mkdirSync(real, { recursive: true, mode: 0o700 });
    symlinkSync(real, env.home);
    const r = await env.run(["tabs"]);
    expect(r.json).toMatchObject({
      ok: false,
      code: "state_directory_unusable",
      remediation: { code: "fix_state_directory" },
    });
    expect(String(r.json.error)).toContain("not a plain directory");
    expect(existsSync(join(real, "broker-locator.json"))).toBe(false);
  });

  test("an idle broker with no agents and no browser exits by itself", async () => {
    const env = newEnv({ BROWSER_PILOT_IDLE_MS: "800" });
    await env.run(["tabs"]);
    const pid = env.brokerPid();
    expect(pid).toBeDefined();
    await waitFor(() => processesFor(env.home, "broker").length === 0, 10_000, "idle exit");
  });
});
