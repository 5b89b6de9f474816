import { expect, test } from "bun:test";
import { CdpConnection } from "../cdp/connection.ts";
import { CdpClosedError } from "../cdp/errors.ts";
import type { Transport } from "../cdp/transport.ts";
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
  expect(writes).toEqual([
    '{"id":1,"method":"Input.dispatchMouseEvent"}\n{"id":2,"method":"Input.dispatchMouseEvent"}\n!{"op":"own","targetId":"T"}\n',
  ]);
  expect(flushes()).toBe(1);
  out.push('{"id":3}');
  await Promise.resolve();
  expect(writes.slice(1)).toEqual(['{"id":3}\n']);
  expect(flushes()).toBe(2);
});

test("a sink that fails (the janitor gone) drops that batch and the next turn writes again", async () => {
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

test("a failed write fails the lines of that batch with its error, and only those", async () => {
  let fail = true;
  const out = new LineBatcher({
    write: () => {
      if (fail) throw new Error("EPIPE");
    },
    flush: () => undefined,
  });
  const heard: string[] = [];
  const note = (name: string) => (e: unknown) => heard.push(`${name}:${e instanceof Error ? e.message : String(e)}`);
  out.push("a", note("a"));
  out.push("!control");
  out.push("b", note("b"));
  await Promise.resolve();
  expect(heard).toEqual(["a:EPIPE", "b:EPIPE"]);
  fail = false;
  out.push("c", note("c"));
  await Promise.resolve();
  expect(heard).toEqual(["a:EPIPE", "b:EPIPE"]);
});

test("a flush that fails later fails the batch's lines too", async () => {
  const out = new LineBatcher({ write: () => 1, flush: () => Promise.reject(new Error("EPIPE")) });
  const heard = new Promise<unknown>((resolve) => out.push("a", resolve));
  expect(await heard).toEqual(new Error("EPIPE"));
});

/** The janitor's side of the seam as JanitorClient wires it: frames go through a LineBatcher. */
class BatchedTransport implements Transport {
  onMessage: ((message: string) => void) | undefined;
  onClose: ((reason: string) => void) | undefined;
  closed = false;
  constructor(private readonly out: LineBatcher) {}
  send(message: string, onFailed?: (error: unknown) => void): void {
    this.out.push(message, onFailed);
  }
  close(): void {
    this.closed = true;
    this.onClose?.("closed by client");
  }
}

test("a call whose batched write fails rejects at once with the connection's send-failed error", async () => {
  const out = new LineBatcher({
    write: () => {
      throw new Error("EPIPE");
    },
    flush: () => undefined,
  });
  const conn = new CdpConnection(new BatchedTransport(out));
  // Without the write's error the call would only end at its deadline.
  const [a, b] = await Promise.all(
    (["Browser.getVersion", "Target.getTargets"] as const).map((m) =>
      conn.send(m, undefined, { timeoutMs: 20_000 }).catch((e: unknown) => e),
    ),
  );
  for (const [e, method] of [
    [a, "Browser.getVersion"],
    [b, "Target.getTargets"],
  ] as const) {
    expect(e).toBeInstanceOf(CdpClosedError);
    expect(e).toMatchObject({ method, reason: "send failed: EPIPE", sent: false });
  }
  expect(conn.pendingCount).toBe(0);
  conn.close();
});
