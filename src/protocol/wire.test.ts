import { expect, test } from "bun:test";
import * as v from "valibot";
import { readReply, replySchema } from "./wire.ts";

/** What the reply schema itself makes of a line: the output, key order included, or a refusal. */
function bySchema(line: string): string | undefined {
  const parsed = v.safeParse(replySchema(), JSON.parse(line));
  return parsed.success ? JSON.stringify(parsed.output) : undefined;
}

function byReadReply(line: string): string | undefined {
  const read = readReply(JSON.parse(line));
  return read === undefined ? undefined : JSON.stringify(read);
}

test("readReply gives what the reply schema gives, for successes and everything else", () => {
  const lines = [
    // successes: printed as they came, `ok` first, the keys valibot never copies dropped
    '{"ok":true}',
    '{"ok":true,"value":2}',
    '{"value":2,"ok":true,"title":"x"}',
    '{"ok":true,"elements":[{"r":1,"t":"link","n":"Home"}],"page":{"vh":1,"dh":2}}',
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
  for (const line of lines) expect([line, byReadReply(line)]).toEqual([line, bySchema(line)]);
  // A `__proto__` key is neither copied nor made the prototype (which JSON would not show).
  const polluted = readReply(JSON.parse('{"ok":true,"__proto__":{"polluted":1}}'));
  expect(polluted === undefined ? undefined : Object.getPrototypeOf(polluted)).toBe(Object.prototype);
  // A success's fields are the reply's own, unchanged.
  expect(readReply(JSON.parse('{"ok":true,"v":{"deep":[1,{"x":null}]}}'))).toEqual({ ok: true, v: { deep: [1, { x: null }] } });
});
