/**
 * Cookies, the request journal, network rules and HTTP auth, per agent key, against real
 * Chromium and the fixture server.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readPortFile } from "../../src/discovery/index.ts";
import { makeBpEnv, waitFor } from "../support/bp.ts";
import { requireChromium } from "../support/chromium.ts";
import { AUTH_PASSWORD, AUTH_USER, startFixtureServer } from "../support/fixture-server.ts";
import { openUserTab } from "../support/user-browser.ts";

requireChromium();

const site = startFixtureServer();
const out = mkdtempSync(join(tmpdir(), "bp-net-out-"));
const env = makeBpEnv({ BROWSER_PILOT_OUTPUT_DIR: out });
const A = "net-agent-a";
const B = "net-agent-b";

type Req = {
  id: number;
  method: string;
  url: string;
  type: string;
  status?: number;
  error?: string;
  rule?: string;
  tab?: string;
  /** Its duration: present once it finished (its body is whole then). */
  time?: number;
};

beforeAll(async () => {
  expect((await env.run(["launch", "--headless"])).json.ok).toBe(true);
});
afterAll(async () => {
  await env.cleanup();
  site.stop();
  rmSync(out, { recursive: true, force: true });
});

const run = (args: string[], key = A, stdin?: string) =>
  env.run(args, { key, ...(stdin !== undefined ? { stdin } : {}) });
const pageText = async (key = A) =>
  String((await run(["eval", "document.getElementById('out').textContent"], key)).json.value);
/** Clicks the app's Load button (re-fetches /api/user) and waits for the page to show a result. */
async function reloadApp(key = A): Promise<string> {
  // An earlier fetch still in flight (the page's own first load) would write over ours.
  await waitFor(
    async () => (await run(["eval", "inflight === 0"], key)).json.value === true,
    10_000,
    "the app's earlier fetches",
  );
  await run(["eval", "document.getElementById('out').textContent = 'loading'; load(); true"], key);
  const t = await waitFor(
    async () => {
      const text = await pageText(key);
      return text !== "loading" ? text : undefined;
    },
    10_000,
    "the app's fetch",
  );
  return t ?? "";
}
async function requests(key: string, extra: string[] = []): Promise<Req[]> {
  const r = await run(["net", "--all", "--limit", "1000", ...extra], key);
  expect(r.json.ok).toBe(true);
  return r.json.requests as Req[];
}

describe("bp cookies", () => {
  test("server-set cookies with HttpOnly and SameSite; values only with --values", async () => {
    expect((await run(["open", `${site.a}/cookies`, "--new"])).json.ok).toBe(true);
    const r = await run(["cookies"]);
    expect(r.json.ok).toBe(true);
    const list = r.json.cookies as Record<string, unknown>[];
    const session = list.find((c) => c.name === "session");
    const theme = list.find((c) => c.name === "theme");
    expect(session).toMatchObject({ httpOnly: true, sameSite: "Strict", path: "/", valueLength: 6 });
    expect(session?.value).toBeUndefined();
    expect(session?.expires).toBeUndefined();
    expect(theme).toMatchObject({ sameSite: "Lax", valueLength: 4 });
    expect(typeof theme?.expires).toBe("string");
    expect(r.stdout).not.toContain("abc123");
    const v = await run(["cookies", "--values"]);
    expect((v.json.cookies as Record<string, unknown>[]).find((c) => c.name === "session")?.value).toBe("abc123");
    // By domain, without a URL: the same cookies; another domain has none of them.
    const byDomain = await run(["cookies", "127.0.0.1"]);
    expect((byDomain.json.cookies as { name: string }[]).map((c) => c.name).sort()).toEqual(["session", "theme"]);
    expect((await run(["cookies", "example.org"])).json).toEqual({ ok: true, cookies: [] });
    expect((await run(["cookies", "not a domain"])).json).toMatchObject({
      ok: false,
      code: "invalid_argument",
      context: { field: "domain" },
    });
    const h = await env.run(["--human", "cookies"], { key: A });
    expect(h.stdout).toContain("HttpOnly");
    // The document's response set both cookies: net show says so (masked unless --values).
    const doc = (await requests(A, ["--url", "*/cookies"])).filter((q) => q.type === "document").at(-1);
    const shown = await run(["net", "show", String(doc?.id)]);
    const setCookie = (shown.json.request as { responseHeaders?: Record<string, string> }).responseHeaders?.[
      "set-cookie"
    ];
    expect(setCookie).toMatch(/^\*\*\* \(\d+ chars\)$/);
    expect(shown.stdout).not.toContain("abc123");
    const open = await run(["net", "show", String(doc?.id), "--values"]);
    const lines = (
      (open.json.request as { responseHeaders?: Record<string, string> }).responseHeaders?.["set-cookie"] ?? ""
    ).split("\n");
    expect(lines).toEqual([
      "session=abc123; HttpOnly; SameSite=Strict; Path=/",
      "theme=dark; SameSite=Lax; Path=/; Max-Age=3600",
    ]);
    expect(h.stdout).not.toContain("abc123");
  });
});

describe("bp net journal", () => {
  test("the page's fetch is journalled; show gives headers and body; --save writes the bytes; cursors page", async () => {
    expect((await run(["open", `${site.a}/app`])).json.ok).toBe(true);
    await waitFor(
      async () => ((await pageText()).startsWith("200:Grace") ? true : undefined),
      10_000,
      "the app's first fetch",
    );
    // The page saw the answer; the journal gets the same events at about the same time.
    const api =
      (await waitFor(
        async () => {
          const found = (await requests(A, ["--type", "fetch"])).filter(
            (q) => q.url.includes("/api/user") && q.status !== undefined,
          );
          return found.length > 0 ? found : undefined;
        },
        10_000,
        "the fetch in the journal",
      )) ?? [];
    expect(api.length).toBeGreaterThanOrEqual(1);
    const first = api.at(-1) as Req;
    // Lean: a GET names no method.
    expect(first).toMatchObject({ type: "fetch", status: 200 });
    expect(first).not.toHaveProperty("method");
    expect((await requests(A, ["--type", "document", "--url", "*/app"])).length).toBeGreaterThanOrEqual(1);
    expect(await requests(A, ["--status", "4xx", "--url", "*/api/user*"])).toEqual([]);
    const show = await run(["net", "show", String(first.id)]);
    expect(show.json.ok).toBe(true);
    expect(JSON.parse(String(show.json.body))).toMatchObject({ name: "Grace" });
    const rq = show.json.request as { requestHeaders: Record<string, string>; responseHeaders: Record<string, string> };
    expect(rq.requestHeaders["X-From-Page"]).toBe("app");
    expect(rq.responseHeaders["x-api"]).toBe("fixture");
    // Lean: not the id asked for, no start time, no "OK" for a 200, no MIME type the Content-Type
    // header already gives, no tab when it is the selected one (as in the list, first.tab).
    expect(rq).toMatchObject({ url: first.url, type: "fetch", status: 200 });
    for (const k of ["id", "startedAt", "statusText", "mimeType", "tab"]) expect(rq).not.toHaveProperty(k);
    expect(first).not.toHaveProperty("tab");
    expect(rq.responseHeaders["Content-Type"] ?? rq.responseHeaders["content-type"]).toStartWith("application/json");
    // Another tab's requests name it: the journal covers all of the agent's tabs.
    expect((await run(["open", `${site.a}/second`, "--new"])).json.ok).toBe(true);
    const before = (await requests(A, ["--url", "*/api/user*"])).at(-1);
    expect(before?.tab).toMatch(/^t\d+$/);
    expect((await run(["net", "show", String(before?.id)])).json.request).toMatchObject({ tab: before?.tab });
    expect((await run(["close"])).json.ok).toBe(true);
    expect((await run(["tab", String(before?.tab)])).json.ok).toBe(true);
    const saved = await run(["net", "show", String(first.id), "--save", "user.json"]);
    expect(saved.json.body).toBeUndefined();
    const file = saved.json as unknown as { file: string; sizeBytes: number; mimeType: string; id?: number };
    // The request id is the agent's own argument: not repeated.
    expect(file.id).toBeUndefined();
    expect(file.file).toBe(join(out, "user.json"));
    expect(file.mimeType).toBe("application/json");
    expect(statSync(file.file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file.file, "utf8"))).toMatchObject({ name: "Grace" });
    expect((await run(["net", "show", "1", "--save", "../escape.json"])).json).toMatchObject({
      ok: false,
      code: "invalid_argument",
      context: { field: "file" },
    });
    expect((await run(["net", "show", "99999"])).json).toMatchObject({
      ok: false,
      code: "invalid_argument",
      context: { field: "id" },
    });
    // Cursor: nothing new after the newest id; one more fetch is exactly what --after shows.
    const head = await run(["net", "--limit", "1"]);
    const cursor = head.json.nextCursor as number;
    // The empty list is the answer; nothing was cut, so no count and no flag.
    expect((await run(["net", "--after", String(cursor)])).json).toEqual({
      ok: true,
      requests: [],
      nextCursor: cursor,
    });
    expect(await reloadApp()).toStartWith("200:Grace");
    const fresh = (await run(["net", "--after", String(cursor)])).json.requests as Req[];
    expect(fresh.map((q) => new URL(q.url).pathname)).toEqual(["/api/user"]);
    // --limit cuts and says so; the journal can be emptied.
    const limited = await run(["net", "--limit", "1"]);
    expect(limited.json).toMatchObject({ truncated: true, total: expect.any(Number) });
    expect((limited.json.requests as Req[]).length).toBe(1);
    // Bare: the selected tab's current document only, and it says so; --all is the whole journal.
    expect((await run(["open", `${site.a}/second`, "--new"])).json.ok).toBe(true);
    const bare = await run(["net"]);
    const covers = bare.json.covers as { tab: string; since: number };
    expect(covers.tab).toMatch(/^t\d+$/);
    const listed = bare.json.requests as Req[];
    expect(listed[0]).toMatchObject({ id: covers.since, type: "document" });
    expect(new URL(listed[0]?.url ?? "").pathname).toBe("/second");
    expect(listed.every((q) => q.id >= covers.since && !q.url.includes("/api/user"))).toBe(true);
    expect((await requests(A)).some((q) => q.url.includes("/api/user"))).toBe(true);
    expect((await run(["close"])).json.ok).toBe(true);
    expect((await run(["tab", String(before?.tab)])).json.ok).toBe(true);
    const cleared = await run(["net", "clear"]);
    expect(cleared.json.cleared as number).toBeGreaterThan(0);
    expect((await run(["net"])).json).toMatchObject({ requests: [] });
    // A cursor from before the clear points into a gap: reported, never silent.
    expect((await run(["net", "--after", "1"])).json).toMatchObject({ gap: true, truncated: true });
  });
});

describe("bp net rules", () => {
  test("mock, header override seen by the server, block, deterministic precedence, and Fetch only while rules exist", async () => {
    expect((await run(["net", "rules"])).json).toEqual({ ok: true, rules: [] });
    const h = await run(["net", "headers", "*/api/user*", "X-Test-Header: hello"]);
    // Lean: the new rule's id and its headers as parsed; its type and pattern are what was sent.
    // Every value given to 'net headers' is masked (any header name may carry a token).
    expect(h.json).toEqual({
      ok: true,
      rule: { id: "r1", headers: { "X-Test-Header": "*** (5 chars)" } },
      intercepting: 1,
    });
    expect(await reloadApp()).toBe("200:Grace:hello");
    const m = await run([
      "net",
      "mock",
      "*/api/user*",
      "--body",
      '{"name":"Mocked"}',
      "--status",
      "203",
      "--header",
      "Content-Type: application/json",
    ]);
    expect(m.json).toEqual({
      ok: true,
      rule: { id: "r2", headers: { "Content-Type": "application/json" } },
      intercepting: 1,
    });
    const listed = (await run(["net", "rules"])).json.rules as Record<string, unknown>[];
    expect(listed.find((r) => r.type === "mock")).toMatchObject({ status: 203, bodySize: 17 });
    // Mock beats headers, whatever order they came in.
    expect(await reloadApp()).toBe("203:Mocked:");
    // The rule's Content-Type replaces the default, not joined to it.
    expect((await run(["eval", "fetch('/api/user').then((r) => r.headers.get('content-type'))"])).json.value).toBe(
      "application/json",
    );
    const mocked = (await requests(A, ["--url", "*/api/user*"])).at(-1);
    expect(mocked?.rule).toBe(`mocked ${String((m.json.rule as { id: string }).id)}`);
    const b = await run(["net", "block", "*/api/*"]);
    expect(b.json.ok).toBe(true);
    // Block beats mock.
    expect(await reloadApp()).toStartWith("failed:");
    const blocked = await waitFor(
      async () => {
        const last = (await requests(A, ["--url", "*/api/user*"])).at(-1);
        return last?.error !== undefined ? last : undefined;
      },
      10_000,
      "the blocked request in the journal",
    );
    expect(blocked).toMatchObject({ error: "blocked" });
    const rules = (await run(["net", "rules"])).json.rules as { id: string; type: string }[];
    expect(rules.map((r) => r.type)).toEqual(["block", "mock", "headers"]);
    expect((await run(["net", "remove", (b.json.rule as { id: string }).id])).json).toMatchObject({
      ok: true,
      removed: 1,
      remaining: 2,
    });
    expect(await reloadApp()).toBe("203:Mocked:");
    expect((await run(["net", "remove", "r999"])).json).toMatchObject({
      ok: false,
      code: "invalid_argument",
      context: { field: "id" },
    });
    expect((await run(["net", "remove", "--all"])).json).toMatchObject({ ok: true, removed: 2, remaining: 0 });
    // The last rule gone: interception is off again and the request is untouched.
    expect((await run(["net", "rules"])).json).toEqual({ ok: true, rules: [] });
    expect(await reloadApp()).toBe("200:Grace:");
    expect((await run(["net", "headers", "*", "not a header"])).json).toMatchObject({
      ok: false,
      code: "invalid_argument",
    });
  });

  test("header values given to net headers (stdin or argv, any name) are applied and never echoed: reply, rules, show, records", async () => {
    const secrets = ["tok-123", "ct-456", "pt-789", "vt-000", "argv-secret"];
    const r = await run(
      ["net", "headers", "*/api/user*", "--stdin"],
      A,
      "Authorization: Bearer tok-123\nX-Test-Header: from-stdin\nX-Custom-Token: ct-456\nPrivate-Token: pt-789\nX-Vault-Token: vt-000\n",
    );
    expect(r.json.ok).toBe(true);
    const a = await run(["net", "headers", "*/nothing*", "X-Other-Token: argv-secret"]);
    expect(a.json).toMatchObject({ ok: true, rule: { headers: { "X-Other-Token": "*** (11 chars)" } } });
    expect(await reloadApp()).toBe("200:Grace:from-stdin");
    const last = (await requests(A, ["--url", "*/api/user*"])).at(-1) as Req;
    const show = await run(["net", "show", String(last.id)]);
    expect((show.json.request as { requestHeaders?: Record<string, string> }).requestHeaders).toMatchObject({
      "X-Custom-Token": "*** (6 chars)",
    });
    const records = (await run(["commands", "--limit", "50"])).json.commands as { id: string; method: string }[];
    const ids = records.filter((c) => c.method === "net headers").map((c) => c.id);
    expect(ids.length).toBeGreaterThanOrEqual(2);
    const outputs = [
      r.stdout,
      a.stdout,
      (await run(["net", "rules"])).stdout,
      show.stdout,
      ...(await Promise.all(ids.map(async (id) => (await run(["command", id])).stdout))),
    ];
    for (const text of outputs) for (const secret of secrets) expect(text).not.toContain(secret);
    expect((await run(["net", "remove", "--all"])).json.ok).toBe(true);
  });
});

describe("out-of-process iframes", () => {
  test("a cross-site iframe's requests are journalled and under the rules", async () => {
    const page = `<!doctype html><title>Outer</title><iframe src="${site.b}/app?inner"></iframe>`;
    expect((await run(["open", `${site.a}/echo?html=${encodeURIComponent(page)}`])).json.ok).toBe(true);
    // Finished, not only answered: before its last byte `net show` says the body is still loading.
    const inner = await waitFor(
      async () =>
        (await requests(A, ["--url", `${site.b}/api/user*`])).find(
          (q) => q.status !== undefined && q.time !== undefined,
        ),
      10_000,
      "the iframe's fetch",
    );
    expect(inner).toMatchObject({ type: "fetch", status: 200 });
    expect(JSON.parse(String((await run(["net", "show", String(inner?.id)])).json.body))).toMatchObject({
      name: "Grace",
    });
    expect((await run(["net", "block", `${site.b}/api/*`])).json.ok).toBe(true);
    expect((await run(["reload"])).json.ok).toBe(true);
    const blocked = await waitFor(
      async () => {
        const last = (await requests(A, ["--url", `${site.b}/api/user*`])).at(-1);
        return last && last.id !== inner?.id && last.error !== undefined ? last : undefined;
      },
      10_000,
      "the iframe's blocked fetch",
    );
    expect(blocked).toMatchObject({ error: "blocked" });
    expect((await run(["net", "remove", "--all"])).json.ok).toBe(true);
    expect((await run(["open", `${site.a}/app`])).json.ok).toBe(true);
  });

  test("a cross-site iframe's document, which starts on the tab's session and ends on the frame's, ends in the journal: the tab goes network-idle", async () => {
    const page = `<!doctype html><title>Outer</title><script>window.framed = false</script><iframe src="${site.b}/second" onload="window.framed = true"></iframe>`;
    expect((await run(["open", `${site.a}/echo?html=${encodeURIComponent(page)}`])).json.ok).toBe(true);
    await waitFor(async () => (await run(["eval", "window.framed"])).json.value === true, 10_000, "the iframe's load");
    const doc = (await requests(A, ["--url", `${site.b}/second`])).at(-1);
    expect(doc).toMatchObject({ type: "document", status: 200 });
    // Its end came on the frame's session: left open, the journal said it was still loading.
    expect(doc).toHaveProperty("time");
    expect((await run(["wait", "--network-idle", "--timeout", "5000"])).json).toMatchObject({ ok: true });
    expect((await run(["open", `${site.a}/app`])).json.ok).toBe(true);
  });
});

describe("two agents", () => {
  test("journals and rules never mix; B's tab is untouched by A's rules", async () => {
    expect((await run(["net", "mock", "*/api/user*", "--body", '{"name":"OnlyA"}'])).json.ok).toBe(true);
    expect((await run(["open", `${site.b}/app`, "--new"], B)).json.ok).toBe(true);
    await waitFor(async () => ((await pageText(B)).startsWith("200:Grace") ? true : undefined), 10_000, "B's fetch");
    expect(await reloadApp(A)).toBe("200:OnlyA:");
    const mine = await requests(B);
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.every((q) => q.url.startsWith(site.b))).toBe(true);
    expect(mine.some((q) => q.rule !== undefined)).toBe(false);
    // B's document never reaches A's journal (A's own iframe loaded ${site.b}/app?inner).
    expect((await requests(A)).some((q) => q.url === `${site.b}/app`)).toBe(false);
    expect((await run(["net", "rules"], B)).json).toEqual({ ok: true, rules: [] });
    expect((await run(["net", "remove", "r1"], B)).json).toMatchObject({ ok: false, code: "invalid_argument" });
    expect((await run(["net", "remove", "--all"])).json.ok).toBe(true);
  });
});

describe("bp auth", () => {
  test("Basic auth per agent; a wrong password is auth_failed at once, never a retry loop; the password is never echoed", async () => {
    // B has no credentials: the page answers 401 (on its own origin, so Chrome's auth cache stays out of it).
    const none = await run(["open", `${site.b}/basic`], B);
    // Headless Chromium cancels a challenge nobody answers.
    expect(none.json).toMatchObject({
      ok: false,
      code: "navigation_failed",
      context: { reason: "net::ERR_INVALID_AUTH_CREDENTIALS" },
    });
    const wrong = await run(["auth", AUTH_USER, "--password-stdin"], A, "wrong-pass\n");
    expect(wrong.json).toMatchObject({ ok: true, auth: "set" });
    expect(wrong.json).not.toHaveProperty("username");
    const started = Date.now();
    const refused = await run(["open", `${site.b}/basic`], A);
    expect(refused.json).toMatchObject({ ok: false, code: "auth_failed", remediation: { code: "check_credentials" } });
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(refused.stdout).not.toContain("wrong-pass");
    const good = await run(["auth", AUTH_USER, "--password-stdin"], A, `${AUTH_PASSWORD}\n`);
    expect(good.json.ok).toBe(true);
    expect(good.stdout).not.toContain(AUTH_PASSWORD);
    expect((await run(["open", `${site.a}/basic`], A)).json).toMatchObject({ ok: true, title: "Members" });
    // A's credentials are A's: B on an origin Chrome has no login for still gets none.
    expect((await run(["open", `${site.b}/basic`], B)).json).toMatchObject({ ok: false, code: "navigation_failed" });
    // Nothing of the password in this agent's command records either.
    const cmds = await run(["commands", "--limit", "100"]);
    expect(cmds.stdout).not.toContain(AUTH_PASSWORD);
    // Refused without stdin: the password never goes in argv.
    expect((await run(["auth", AUTH_USER])).json).toMatchObject({
      ok: false,
      code: "invalid_argument",
      context: { field: "password" },
    });
    expect((await run(["auth", "--clear"])).json).toEqual({ ok: true, auth: "cleared" });
    expect((await run(["net", "rules"])).json).toEqual({ ok: true, rules: [] });
  });
});

describe("disconnect and redaction", () => {
  test("rules stop applying once the agent disconnects; the person's tab stays open", async () => {
    const port = await readPortFile(join(env.home, "profiles", "default"));
    if (!port) throw new Error("launched browser has no DevToolsActivePort");
    const target = await openUserTab(port.port, `${site.a}/app?user`);
    const tabs = await waitFor(
      async () => {
        const t = (await run(["tabs"], A)).json.tabs as { id: string; url: string }[];
        return t.find((x) => x.url.includes("/app?user"));
      },
      10_000,
      "the person's tab",
    );
    expect((await run(["tab", tabs?.id ?? ""], A)).json.ok).toBe(true);
    // Both of A's tabs (its managed one and the person's it just took) intercept at once.
    expect((await run(["net", "block", "*/api/*"], A)).json).toMatchObject({ ok: true, intercepting: 2 });
    expect(await reloadApp(A)).toStartWith("failed:");
    expect((await run(["disconnect"], A)).json.ok).toBe(true);
    const tb = await waitFor(
      async () => {
        const t = (await run(["tabs"], B)).json.tabs as { id: string; url: string }[];
        return t.find((x) => x.url.includes("/app?user"));
      },
      10_000,
      "the person's tab, still open",
    );
    expect((await run(["tab", tb?.id ?? ""], B)).json.ok).toBe(true);
    expect(await reloadApp(B)).toBe("200:Grace:");
    // A came back with a fresh state: no rules, no journal.
    expect((await run(["net", "rules"], A)).json).toEqual({ ok: true, rules: [] });
    expect((await run(["net"], A)).json).toMatchObject({ requests: [] });
    void target;
  });

  test("credentials in URLs are redacted in every output", async () => {
    const r = await run(["open", `http://bob:hunter2@${new URL(site.a).host}/second`, "--new"], B);
    expect(r.stdout).not.toContain("hunter2");
    const all = [
      r,
      await run(["tabs"], B),
      await run(["net"], B),
      await run(["status"], B),
      await run(["snapshot"], B),
    ];
    for (const x of all) expect(x.stdout).not.toContain("hunter2");
    const err = await run(["net", "show", "1", "--save", "http://bob:hunter2@x/y"], B);
    expect(err.stdout).not.toContain("hunter2");
  });
});
