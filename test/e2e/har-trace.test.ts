/**
 * 'bp net har' and 'bp trace start/stop' write files a validator opens: HAR 1.2 with its
 * required keys and secrets masked as 'net show' masks them, and Chrome trace JSON with
 * `traceEvents`. One trace per agent; a second start is refused.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeBpEnv, refNamed, waitFor } from "../support/bp.ts";
import { requireChromium } from "../support/chromium.ts";
import { resultViolations } from "../support/result-check.ts";
import { findCommand } from "../../src/protocol/table.ts";
import { PAGES, startFixtureServer } from "../support/fixture-server.ts";

requireChromium();

/** The reply against its command's published result schema, strictly (test/support/result-check.ts). */
async function violations(name: string, reply: unknown): Promise<string[]> {
  const def = await findCommand(name);
  if (!def) return [`no command ${name}`];
  return resultViolations(def.result, reply);
}

const site = startFixtureServer(PAGES);
const out = mkdtempSync(join(tmpdir(), "bp-har-out-"));
const env = makeBpEnv({ BROWSER_PILOT_OUTPUT_DIR: out });
const K = "har-agent";
const run = (args: string[], key = K) => env.run(args, { key });

beforeAll(async () => {
  expect((await env.run(["launch", "--headless"])).json.ok).toBe(true);
  expect((await run(["open", `${site.a}/cookies`, "--new"])).json.ok).toBe(true);
});

afterAll(async () => {
  await env.cleanup();
  site.stop();
  rmSync(out, { recursive: true, force: true });
});

const isNum = (x: unknown) => typeof x === "number" && Number.isFinite(x);
const isPairs = (x: unknown) =>
  Array.isArray(x) && x.every((p) => typeof p?.name === "string" && typeof p?.value === "string");

/** The fields HAR 1.2 requires (http://www.softwareishard.com/blog/har-12-spec/), with their types. */
function harProblems(har: unknown): string[] {
  const bad: string[] = [];
  const log = (har as { log?: Record<string, unknown> }).log;
  if (!log || log.version !== "1.2") return ["log.version"];
  const creator = log.creator as Record<string, unknown> | undefined;
  if (typeof creator?.name !== "string" || typeof creator.version !== "string") bad.push("log.creator");
  if (!Array.isArray(log.entries)) return [...bad, "log.entries"];
  for (const [i, e] of (log.entries as Record<string, Record<string, unknown>>[]).entries()) {
    const at = `entries[${i}]`;
    if (typeof e.startedDateTime !== "string" || Number.isNaN(Date.parse(e.startedDateTime as unknown as string)))
      bad.push(`${at}.startedDateTime`);
    if (!isNum(e.time)) bad.push(`${at}.time`);
    const rq = e.request ?? {};
    for (const k of ["method", "url", "httpVersion"]) if (typeof rq[k] !== "string") bad.push(`${at}.request.${k}`);
    for (const k of ["cookies", "headers", "queryString"])
      if (!isPairs(rq[k]) && !(k === "cookies" && Array.isArray(rq[k]))) bad.push(`${at}.request.${k}`);
    for (const k of ["headersSize", "bodySize"]) if (!isNum(rq[k])) bad.push(`${at}.request.${k}`);
    const rs = e.response ?? {};
    if (
      !isNum(rs.status) ||
      typeof rs.statusText !== "string" ||
      typeof rs.httpVersion !== "string" ||
      typeof rs.redirectURL !== "string"
    )
      bad.push(`${at}.response`);
    if (!Array.isArray(rs.cookies) || !isPairs(rs.headers) || !isNum(rs.headersSize) || !isNum(rs.bodySize))
      bad.push(`${at}.response lists`);
    const content = rs.content as Record<string, unknown> | undefined;
    if (!content || !isNum(content.size) || typeof content.mimeType !== "string") bad.push(`${at}.response.content`);
    if (typeof e.cache !== "object" || e.cache === null) bad.push(`${at}.cache`);
    const t = e.timings as Record<string, unknown> | undefined;
    if (!t || !isNum(t.send) || !isNum(t.wait) || !isNum(t.receive)) bad.push(`${at}.timings`);
  }
  return bad;
}

describe("bp net har", () => {
  test("the agent's journal as valid HAR 1.2, bodies in, cookies and secrets masked, mode 0600", async () => {
    // A header rule's bearer token and a password in a URL are secrets 'net show' masks.
    expect(
      (
        await env.run(["net", "headers", "*/api/user*", "--stdin"], {
          key: K,
          stdin: "Authorization: Bearer tok-har-123\n",
        })
      ).json.ok,
    ).toBe(true);
    await run(["open", site.a.replace("http://", "http://alice:hunter2-har@") + "/second"]);
    expect((await run(["open", `${site.a}/app`])).json.ok).toBe(true);
    expect((await run(["wait", "--text", "Grace"])).json.ok).toBe(true);
    // The headers a request really carried (the rule's Authorization) come in the request's extra
    // info, which Chrome may send after the page already shows the response: export until it is in.
    let r = await run(["net", "har", "session.har"]);
    let text = readFileSync(join(out, "session.har"), "utf8");
    await waitFor(
      async () => {
        if (/"name":"Authorization"/i.test(text)) return true;
        r = await run(["net", "har", "session.har", "--force"]);
        text = readFileSync(join(out, "session.har"), "utf8");
        return false;
      },
      10_000,
      "the API request's Authorization header in the journal",
    );
    expect(r.json).toMatchObject({ ok: true, file: join(out, "session.har") });
    expect(statSync(join(out, "session.har")).mode & 0o777).toBe(0o600);
    const har = JSON.parse(text) as {
      log: {
        entries: {
          request: { url: string; queryString: unknown };
          response: { status: number; content: { text?: string } };
        }[];
      };
    };
    expect(harProblems(har)).toEqual([]);
    expect(r.json.entries).toBe(har.log.entries.length);
    expect(await violations("net har", r.json)).toEqual([]);
    const api = har.log.entries.find((e) => e.request.url.includes("/api/user"));
    expect(api?.response.status).toBe(200);
    expect(api?.request.queryString).toEqual([{ name: "from", value: "app" }]);
    expect(JSON.parse(api?.response.content.text ?? "{}")).toMatchObject({ name: "Grace" });
    // The session cookie the server set is never written out, as 'net show' never shows it.
    expect(text).not.toContain("abc123");
    expect(text).not.toContain("tok-har-123");
    expect(text).not.toContain("hunter2-har");
    expect(text).toMatch(/"name":"Authorization","value":"\*\*\* \(\d+ chars\)"/i);
    expect(har.log.entries.some((e) => e.request.url.endsWith("/cookies"))).toBe(true);
  });

  test("another agent's HAR holds none of this agent's requests; an existing file needs --force", async () => {
    await run(["open", `${site.a}/second`, "--new"], "har-other");
    const other = JSON.parse(
      readFileSync((await run(["net", "har", "other.har"], "har-other")).json.file as string, "utf8"),
    ) as { log: { entries: { request: { url: string } }[] } };
    expect(other.log.entries.some((e) => e.request.url.includes("/api/user"))).toBe(false);
    expect((await run(["net", "har", "session.har"])).json).toMatchObject({
      ok: false,
      code: "invalid_argument",
      context: { field: "file", reason: "exists" },
    });
    expect((await run(["net", "har", "session.har", "--force"])).json.ok).toBe(true);
    expect((await run(["net", "har", "../escape.har"])).json).toMatchObject({
      ok: false,
      code: "invalid_argument",
      context: { field: "file" },
    });
  });
});

describe("bp trace", () => {
  test("start, act, stop: Chrome trace JSON with traceEvents; a second start and a stop without one are refused", async () => {
    expect((await run(["trace", "stop"])).json).toMatchObject({
      ok: false,
      code: "invalid_argument",
      context: { field: "trace", reason: "no_trace" },
    });
    expect((await run(["trace", "start", "--categories", "devtools.timeline,,bad category!"])).json).toMatchObject({
      ok: false,
      code: "invalid_argument",
      context: { field: "categories" },
    });
    const started = await run(["trace", "start"]);
    expect(started.json).toMatchObject({ ok: true, categories: 11 });
    expect(await violations("trace start", started.json)).toEqual([]);
    expect((await run(["trace", "start"])).json).toMatchObject({
      ok: false,
      code: "invalid_argument",
      context: { field: "trace", reason: "trace_running" },
    });
    // Chrome records one trace at a time: another agent's start waits its turn, retryably.
    await run(["open", `${site.a}/third`, "--new"], "har-tracer-2");
    expect((await run(["trace", "start"], "har-tracer-2")).json).toMatchObject({
      ok: false,
      code: "target_busy",
      retryable: true,
      context: { reason: "tracing_busy" },
    });
    const load = await refNamed(run, "Load");
    expect((await run(["click", load])).json.ok).toBe(true);
    const stopped = await run(["trace", "stop", "app-trace.json"]);
    expect(stopped.json).toMatchObject({ ok: true, file: join(out, "app-trace.json") });
    expect(await violations("trace stop", stopped.json)).toEqual([]);
    expect(statSync(join(out, "app-trace.json")).mode & 0o777).toBe(0o600);
    const trace = JSON.parse(readFileSync(join(out, "app-trace.json"), "utf8")) as {
      traceEvents: { ph?: unknown; pid?: unknown; name?: unknown; ts?: unknown }[];
    };
    expect(Array.isArray(trace.traceEvents)).toBe(true);
    expect(trace.traceEvents.length).toBe(stopped.json.events as number);
    expect(trace.traceEvents.length).toBeGreaterThan(10);
    // What the trace viewers read of every event: a phase, a process, a name; timestamps where the phase has one.
    expect(
      trace.traceEvents.filter(
        (e) => typeof e.ph !== "string" || typeof e.pid !== "number" || typeof e.name !== "string",
      ),
    ).toEqual([]);
    expect(trace.traceEvents.some((e) => e.ph === "X" && typeof e.ts === "number")).toBe(true);
    // Stopped: a new trace may start, and that one ends too.
    expect((await run(["trace", "start", "--categories", "devtools.timeline"])).json).toMatchObject({
      ok: true,
      categories: 1,
    });
    expect((await run(["trace", "stop"])).json).toMatchObject({ ok: true });
  });
});
