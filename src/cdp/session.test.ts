import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { FakeCdpServer, delay } from "../../test/support/fake-cdp.ts";
import { CdpConnection } from "./connection.ts";
import { CdpClosedError, CdpSessionClosedError, CdpTimeoutError } from "./errors.ts";
import { CdpSession, attachToTarget } from "./session.ts";
import { connectWebSocket, type Transport } from "./transport.ts";

let server: FakeCdpServer;
let conn: CdpConnection;

beforeEach(async () => {
  server = new FakeCdpServer();
  conn = new CdpConnection(await connectWebSocket(server.url));
});

afterEach(async () => {
  conn.close();
  await server.stop();
});

const consoleEvent = (type: string) => ({ type, args: [], executionContextId: 1, timestamp: 0 });

describe("CdpSession", () => {
  test("attachToTarget attaches flat and tags calls with the session id", async () => {
    server.route("Runtime.evaluate", (request) => ({
      result: { result: { type: "string", value: request.sessionId ?? "root" } },
    }));
    const session = await attachToTarget(conn, "T1");
    expect(session.sessionId).toBe("session-T1");
    expect(session.targetId).toBe("T1");
    const attach = server.received.find((r) => r.method === "Target.attachToTarget");
    expect(attach?.params).toEqual({ targetId: "T1", flatten: true });
    const { result } = await session.send("Runtime.evaluate", { expression: "1" });
    expect(result.value).toBe("session-T1");
  });

  test("on() sees only its own session's events", async () => {
    const a = await attachToTarget(conn, "A");
    const b = await attachToTarget(conn, "B");
    const seenA: string[] = [];
    const seenB: string[] = [];
    a.on("Runtime.consoleAPICalled", (params, sessionId) => seenA.push(`${sessionId}:${params.type}`));
    b.on("Runtime.consoleAPICalled", (params) => seenB.push(params.type));
    server.emit("Runtime.consoleAPICalled", consoleEvent("log"), "session-A");
    server.emit("Runtime.consoleAPICalled", consoleEvent("error"), "session-B");
    server.emit("Runtime.consoleAPICalled", consoleEvent("debug"));
    await delay(30);
    expect(seenA).toEqual(["session-A:log"]);
    expect(seenB).toEqual(["error"]);
  });

  test("detach() closes the session, removes its listeners, and later sends fail typed", async () => {
    const session = await attachToTarget(conn, "T1");
    const seen: string[] = [];
    session.on("Runtime.consoleAPICalled", (params) => seen.push(params.type));
    const reasons: string[] = [];
    session.onClose((reason) => reasons.push(reason));
    await session.detach();
    await session.detach();
    expect(session.closed).toBe(true);
    expect(reasons.length).toBe(1);
    expect(server.received.filter((r) => r.method === "Target.detachFromTarget").length).toBe(1);
    server.emit("Runtime.consoleAPICalled", consoleEvent("log"), "session-T1");
    await delay(30);
    expect(seen).toEqual([]);
    const error = await session.send("Runtime.evaluate", { expression: "1" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CdpSessionClosedError);
    expect(error instanceof CdpSessionClosedError && error.sent).toBe(false);
  });

  test("Target.detachedFromTarget from the browser fails that session's pending calls only", async () => {
    server.route("Runtime.evaluate", () => "no-reply");
    const gone = await attachToTarget(conn, "gone");
    const kept = await attachToTarget(conn, "kept");
    const pendingGone = gone.send("Runtime.evaluate", { expression: "1" }).catch((e: unknown) => e);
    const pendingKept = kept.send("Runtime.evaluate", { expression: "1" }, { timeoutMs: 300 }).catch((e: unknown) => e);
    const pendingRoot = conn.send("Runtime.evaluate", { expression: "1" }, { timeoutMs: 300 }).catch((e: unknown) => e);
    await delay(20);
    server.emit("Target.detachedFromTarget", { sessionId: "session-gone", targetId: "gone" });
    const error = await pendingGone;
    expect(error).toBeInstanceOf(CdpSessionClosedError);
    expect(error instanceof CdpSessionClosedError && error.sessionId).toBe("session-gone");
    expect(error instanceof CdpSessionClosedError && error.sent).toBe(true);
    expect(gone.closed).toBe(true);
    expect(kept.closed).toBe(false);
    // The others are untouched: they run into their own deadlines instead.
    expect(await pendingKept).toBeInstanceOf(CdpTimeoutError);
    expect(await pendingRoot).toBeInstanceOf(CdpTimeoutError);
  });

  test("a connection close closes its sessions", async () => {
    const session = await attachToTarget(conn, "T1");
    server.dropAll();
    const reason = await new Promise<string>((resolve) => session.onClose(resolve));
    expect(reason).toStartWith("connection closed");
    expect(await session.send("Page.enable").catch((e: unknown) => e)).toBeInstanceOf(CdpClosedError);
  });
});

/** Delivers frames synchronously, in one batch, as a pipe read with many lines would. */
class ScriptedTransport implements Transport {
  onMessage: ((message: string) => void) | undefined;
  onClose: ((reason: string) => void) | undefined;
  closed = false;
  readonly sent: string[] = [];
  send(message: string): void {
    this.sent.push(message);
  }
  close(): void {
    this.closed = true;
    this.onClose?.("closed by client");
  }
}

test("a detach that arrives in the same batch as the attach reply is not missed", async () => {
  const transport = new ScriptedTransport();
  const local = new CdpConnection(transport);
  const attaching = attachToTarget(local, "T9");
  transport.onMessage?.(JSON.stringify({ id: 1, result: { sessionId: "S9" } }));
  transport.onMessage?.(JSON.stringify({ method: "Target.detachedFromTarget", params: { sessionId: "S9" } }));
  const session = await attaching;
  expect(session).toBeInstanceOf(CdpSession);
  expect(session.closed).toBe(true);
  expect(await session.send("Page.enable").catch((e: unknown) => e)).toBeInstanceOf(CdpSessionClosedError);
  local.close();
});
