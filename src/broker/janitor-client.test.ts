import { expect, test } from "bun:test";
import { LineBatcher } from "./janitor-client.ts";

/** A sink that records each write as the janitor's stdin would receive it. */
function recordingSink() {
  const writes: string[] = [];
  let flushes = 0;
  return { writes, flushes: () => flushes, sink: { write: (c: string) => writes.push(c), flush: () => flushes++ } };
}

test("lines queued in one turn go out in one write, in order; a later turn writes again", async () => {
  const { writes, flushes, sink } = recordingSink();
  const out = new LineBatcher(sink);
  out.push('{"id":1,"method":"Input.dispatchMouseEvent"}');
  out.push('{"id":2,"method":"Input.dispatchMouseEvent"}');
  out.push('!{"op":"own","targetId":"T"}');
  // Nothing is written before the turn ends…
  expect(writes).toEqual([]);
  await Promise.resolve();
  // …then all of it at once, each line whole and in the order sent.
  expect(writes).toEqual(['{"id":1,"method":"Input.dispatchMouseEvent"}\n{"id":2,"method":"Input.dispatchMouseEvent"}\n!{"op":"own","targetId":"T"}\n']);
  expect(flushes()).toBe(1);
  out.push('{"id":3}');
  await Promise.resolve();
  expect(writes.slice(1)).toEqual(['{"id":3}\n']);
  expect(flushes()).toBe(2);
});

test("a sink that fails (the janitor gone) loses the lines quietly and the next turn writes again", async () => {
  let fail = true;
  const writes: string[] = [];
  const out = new LineBatcher({
    write: (c: string) => {
      if (fail) throw new Error("EPIPE");
      writes.push(c);
    },
    flush: () => undefined,
  });
  out.push("a");
  await Promise.resolve();
  fail = false;
  out.push("b");
  await Promise.resolve();
  expect(writes).toEqual(["b\n"]);
});
