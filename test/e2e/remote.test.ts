/**
 * Remote browsers through a loopback "service" in front of real Chromium
 * (test/support/remote-front.ts): handshake refusals by HTTP status, a session the service
 * ends, the one socket that is the session, --reconnect, the whole URL as the endpoint's
 * name, file: refused there, and the token never in any output, record or log. Downloads through
 * the same service: remote-downloads.test.ts.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { alive, envPool, waitFor, type BpEnv, type BpResult } from "../support/bp.ts";
import { requireChromium } from "../support/chromium.ts";
import { startFixtureServer } from "../support/fixture-server.ts";
import { startRemoteFront } from "../support/remote-front.ts";
import { openUserTab, startUserBrowser, type UserBrowser } from "../support/user-browser.ts";

requireChromium();
const site = startFixtureServer();
const { newEnv, cleanupAll } = envPool();
const browsers: UserBrowser[] = [];

afterAll(async () => {
  await cleanupAll();
  for (const b of browsers) await b.stop();
  site.stop();
});

const TOKEN = "tok-9f8e7d6c5b4a";

async function front(token = TOKEN) {
  const user = await startUserBrowser();
  browsers.push(user);
  return startRemoteFront(user.port, new URL(user.wsEndpoint).pathname, token);
}

/** Every output an agent or a person could read: replies, stderr, the broker's log, files under the home. */
function leaks(outputs: BpResult[], env: BpEnv, secret: string): string[] {
  const found: string[] = [];
  for (const r of outputs)
    if (r.stdout.includes(secret) || r.stderr.includes(secret)) found.push(r.stdout.slice(0, 300));
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      else if (st.isFile() && st.size < 5_000_000 && readFileSync(p).includes(secret)) found.push(p);
    }
  };
  walk(env.home);
  return found;
}

describe("remote handshake outcomes", () => {
  test("401/403, 404, 429, 5xx, a Playwright path and a silent service each get their own code", async () => {
    const svc = await front();
    const env = newEnv();
    const outs: BpResult[] = [];
    const connect = async (url: string, extra: string[] = []) => {
      const r = await env.run(["connect", "--cdp-url", url, ...extra]);
      outs.push(r);
      return r.json;
    };
    try {
      expect(await connect(svc.url.replace(TOKEN, "wrong-token-123"))).toMatchObject({
        ok: false,
        code: "browser_not_authorized",
        retryable: false,
        context: { status: 401 },
      });
      svc.refuse(403);
      expect(await connect(svc.url)).toMatchObject({
        code: "browser_not_authorized",
        retryable: false,
        context: { status: 403 },
      });
      svc.refuse(404);
      expect(await connect(svc.url)).toMatchObject({
        code: "browser_not_found",
        retryable: false,
        context: { status: 404, reason: "remote_session_gone" },
      });
      svc.refuse(429, "7");
      const busy = await connect(svc.url);
      // The service's Retry-After, read from the refused upgrade itself (one handshake, no probe).
      const before = svc.upgrades();
      expect(busy).toMatchObject({
        code: "browser_busy",
        retryable: true,
        context: { status: 429, retryAfterMs: 7000 },
        hint: expect.stringContaining("retry in 7 s"),
      });
      svc.refuse(503, new Date(Date.now() + 30_000).toUTCString());
      const unavailable = await connect(svc.url);
      expect(unavailable).toMatchObject({ code: "browser_busy", retryable: true, context: { status: 503 } });
      const after = (unavailable.context as { retryAfterMs: number }).retryAfterMs;
      expect(after).toBeGreaterThan(15_000);
      expect(after).toBeLessThanOrEqual(30_000);
      expect(svc.upgrades()).toBe(before + 1);
      svc.refuse(429, "soon");
      expect((await connect(svc.url)).context).toEqual({ field: "cdpUrl", status: 429 });
      svc.refuse(502);
      expect(await connect(svc.url)).toMatchObject({
        code: "browser_not_found",
        retryable: true,
        context: { status: 502 },
      });
      svc.refuse("hang");
      const t0 = Date.now();
      expect(await connect(svc.url, ["--connect-timeout", "1500"])).toMatchObject({
        code: "browser_not_found",
        retryable: true,
        context: { reason: "handshake_timeout", timeoutMs: 1500 },
      });
      expect(Date.now() - t0).toBeLessThan(15_000);
      const upgrades = svc.upgrades();
      expect(await connect(`${svc.url.replace(/\/devtools\/browser\/[^?]+/, "/chromium/playwright")}`)).toMatchObject({
        code: "protocol_incompatible",
      });
      // Refused before any socket: a Playwright server would take the handshake and then fail.
      expect(svc.upgrades()).toBe(upgrades);
      // Every message names the endpoint with its token as ***.
      for (const o of outs) expect(o.stdout).toContain("token=***");
      expect(leaks(outs, env, TOKEN)).toEqual([]);
    } finally {
      svc.stop();
    }
  }, 90_000);
});

describe("a session the service ends", () => {
  for (const how of ["close_frame", "drop"] as const) {
    test(`(${how}) says remote_session_ended, names the endpoint without its token, opens no new socket to clean up; --reconnect comes back`, async () => {
      const svc = await front();
      const env = newEnv();
      const outs: BpResult[] = [];
      const run = async (args: string[], opts: { key?: string; stdin?: string } = {}) => {
        const r = await env.run(args, { key: "agent-a", ...opts });
        outs.push(r);
        return r;
      };
      try {
        expect((await run(["connect", "--cdp-url", svc.url])).json).toMatchObject({
          ok: true,
          browser: { source: "remote", generation: 1 },
        });
        expect((await run(["open", `${site.a}/`, "--new"])).json.ok).toBe(true);
        expect((await run(["snapshot"])).json.ok).toBe(true);
        const before = svc.upgrades();
        // A command in flight when the service ends the session says so too.
        const inFlight = env.run(["wait", "--text", "never appears", "--timeout", "30000"], { key: "agent-a" });
        await waitFor(
          async () =>
            ((
              (await env.run(["commands", "--status", "dispatched"], { key: "agent-a" })).json.commands as
                | unknown[]
                | undefined
            )?.length ?? 0) > 0,
          15_000,
          "the wait to run",
        );
        svc.kill(how);
        const waited = await inFlight;
        outs.push(waited);
        expect(waited.json).toMatchObject({
          ok: false,
          code: "browser_disconnected",
          context: { reason: "remote_session_ended" },
          remediation: { code: "reconnect_remote" },
        });
        const lost = await waitFor(
          async () => {
            const r = await run(["snapshot"]);
            return r.json.code === "browser_disconnected" ? r : undefined;
          },
          15_000,
          "the loss to show",
        );
        if (!lost) throw new Error("waitFor returned nothing");
        expect(lost.json).toMatchObject({
          retryable: true,
          context: { reason: "remote_session_ended" },
          remediation: { code: "reconnect_remote" },
        });
        const endpoint = String(lost.json.context?.endpoint);
        expect(endpoint).toContain("token=***");
        expect(endpoint).toContain(new URL(svc.url).pathname);
        const status = await run(["status"]);
        expect(status.json.recovery).toMatchObject({
          required: true,
          reason: "remote_session_ended",
          action: "bp connect --reconnect",
          endpoint,
        });
        // The way back is that endpoint, not a local browser list.
        expect(status.json.browsers).toBeUndefined();
        const records = await run(["commands"]);
        for (const c of records.json.commands as { id: string }[])
          outs.push(await env.run(["command", c.id], { key: "agent-a" }));

        const second = await run(["connect", "--reconnect"], { key: "agent-b" });
        expect(second.json).toMatchObject({ ok: true, browser: { source: "remote", generation: 2 } });
        expect(svc.upgrades()).toBe(before + 1);
        svc.kill(how);
        await waitFor(
          async () => (await run(["snapshot"], { key: "agent-b" })).json.code === "browser_disconnected",
          15_000,
          "the second loss to show",
        );
        // Both agents let go after the loss: nothing connects again to close what the service ended.
        expect((await run(["disconnect"], { key: "agent-b" })).json.ok).toBe(true);
        expect((await run(["disconnect"])).json).toMatchObject({ ok: true, brokerStopped: true });
        await waitFor(
          () => env.brokerPid() === undefined || !alive(env.brokerPid() ?? 0),
          20_000,
          "the broker to stop",
        );
        await Bun.sleep(300);
        expect(svc.upgrades()).toBe(before + 1);
        expect(leaks(outs, env, TOKEN)).toEqual([]);
      } finally {
        svc.stop();
      }
    }, 120_000);
  }

  test("--reconnect without a remote endpoint, and without the headers it was given, says what is missing", async () => {
    const svc = await front();
    const env = newEnv();
    try {
      expect((await env.run(["connect", "--reconnect"])).json).toMatchObject({
        ok: false,
        code: "invalid_argument",
        context: { field: "reconnect" },
      });
      expect((await env.run(["connect", "--reconnect", "--cdp-url", svc.url])).json).toMatchObject({
        code: "invalid_argument",
        context: { field: "reconnect" },
      });
      const headers = JSON.stringify({ Authorization: "Bearer hdr-secret-4242" });
      expect((await env.run(["connect", "--cdp-url", svc.url], { stdin: headers })).json.ok).toBe(true);
      svc.kill("drop");
      await waitFor(async () => (await env.run(["status"])).json.recovery !== undefined, 15_000, "the loss to show");
      const missing = await env.run(["connect", "--reconnect"]);
      expect(missing.json).toMatchObject({ ok: false, code: "invalid_argument", context: { field: "headers" } });
      expect(missing.stdout).toContain("stdin");
      expect((await env.run(["connect", "--reconnect"], { stdin: headers })).json).toMatchObject({
        ok: true,
        browser: { generation: 2 },
      });
      expect(leaks([missing], env, "hdr-secret-4242")).toEqual([]);
    } finally {
      svc.stop();
    }
  }, 90_000);
});

describe("the remote endpoint", () => {
  test("the whole URL names it: another query is another endpoint, the same one is reused", async () => {
    const svc = await front();
    const env = newEnv();
    try {
      const first = await env.run(["connect", "--cdp-url", `${svc.url}&launch=a`]);
      expect(first.json.ok).toBe(true);
      expect((await env.run(["connect", "--cdp-url", `${svc.url}&launch=a`], { key: "other" })).json).toMatchObject({
        ok: true,
        reused: true,
      });
      expect((await env.run(["connect", "--cdp-url", `${svc.url}&launch=b`], { key: "other" })).json).toMatchObject({
        ok: false,
        code: "broker_in_use",
      });
      // Another token is another endpoint too, and the id (a digest) does not show either.
      const other = await env.run(["connect", "--cdp-url", svc.url.replace(TOKEN, "another-token-77")], {
        key: "other",
      });
      expect(other.json.code).toBe("broker_in_use");
      expect(first.stdout).not.toContain(TOKEN);
    } finally {
      svc.stop();
    }
  }, 60_000);

  test("file: URLs are refused on a remote browser, even where the broker allows them locally (downloads: remote-downloads.test.ts)", async () => {
    const svc = await front();
    const env = newEnv({ BROWSER_PILOT_ALLOW_FILE_URLS: "1" });
    try {
      expect((await env.run(["connect", "--cdp-url", svc.url])).json.ok).toBe(true);
      const r = await env.run(["open", "file:///etc/hostname", "--new"]);
      expect(r.json).toMatchObject({
        ok: false,
        code: "invalid_argument",
        context: { field: "url", reason: "remote_browser" },
      });
      expect((await env.run(["open", `${site.a}/`, "--new"])).json.ok).toBe(true);
    } finally {
      svc.stop();
    }
  }, 90_000);

  test("two bp installs on one remote browser: a tab one of them drives is busy for the other; a tab nobody drives is not", async () => {
    const user = await startUserBrowser();
    browsers.push(user);
    const one = newEnv();
    const two = newEnv();
    const page = (title: string) =>
      `${site.a}/echo?html=${encodeURIComponent(`<title>${title}</title><p>${title}</p>`)}`;
    expect((await one.run(["connect", "--cdp-url", user.wsEndpoint], { key: "agent-one" })).json).toMatchObject({
      ok: true,
      browser: { source: "remote" },
    });
    expect((await two.run(["connect", "--cdp-url", user.wsEndpoint], { key: "agent-two" })).json).toMatchObject({
      ok: true,
      browser: { source: "remote" },
    });
    expect((await one.run(["open", page("Mine"), "--new"], { key: "agent-one" })).json.ok).toBe(true);
    expect((await one.run(["snapshot"], { key: "agent-one" })).json.ok).toBe(true);
    await openUserTab(user.port, page("Free"));
    type Tab = { id: string; title: string; control: string };
    let tabs: Tab[] = [];
    await waitFor(
      async () => {
        tabs = (await two.run(["tabs"], { key: "agent-two" })).json.tabs as Tab[];
        return ["Mine", "Free"].every((t) => tabs.some((x) => x.title === t));
      },
      10_000,
      "both tabs listed by the other install",
    );
    const mine = tabs.find((t) => t.title === "Mine");
    expect(mine?.control).toBe("busy");
    expect(tabs.find((t) => t.title === "Free")?.control).toBe("available");
    // Without the browser's attached flag the other install took the tab and typed into it.
    expect((await two.run(["tab", mine?.id ?? ""], { key: "agent-two" })).json).toMatchObject({
      ok: false,
      code: "target_busy",
      retryable: true,
      context: { reason: "attached_elsewhere" },
    });
    expect((await two.run(["tab", tabs.find((t) => t.title === "Free")?.id ?? ""], { key: "agent-two" })).json.ok).toBe(
      true,
    );
    expect((await two.run(["eval", "document.title"], { key: "agent-two" })).json).toMatchObject({
      ok: true,
      value: "Free",
    });
    // The first install still drives its tab.
    expect((await one.run(["eval", "document.title"], { key: "agent-one" })).json).toMatchObject({
      ok: true,
      value: "Mine",
    });
  }, 90_000);
});
