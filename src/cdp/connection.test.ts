import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { FakeCdpServer, VERSION, delay } from "../../test/support/fake-cdp.ts";
import { CdpConnection } from "./connection.ts";
import { CdpAbortedError, CdpClosedError, CdpError, CdpTimeoutError } from "./errors.ts";
import { outsideCallScope, withCallScope } from "./scope.ts";
import { connectWebSocket } from "./transport.ts";

let server: FakeCdpServer;
let conn: CdpConnection;
let reported: unknown[];

beforeEach(async () => {
  server = new FakeCdpServer();
  reported = [];
  conn = new CdpConnection(await connectWebSocket(server.url), {
    onHandlerError: (error) => reported.push(error),
  });
});

afterEach(async () => {
  conn.close();
  await server.stop();
});

describe("CdpConnection calls", () => {
  test("typed round trip; ids start at 1 and increment", async () => {
    const version = await conn.send("Browser.getVersion");
    expect(version.product).toBe(VERSION.product);
    await conn.send("Browser.getVersion");
    expect(server.received.map((r) => r.id)).toEqual([1, 2]);
    expect(server.received[0]?.params).toEqual({});
  });

  test("firstId lets a second process use its own id range", async () => {
    const second = new CdpConnection(await connectWebSocket(server.url), { firstId: 1_000_000_000 });
    await second.send("Browser.getVersion");
    await second.send("Browser.getVersion");
    expect(server.received.map((r) => r.id)).toEqual([1_000_000_000, 1_000_000_001]);
    second.close();
  });

  test("an error reply rejects with CdpError whose stack names the caller", async () => {
    server.route("Runtime.evaluate", () => ({
      error: { code: -32000, message: "Cannot find context with specified id", data: "ctx 42" },
    }));
    async function evaluateInMissingContext(): Promise<unknown> {
      return await conn.send("Runtime.evaluate", { expression: "1", contextId: 42 });
    }
    const error = await evaluateInMissingContext().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CdpError);
    if (!(error instanceof CdpError)) return;
    expect(error.code).toBe(-32000);
    expect(error.method).toBe("Runtime.evaluate");
    expect(error.data).toBe("ctx 42");
    expect(error.message).toBe("Runtime.evaluate: Cannot find context with specified id");
    expect(error.stack).toContain("evaluateInMissingContext");
    expect(error.stack).toContain("connection.test.ts");
    expect(error.stack?.split("\n")[0]).toBe(`CdpError: ${error.message}`);
  });

  test("deadline: rejects with CdpTimeoutError, drops the entry, ignores the late reply", async () => {
    let replied = false;
    server.route("Page.navigate", async () => {
      await delay(400);
      replied = true;
      return { result: { frameId: "late" } };
    });
    async function navigateSlowly(): Promise<unknown> {
      return await conn.send("Page.navigate", { url: "about:blank" }, { timeoutMs: 40 });
    }
    const error = await navigateSlowly().catch((e: unknown) => e);
    // The deadline, not the reply, ended the call (no clock bound: a loaded machine delays both).
    expect(replied).toBe(false);
    expect(error).toBeInstanceOf(CdpTimeoutError);
    expect(error instanceof CdpTimeoutError && error.stack).toContain("navigateSlowly");
    expect(conn.pendingCount).toBe(0);
    await server.waitForRequest("Page.navigate");
    await delay(450);
    expect(reported).toEqual([]);
    expect(conn.closed).toBe(false);
    expect((await conn.send("Browser.getVersion")).product).toBe(VERSION.product);
  });

  test("the connection's default deadline applies when a call sets none", async () => {
    const quick = new CdpConnection(await connectWebSocket(server.url), { defaultTimeoutMs: 30 });
    server.route("Browser.getVersion", () => "no-reply");
    await expect(quick.send("Browser.getVersion")).rejects.toBeInstanceOf(CdpTimeoutError);
    quick.close();
  });

  test("a call made inside a command's scope stops at that command's deadline and cancellation", async () => {
    const patient = new CdpConnection(await connectWebSocket(server.url), { defaultTimeoutMs: 30_000 });
    server.route("Browser.getVersion", () => "no-reply");
    const started = performance.now();
    const expired = await withCallScope({ deadline: Date.now() + 40, signal: new AbortController().signal }, () =>
      patient.send("Browser.getVersion"),
    ).catch((e: unknown) => e);
    expect(expired).toBeInstanceOf(CdpTimeoutError);
    expect(performance.now() - started).toBeLessThan(5_000);
    const cancel = new AbortController();
    const pending = withCallScope({ deadline: Date.now() + 30_000, signal: cancel.signal }, () =>
      patient.send("Browser.getVersion"),
    );
    cancel.abort("cancel");
    expect(await pending.catch((e: unknown) => e)).toBeInstanceOf(CdpAbortedError);
    // Shared work opts out: it keeps the connection's own deadline.
    const shared = withCallScope({ deadline: Date.now() + 1, signal: cancel.signal }, () =>
      outsideCallScope(() => conn.send("Target.attachToTarget", { targetId: "t", flatten: true })),
    );
    expect(await shared).toBeDefined();
    patient.close();
  });

  test("replies with unknown ids and unparsable frames are ignored", async () => {
    server.sendRaw(JSON.stringify({ id: 999, result: {} }));
    server.sendRaw("{not json");
    await delay(30);
    expect(reported.length).toBe(1);
    expect((await conn.send("Browser.getVersion")).product).toBe(VERSION.product);
  });

  test("a dropped socket rejects every pending call; later calls fail at once", async () => {
    server.route("Runtime.evaluate", () => "no-reply");
    const calls = [1, 2, 3].map((n) =>
      conn.send("Runtime.evaluate", { expression: String(n) }).catch((e: unknown) => e),
    );
    await server.waitForRequest("Runtime.evaluate");
    await delay(20);
    const closedReasons: string[] = [];
    conn.onClose((reason) => closedReasons.push(reason));
    server.dropAll();
    const errors = await Promise.all(calls);
    for (const error of errors) {
      expect(error).toBeInstanceOf(CdpClosedError);
      expect(error instanceof CdpClosedError && error.sent).toBe(true);
    }
    expect(conn.closed).toBe(true);
    expect(closedReasons.length).toBe(1);
    const later = await conn.send("Browser.getVersion").catch((e: unknown) => e);
    expect(later).toBeInstanceOf(CdpClosedError);
    expect(later instanceof CdpClosedError && later.sent).toBe(false);
  });

  test("close(reason) rejects pending calls with that reason", async () => {
    server.route("Runtime.evaluate", () => "no-reply");
    const pending = conn.send("Runtime.evaluate", { expression: "1" }).catch((e: unknown) => e);
    conn.close("shutting down");
    const error = await pending;
    expect(error).toBeInstanceOf(CdpClosedError);
    expect(error instanceof CdpClosedError && error.reason).toBe("shutting down");
  });

  test("abort before send sends nothing; abort after send says it was sent", async () => {
    server.route("Runtime.evaluate", () => "no-reply");
    const early = new AbortController();
    early.abort(new Error("user cancelled"));
    const notSent = await conn
      .send("Runtime.evaluate", { expression: "1" }, { signal: early.signal })
      .catch((e: unknown) => e);
    expect(notSent).toBeInstanceOf(CdpAbortedError);
    expect(notSent instanceof CdpAbortedError && notSent.sent).toBe(false);
    const late = new AbortController();
    const call = conn.send("Runtime.evaluate", { expression: "2" }, { signal: late.signal }).catch((e: unknown) => e);
    late.abort();
    const sent = await call;
    expect(sent instanceof CdpAbortedError && sent.sent).toBe(true);
    await delay(20);
    expect(server.received.filter((r) => r.method === "Runtime.evaluate").length).toBe(1);
    expect(conn.pendingCount).toBe(0);
  });
});

describe("CdpConnection events", () => {
  test("per-session listeners, all-session listeners, onAny and off", async () => {
    const all: [string | undefined, unknown][] = [];
    const onlyA: unknown[] = [];
    const everything: string[] = [];
    const offAll = conn.on("Runtime.consoleAPICalled", (params, sessionId) => all.push([sessionId, params.type]));
    conn.on("Runtime.consoleAPICalled", (params) => onlyA.push(params.type), { sessionId: "A" });
    conn.onAny((method, _params, sessionId) => everything.push(`${sessionId ?? "root"}:${method}`));
    const event = (type: string) => ({ type, args: [], executionContextId: 1, timestamp: 0 });
    server.emit("Runtime.consoleAPICalled", event("log"), "A");
    server.emit("Runtime.consoleAPICalled", event("warning"), "B");
    server.emit("Runtime.consoleAPICalled", event("error"));
    await delay(30);
    expect(all).toEqual([
      ["A", "log"],
      ["B", "warning"],
      [undefined, "error"],
    ]);
    expect(onlyA).toEqual(["log"]);
    expect(everything).toEqual([
      "A:Runtime.consoleAPICalled",
      "B:Runtime.consoleAPICalled",
      "root:Runtime.consoleAPICalled",
    ]);
    offAll();
    server.emit("Runtime.consoleAPICalled", event("info"), "A");
    await delay(30);
    expect(all.length).toBe(3);
    expect(onlyA).toEqual(["log", "info"]);
  });

  test("a throwing handler is reported and does not starve the others", async () => {
    const seen: string[] = [];
    conn.on("Page.loadEventFired", () => {
      throw new Error("handler bug");
    });
    conn.on("Page.loadEventFired", () => seen.push("second"));
    server.emit("Page.loadEventFired", { timestamp: 1 });
    await delay(30);
    expect(seen).toEqual(["second"]);
    expect(reported.length).toBe(1);
  });
});
