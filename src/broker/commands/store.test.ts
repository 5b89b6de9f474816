import { describe, expect, test } from "bun:test";
import { canonicalJson, fingerprint, idempotencyKey, urlMatches } from "./canonical.ts";
import { CommandStore, MAX_RECORDS, TERMINAL_TTL_MS, publicCommand, type AcceptInput, type Reply } from "./store.ts";

const input = (over: Partial<AcceptInput> = {}): AcceptInput => ({
  key: "agent-a",
  invocation: crypto.randomUUID(),
  method: "click",
  mutating: true,
  deadlineAt: Date.now() + 60_000,
  fingerprint: fingerprint("click", { ref: 3 }),
  ...over,
});

describe("canonical keys", () => {
  test("argument JSON sorts keys at every depth and drops undefined", () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: 2 }], c: undefined } })).toBe(
      '{"a":{"d":[2,{"y":2,"z":1}]},"b":1}',
    );
    expect(canonicalJson({ x: 1, y: 2 })).toBe(canonicalJson({ y: 2, x: 1 }));
    expect(canonicalJson([undefined, 1])).toBe("[null,1]");
  });

  test("idempotency key covers client key, request id, command, arguments and target", () => {
    const base = idempotencyKey("k1", "r1", fingerprint("eval", { expression: "1" }), "T1");
    expect(idempotencyKey("k1", "r1", fingerprint("eval", { expression: "1" }), "T1")).toBe(base);
    expect(idempotencyKey("k2", "r1", fingerprint("eval", { expression: "1" }), "T1")).not.toBe(base);
    expect(idempotencyKey("k1", "r2", fingerprint("eval", { expression: "1" }), "T1")).not.toBe(base);
    expect(idempotencyKey("k1", "r1", fingerprint("click", { expression: "1" }), "T1")).not.toBe(base);
    expect(idempotencyKey("k1", "r1", fingerprint("eval", { expression: "2" }), "T1")).not.toBe(base);
    expect(idempotencyKey("k1", "r1", fingerprint("eval", { expression: "1" }), "none")).not.toBe(base);
    // Separators inside values cannot forge another key.
    expect(idempotencyKey("a", "b|c", fingerprint("x", {}), "t")).not.toBe(
      idempotencyKey("a|b", "c", fingerprint("x", {}), "t"),
    );
  });

  test("URL patterns: substring without '*', anchored case-insensitive wildcard with it", () => {
    expect(urlMatches("https://Example.com/cart?x=1", "example.com/CART")).toBe(true);
    expect(urlMatches("https://example.com/cart", "*/cart")).toBe(true);
    expect(urlMatches("https://example.com/cart?x=1", "*/cart")).toBe(false);
    expect(urlMatches("https://example.com/cart?x=1", "*/cart*")).toBe(true);
    expect(urlMatches("https://example.com/a.b", "https://example.com/a?b")).toBe(false);
    expect(urlMatches("https://example.com/a(b)", "*a(b)")).toBe(true);
  });
});

describe("command store", () => {
  test("ids are random and opaque, not a sequence", () => {
    const s = new CommandStore();
    const a = s.accept(input());
    const b = s.accept(input());
    expect(a.id).toMatch(/^c[0-9a-f]{12}$/);
    expect(b.id).not.toBe(a.id);
    expect(Number.parseInt(b.id.slice(1), 16) - Number.parseInt(a.id.slice(1), 16)).not.toBe(1);
  });

  test("status flow and the public shape", () => {
    let now = 1_000_000;
    const s = new CommandStore(() => now);
    const rec = s.accept(input({ tab: "t1", requestId: "r1" }));
    expect(publicCommand(rec)).toMatchObject({
      method: "click",
      mutating: true,
      status: "accepted",
      tab: "t1",
      requestId: "r1",
    });
    expect(publicCommand(rec).dispatchedAt).toBeUndefined();
    s.markDispatched(rec);
    expect(rec.status).toBe("dispatched");
    now += 2;
    s.complete(rec, "completed", { ok: true, x: 1 });
    s.complete(rec, "unknown_outcome", { ok: false });
    expect(rec.status).toBe("completed");
    expect(rec.reply).toEqual({ ok: true, x: 1 });
    const pub = publicCommand(rec);
    expect(typeof pub.dispatchedAt).toBe("string");
    expect(typeof pub.completedAt).toBe("string");
    // A terminal record is never dispatched again.
    s.markDispatched(rec);
    expect(rec.status).toBe("completed");
  });

  test("no timestamp repeats the one before it; a read's dispatch is never shown unless later", () => {
    let now = 1_000_000;
    const s = new CommandStore(() => now);
    const iso = (t: number) => new Date(t).toISOString();
    // A read dispatched and finished in the millisecond it was accepted: only acceptedAt.
    const read = s.accept(input({ method: "snapshot", mutating: false }));
    s.markDispatched(read);
    s.complete(read, "completed", { ok: true });
    expect(publicCommand(read)).toEqual({
      id: read.id,
      method: "snapshot",
      status: "completed",
      acceptedAt: iso(1_000_000),
    });
    // A mutating one keeps its dispatch (it reached the browser), not a completion in the same millisecond.
    const click = s.accept(input());
    s.markDispatched(click);
    s.complete(click, "completed", { ok: true });
    expect(publicCommand(click)).toEqual({
      id: click.id,
      method: "click",
      mutating: true,
      status: "completed",
      acceptedAt: iso(1_000_000),
      dispatchedAt: iso(1_000_000),
    });
    // Times that moved are shown.
    const slow = s.accept(input({ method: "read", mutating: false }));
    now += 5;
    s.markDispatched(slow);
    now += 7;
    s.complete(slow, "completed", { ok: true });
    expect(publicCommand(slow)).toMatchObject({
      acceptedAt: iso(1_000_000),
      dispatchedAt: iso(1_000_005),
      completedAt: iso(1_000_012),
    });
    const quick = s.accept(input({ method: "tabs", mutating: false }));
    s.markDispatched(quick);
    now += 3;
    s.complete(quick, "completed", { ok: true });
    expect(publicCommand(quick)).toEqual({
      id: quick.id,
      method: "tabs",
      status: "completed",
      acceptedAt: iso(1_000_012),
      completedAt: iso(1_000_015),
    });
  });

  test("records are per client key; other keys' ids do not exist", () => {
    const s = new CommandStore();
    const rec = s.accept(input());
    expect(s.get("agent-a", rec.id)).toBe(rec);
    expect(s.get("agent-b", rec.id)).toBeUndefined();
    expect(s.list("agent-b", undefined, 20)).toEqual([]);
    expect(s.findRequest("agent-b", "r1")).toBeUndefined();
  });

  test("list: newest first, status filter, limit", () => {
    const s = new CommandStore();
    const recs = [1, 2, 3, 4].map((i) => s.accept(input({ method: `m${i}` })));
    s.complete(recs[0]!, "completed", { ok: true });
    s.complete(recs[2]!, "cancelled", { ok: false });
    expect(s.list("agent-a", undefined, 2).map((r) => r.method)).toEqual(["m4", "m3"]);
    expect(s.list("agent-a", ["completed", "cancelled"], 20).map((r) => r.method)).toEqual(["m3", "m1"]);
  });

  test("terminal records expire after 5 minutes; active ones stay", () => {
    let now = 1_000_000;
    const s = new CommandStore(() => now);
    const done = s.accept(input({ requestId: "r1" }));
    const active = s.accept(input());
    s.complete(done, "completed", { ok: true });
    now += TERMINAL_TTL_MS + 1;
    s.prune();
    expect(s.get("agent-a", done.id)).toBeUndefined();
    expect(s.findRequest("agent-a", "r1")).toBeUndefined();
    expect(s.get("agent-a", active.id)).toBe(active);
  });

  test("the expiry sweep runs at most once a second, so an expired record lives at most a second longer", () => {
    let now = 1_000_000;
    const s = new CommandStore(() => now);
    s.prune();
    const done = s.accept(input());
    s.complete(done, "completed", { ok: true });
    now += TERMINAL_TTL_MS + 1;
    // The last sweep was 5 minutes ago: this one drops it.
    s.prune();
    expect(s.get("agent-a", done.id)).toBeUndefined();
    const late = s.accept(input());
    s.complete(late, "completed", { ok: true });
    now += TERMINAL_TTL_MS + 1;
    s.prune();
    expect(s.get("agent-a", late.id)).toBeUndefined();
    const next = s.accept(input());
    s.complete(next, "completed", { ok: true });
    now += TERMINAL_TTL_MS - 500;
    s.prune();
    now += 600;
    // Expired 100 ms ago, but the previous sweep was only 600 ms ago.
    s.prune();
    expect(s.get("agent-a", next.id)).toBe(next);
    now += 400;
    s.prune();
    expect(s.get("agent-a", next.id)).toBeUndefined();
  });

  test("bounded: beyond the cap the oldest terminal records go first", () => {
    const s = new CommandStore();
    const first = s.accept(input());
    const keep = s.accept(input());
    s.complete(first, "completed", { ok: true });
    for (let i = 0; i < MAX_RECORDS + 10; i++) s.complete(s.accept(input()), "completed", { ok: true });
    expect(s.size).toBeLessThanOrEqual(MAX_RECORDS);
    expect(s.get("agent-a", first.id)).toBeUndefined();
    expect(s.get("agent-a", keep.id)).toBe(keep);
  });

  test("the invocation index forgets a command once it ends", () => {
    const s = new CommandStore();
    const rec = s.accept(input({ invocation: "inv-1" }));
    expect(s.byInvocationId("inv-1")).toBe(rec);
    s.complete(rec, "cancelled", { ok: false });
    expect(s.byInvocationId("inv-1")).toBeUndefined();
  });

  test("done resolves once the record ends; the reply is the record's to keep", async () => {
    const s = new CommandStore();
    const rec = s.accept(input());
    s.complete(rec, "completed", { ok: true, v: 7 });
    await rec.done;
    expect(rec.reply).toEqual({ ok: true, v: 7 });
  });

  test("a reply the record does not keep (over 64 KiB) is not held by it at all", () => {
    const s = new CommandStore();
    const rec = s.accept(input());
    let big: Reply | undefined = { ok: true, text: "x".repeat(70 * 1024) };
    const ref = new WeakRef(big);
    s.complete(rec, "completed", big);
    big = undefined;
    Bun.gc(true);
    expect(rec.replyDropped).toBe(true);
    expect(ref.deref()).toBeUndefined();
  });
});
