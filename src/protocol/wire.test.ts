import { expect, test } from "bun:test";
import * as v from "valibot";
import { locatorSchema, readError, readLocatorValue, readReply, replySchema } from "./wire.ts";

/** What the reply schema itself makes of a line: the output, key order included, or a refusal. */
function bySchema(line: string): string | undefined {
  const parsed = v.safeParse(replySchema(), JSON.parse(line));
  return parsed.success ? JSON.stringify(parsed.output) : undefined;
}

function byReadReply(line: string): string | undefined {
  const read = readReply(JSON.parse(line));
  return read === undefined ? undefined : JSON.stringify(read);
}

test("the generated readReply gives what the reply schema gives, for successes and everything else", () => {
  const lines = [
    // successes: printed as they came, `ok` first, the keys valibot never copies dropped
    '{"ok":true}',
    '{"ok":true,"value":2}',
    '{"value":2,"ok":true,"title":"x"}',
    '{"ok":true,"elements":[[1,"link","Home"],"Hello"],"page":{"vh":1,"dh":2}}',
    '{"ok":true,"__proto__":{"polluted":1},"a":1}',
    '{"ok":true,"constructor":"x","prototype":1,"b":2}',
    '{"ok":true,"2":"two","1":"one","z":0}',
    '{"ok":true,"ok2":false,"hints":[]}',
    // failures: held to the published error shape
    '{"ok":false,"error":"x","code":"stale_ref","retryable":true}',
    '{"ok":false,"error":"x","code":"stale_ref","retryable":true,"hint":"h","context":{"a":1},"remediation":{"code":"c","message":"m"},"handbacks":[{"tab":"t1"}]}',
    '{"retryable":false,"code":"internal_error","error":"x","ok":false,"extra":1}',
    '{"ok":false}',
    '{"ok":false,"error":"x","code":"made_up","retryable":false}',
    '{"ok":false,"error":"x","code":"internal_error"}',
    '{"ok":false,"error":"x","code":"stale_ref","retryable":true,"context":[1]}',
    '{"ok":false,"error":"x","code":"stale_ref","retryable":true,"handbacks":[[1]]}',
    '{"ok":false,"error":1,"code":"stale_ref","retryable":true}',
    '{"ok":false,"error":"x","code":"stale_ref","retryable":"yes"}',
    '{"ok":false,"error":"x","code":"stale_ref","retryable":true,"hint":1}',
    '{"ok":false,"error":"x","code":"stale_ref","retryable":true,"context":null}',
    '{"ok":false,"error":"x","code":"stale_ref","retryable":true,"context":"c"}',
    '{"ok":false,"error":"x","code":"stale_ref","retryable":true,"context":{"__proto__":{"p":1},"constructor":1,"a":{"deep":[1]},"1":2}}',
    '{"ok":false,"error":"x","code":"stale_ref","retryable":true,"remediation":{"code":"c","message":"m","actionRequired":true,"extra":1}}',
    '{"ok":false,"error":"x","code":"stale_ref","retryable":true,"remediation":{"code":"c","message":"m","actionRequired":"no"}}',
    '{"ok":false,"error":"x","code":"stale_ref","retryable":true,"remediation":{"code":"c"}}',
    '{"ok":false,"error":"x","code":"stale_ref","retryable":true,"remediation":[]}',
    '{"ok":false,"error":"x","code":"stale_ref","retryable":true,"remediation":null}',
    '{"ok":false,"error":"x","code":"stale_ref","retryable":true,"handbacks":[]}',
    '{"ok":false,"error":"x","code":"stale_ref","retryable":true,"handbacks":{"0":{"tab":"t1"}}}',
    '{"ok":false,"error":"x","code":"stale_ref","retryable":true,"handbacks":[{"tab":"t1","prototype":2},null]}',
    '{"ok":false,"error":"x","code":"stale_ref","retryable":true,"handbacks":[{"tab":"t1"},{"tab":"t2","until":"later"}]}',
    '{"ok":false,"error":"x","code":"toString","retryable":true}',
    // what the host policy stopped, beside a failure (a hand-written reader once dropped it)
    '{"ok":false,"error":"x","code":"policy_denied","retryable":false,"policyBlocked":[{"kind":"navigation","url":"https://b.test/"}]}',
    '{"ok":false,"error":"x","code":"policy_denied","retryable":false,"policyBlocked":{"kind":"navigation"}}',
    '{"ok":false,"error":"x","code":"policy_denied","retryable":false,"policyBlocked":[[1]]}',
    '{"ok":true,"policyBlocked":[{"kind":"request"}]}',
    '{"ok":false,"error":"x","code":1,"retryable":true}',
    // neither
    "null",
    "[1]",
    '[{"ok":true}]',
    '"text"',
    "1",
    "true",
    "{}",
    '{"ok":"yes"}',
    '{"ok":1}',
    '{"ok":null}',
  ];
  for (const line of lines) {
    expect([line, byReadReply(line)]).toEqual([line, bySchema(line)]);
    // A failure the schema accepts is read without it.
    const value: unknown = JSON.parse(line);
    const failure = typeof value === "object" && value !== null && "ok" in value && value.ok === false;
    const accepted = bySchema(line);
    if (failure && accepted !== undefined) expect([line, JSON.stringify(readError(value))]).toEqual([line, accepted]);
  }
  // A `__proto__` key is neither copied nor made the prototype (which JSON would not show).
  const polluted = readReply(JSON.parse('{"ok":true,"__proto__":{"polluted":1}}'));
  expect(polluted === undefined ? undefined : Object.getPrototypeOf(polluted)).toBe(Object.prototype);
  // A success's fields are the reply's own, unchanged.
  expect(readReply(JSON.parse('{"ok":true,"v":{"deep":[1,{"x":null}]}}'))).toEqual({
    ok: true,
    v: { deep: [1, { x: null }] },
  });
});

test("the generated readLocatorValue gives what the locator schema gives", () => {
  const good = {
    schemaVersion: 1,
    pid: 4242,
    processIdentity: "4242:99",
    endpoint: "/home/u/.browser-pilot/broker.sock",
    startedAt: "2026-01-01T00:00:00.000Z",
    version: "0.1.0",
    protocol: { min: 1, max: 1 },
    executable: { version: "0.1.0", path: "/usr/bin/bp", identity: "executable:ab" },
    token: "t0k3n",
  };
  const variants: unknown[] = [
    good,
    { ...good, extra: 1, protocol: { min: 1, max: 2, x: 3 }, executable: { ...good.executable, more: true } },
    { ...good, token: "t" },
  ];
  // Every field missing, and every field of the wrong kind, in turn.
  const wrong: Record<string, unknown[]> = {
    schemaVersion: ["1", null, 1.5],
    pid: [0, -1, 1.5, "4242", null],
    processIdentity: [1, null],
    endpoint: [1, null, []],
    startedAt: [0, null],
    version: [1, null],
    protocol: [null, [], { min: 1 }, { min: "1", max: 1 }, { min: 1, max: 1.5 }, "1"],
    executable: [null, [], { version: "x", path: "y" }, { version: "x", path: 1, identity: "z" }, "x"],
    token: [1, null, {}],
  };
  for (const key of Object.keys(good)) {
    const { [key]: _gone, ...rest } = good as Record<string, unknown>;
    variants.push(rest);
    for (const w of wrong[key] ?? []) variants.push({ ...good, [key]: w });
  }
  variants.push(null, [], [good], "locator", 1, true, {});
  for (const value of variants) {
    const parsed = v.safeParse(locatorSchema(), value);
    const expected = parsed.success ? JSON.stringify(parsed.output) : undefined;
    const read = readLocatorValue(value);
    expect([JSON.stringify(value), read === undefined ? undefined : JSON.stringify(read)]).toEqual([
      JSON.stringify(value),
      expected,
    ]);
  }
  // Sanity: the good one and the one with extra fields pass, stripped to the known fields.
  expect(readLocatorValue(variants[0])).toEqual(good);
  expect(readLocatorValue(variants[1])).toEqual({ ...good, protocol: { min: 1, max: 2 } });
});
