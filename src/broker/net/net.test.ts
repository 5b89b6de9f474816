import { describe, expect, test } from "bun:test";
import { JOURNAL_MAX_BYTES, JOURNAL_MAX_ENTRIES, Journal } from "./journal.ts";
import { redactDeep, redactUrl } from "./redact.ts";
import { decide, mergeHeaders, parseHeader, type Rule } from "./rules.ts";
import { Agent } from "../agents.ts";
import { credentialsFor, needsFetch, takeUrlCredentials } from "./state.ts";

const req = (n: number, extra: Partial<Parameters<Journal["add"]>[0]> = {}) => ({
  tab: "t1",
  targetId: "T",
  requestId: `r${n}`,
  method: "GET",
  url: `https://example.test/item/${n}`,
  type: "fetch",
  startedAt: 0,
  ...extra,
});

describe("Journal", () => {
  test("newest last; --after pages oldest first; nextCursor continues", () => {
    const j = new Journal();
    for (let i = 1; i <= 5; i++) j.add(req(i));
    const head = j.query({ limit: 2 });
    expect(head.entries.map((e) => e.id)).toEqual([4, 5]);
    expect(head).toMatchObject({ total: 5, truncated: true, gap: false, nextCursor: 5 });
    const page = j.query({ limit: 2, after: 1 });
    expect(page.entries.map((e) => e.id)).toEqual([2, 3]);
    expect(page.nextCursor).toBe(3);
    expect(j.query({ limit: 10, after: 5 })).toMatchObject({ entries: [], truncated: false, nextCursor: 5 });
  });

  test("the count bound drops the oldest; a cursor into the dropped part reports the gap", () => {
    const j = new Journal();
    for (let i = 1; i <= JOURNAL_MAX_ENTRIES + 10; i++) j.add(req(i));
    expect(j.get(1)).toBeUndefined();
    expect(j.get(11)?.requestId).toBe("r11");
    expect(j.query({ limit: 5, after: 3 })).toMatchObject({ gap: true, truncated: true });
    expect(j.query({ limit: 5, after: 10 }).gap).toBe(false);
    expect(j.find("T", "r5")).toBeUndefined();
  });

  test("the byte bound drops the oldest too", () => {
    const j = new Journal();
    const big = "x".repeat(4 * 1024 * 1024);
    for (let i = 1; i <= 6; i++) j.add(req(i, { postData: big }));
    expect(j.query({ limit: 100 }).total).toBeLessThanOrEqual(Math.floor(JOURNAL_MAX_BYTES / big.length));
    expect(j.query({ limit: 100, after: 0 }).gap).toBe(true);
  });

  test("filters: url pattern, method, status class, types", () => {
    const j = new Journal();
    const a = j.add(req(1, { method: "POST", type: "xhr" }));
    a.status = 201;
    const b = j.add(req(2, { url: "https://example.test/page", type: "document" }));
    b.status = 404;
    expect(j.query({ limit: 10, method: "post" }).entries.map((e) => e.id)).toEqual([1]);
    expect(j.query({ limit: 10, status: "4xx" }).entries.map((e) => e.id)).toEqual([2]);
    expect(j.query({ limit: 10, status: "201" }).entries.map((e) => e.id)).toEqual([1]);
    expect(j.query({ limit: 10, types: ["XHR", "fetch"] }).entries.map((e) => e.id)).toEqual([1]);
    expect(j.query({ limit: 10, url: "*/page" }).entries.map((e) => e.id)).toEqual([2]);
    expect(j.query({ limit: 10, url: "ITEM" }).entries.map((e) => e.id)).toEqual([1]);
  });

  test("credentials in recorded URLs are redacted", () => {
    const j = new Journal();
    expect(j.add(req(1, { url: "https://bob:hunter2@example.test/" })).url).toBe("https://bob:***@example.test/");
  });
});

describe("rules", () => {
  const block = (seq: number, pattern: string): Rule => ({ id: `r${seq}`, seq, type: "block", pattern });
  const mock = (seq: number, pattern: string, body = "m"): Rule => ({
    id: `r${seq}`,
    seq,
    type: "mock",
    pattern,
    status: 200,
    body: Buffer.from(body),
    headers: {},
  });
  const headers = (seq: number, pattern: string, h: Record<string, string>): Rule => ({
    id: `r${seq}`,
    seq,
    type: "headers",
    pattern,
    headers: h,
  });

  test("block beats mock beats headers, whatever order they came in", () => {
    const url = "https://example.test/api/user";
    expect(decide([headers(1, "*", { A: "1" }), mock(2, "*/api/*"), block(3, "*/user")], url).action).toBe("block");
    expect(decide([block(3, "*/other"), mock(2, "*/api/*"), headers(1, "*", { A: "1" })], url).action).toBe("mock");
    expect(decide([headers(1, "*", { A: "1" })], url).action).toBe("headers");
    expect(decide([block(1, "*/nothing")], url).action).toBe("continue");
  });

  test("the newest matching mock answers; header rules merge oldest first, newer wins per name", () => {
    const url = "https://example.test/x";
    const d = decide([mock(5, "*", "new"), mock(2, "*", "old")], url);
    expect(d.action === "mock" && Buffer.from(d.rule.body).toString()).toBe("new");
    const h = decide([headers(3, "*", { "x-a": "late" }), headers(1, "*", { "X-A": "early", "X-B": "b" })], url);
    expect(h.action === "headers" && h.headers).toEqual({ "X-B": "b", "x-a": "late" });
  });

  test("header parsing and case-insensitive override", () => {
    expect(parseHeader("X-Test: a: b")).toEqual(["X-Test", "a: b"]);
    expect(parseHeader("not a header")).toBeUndefined();
    expect(parseHeader("Bad Name: v")).toBeUndefined();
    expect(mergeHeaders({ Accept: "*/*", "user-agent": "UA" }, { "User-Agent": "mine" })).toEqual({
      Accept: "*/*",
      "User-Agent": "mine",
    });
  });
});

describe("redaction", () => {
  test("user:password@ becomes user:***@ anywhere in a reply; other strings stay", () => {
    expect(redactUrl("open http://u:p@h/x and ws://a:b@c:9/")).toBe("open http://u:***@h/x and ws://a:***@c:9/");
    expect(redactUrl("http:/u:p@h")).toBe("http:/u:***@h");
    expect(redactUrl("mail me at a@b.c")).toBe("mail me at a@b.c");
    const reply = { ok: true, tabs: [{ url: "https://x:y@h/" }], n: 1 };
    expect(redactDeep(reply)).toEqual({ ok: true, tabs: [{ url: "https://x:***@h/" }], n: 1 });
    const clean = { ok: true, url: "https://h/" };
    expect(redactDeep(clean)).toBe(clean);
  });
});

describe("credentials in an opened URL", () => {
  test("taken out of the URL, kept for its origin (decoded), preferred there over 'auth'", () => {
    const key = "url-cred-agent";
    const agent = new Agent(key);
    expect(takeUrlCredentials(agent.net, "https://h.test/x")).toBe("https://h.test/x");
    expect(needsFetch(key, agent.netIfAny).auth).toBe(false);
    expect(takeUrlCredentials(agent.net, "https://al%40ice:p%3Ass@h.test:8443/a?q#f")).toBe(
      "https://h.test:8443/a?q#f",
    );
    const s = agent.netIfAny;
    expect(needsFetch(key, s)).toEqual({ on: true, auth: true });
    expect(credentialsFor(s, "https://h.test:8443/other")).toEqual({ username: "al@ice", password: "p:ss" });
    expect(credentialsFor(s, "https://h.test/")).toBeUndefined();
    agent.net.auth = { username: "u", password: "p" };
    expect(credentialsFor(s, "https://elsewhere.test/")).toEqual({ username: "u", password: "p" });
    expect(credentialsFor(s, "https://h.test:8443/")).toEqual({ username: "al@ice", password: "p:ss" });
  });
});
