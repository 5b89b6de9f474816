import { describe, expect, test } from "bun:test";
import { rememberSockets, watchSockets, WS_REPLY_MAX_MS } from "./sockets.ts";

type Listener = (p: unknown) => void;

/** A session whose events the test emits. */
function fakeSession() {
  const listeners = new Map<string, Listener[]>();
  const session = {
    on(event: string, fn: Listener) {
      const list = listeners.get(event) ?? [];
      list.push(fn);
      listeners.set(event, list);
      return () => list.splice(list.indexOf(fn), 1);
    },
  };
  const emit = (event: string, p: unknown) => {
    for (const fn of [...(listeners.get(event) ?? [])]) fn(p);
  };
  /** A message sent on socket `id` at page time `ms`. */
  const sent = (id: string, ms: number, opcode = 1) =>
    emit("Network.webSocketFrameSent", {
      requestId: id,
      timestamp: ms / 1000,
      response: { opcode, mask: true, payloadData: "x" },
    });
  const received = (id: string, ms: number, opcode = 1) =>
    emit("Network.webSocketFrameReceived", {
      requestId: id,
      timestamp: ms / 1000,
      response: { opcode, mask: false, payloadData: "y" },
    });
  rememberSockets(session as never);
  return {
    session: session as never,
    sent,
    received,
    emit,
    count: (event: string) => listeners.get(event)?.length ?? 0,
  };
}

/** One action's watch: what it took as its own and how each wait ended. */
function action(s: ReturnType<typeof fakeSession>, near: () => "command" | "text" | undefined = () => "command") {
  const begun: string[] = [];
  const ended: [string, boolean][] = [];
  const w = watchSockets(
    s.session,
    near,
    (id) => begun.push(id),
    (id, answered) => ended.push([id, answered]),
  );
  return { w, begun, ended };
}

describe("an action's WebSocket messages", () => {
  test("a message near the input is the action's until a message comes back on that socket", () => {
    const s = fakeSession();
    const a = action(s);
    s.sent("chat", 1000);
    s.sent("chat", 1001);
    s.received("other", 1002);
    expect(a.begun).toEqual(["chat"]);
    expect(a.ended).toEqual([]);
    s.received("chat", 1150);
    expect(a.ended).toEqual([["chat", true]]);
    a.w.stop();
  });

  test("control frames are not messages; a close, an error or a frame that went end the wait unanswered", () => {
    const s = fakeSession();
    const a = action(s);
    s.sent("a", 1000, 9);
    expect(a.begun).toEqual([]);
    s.sent("a", 1001);
    s.received("a", 1002, 10);
    s.sent("b", 1003);
    s.sent("c", 1004);
    s.emit("Network.webSocketClosed", { requestId: "a", timestamp: 1.01 });
    s.emit("Network.webSocketFrameError", { requestId: "b", timestamp: 1.01, errorMessage: "x" });
    a.w.drop();
    expect(a.ended).toEqual([
      ["a", false],
      ["b", false],
      ["c", false],
    ]);
    a.w.stop();
  });

  test("away from the action's inputs a message is the page's own", () => {
    const s = fakeSession();
    const a = action(s, () => undefined);
    s.sent("beat", 1000);
    expect(a.begun).toEqual([]);
    a.w.stop();
  });

  test("a socket the page sent on three times within 5 s by itself is chatter, while no action ran or away from an action's inputs", () => {
    const s = fakeSession();
    for (const t of [1000, 1100, 1200]) s.sent("stream", t);
    let near: "command" | undefined;
    const a = action(s, () => near);
    s.sent("other", 1250);
    s.sent("other", 1260);
    s.sent("other", 1270);
    near = "command";
    s.sent("stream", 1300);
    s.sent("other", 1310);
    s.sent("fresh", 1320);
    expect(a.begun).toEqual(["fresh"]);
    a.w.stop();
    // Older than 5 s: no longer chatter.
    const b = action(s);
    s.sent("stream", 7000);
    expect(b.begun).toEqual(["stream"]);
    b.w.stop();
  });

  test("typing indicators on the chat's own socket are neither the action's nor chatter: the Enter's message after them is the action's", () => {
    const s = fakeSession();
    let near: "command" | "text" = "text";
    const a = action(s, () => near);
    for (const t of [1000, 1010, 1020, 1030]) s.sent("chat", t);
    expect(a.begun).toEqual([]);
    near = "command";
    s.sent("chat", 1040);
    expect(a.begun).toEqual(["chat"]);
    a.w.stop();
  });

  test("a socket that left an action's message unanswered is not waited on by the next actions", async () => {
    const s = fakeSession();
    const a = action(s);
    s.sent("cursor", 1000);
    expect(a.begun).toEqual(["cursor"]);
    await Bun.sleep(WS_REPLY_MAX_MS + 50);
    expect(a.ended).toEqual([["cursor", false]]);
    a.w.stop();
    const b = action(s);
    s.sent("cursor", 3000);
    s.sent("chat", 3001);
    expect(b.begun).toEqual(["chat"]);
    b.w.stop();
  });

  test("the action's own messages do not make their socket chatter: a chat sent on back to back stays the actions'", () => {
    const s = fakeSession();
    for (let i = 0; i < 5; i++) {
      const a = action(s);
      s.sent("chat", 1000 + i * 10);
      s.received("chat", 1005 + i * 10);
      expect(a.begun).toEqual(["chat"]);
      a.w.stop();
    }
  });

  test("stop removes the action's listeners and leaves the session's memory listening", () => {
    const s = fakeSession();
    const before = s.count("Network.webSocketFrameSent");
    const a = action(s);
    expect(s.count("Network.webSocketFrameSent")).toBe(before + 1);
    a.w.stop();
    a.w.stop();
    expect(s.count("Network.webSocketFrameSent")).toBe(before);
    for (const t of [1000, 1100, 1200]) s.sent("s", t);
    const b = action(s);
    s.sent("s", 1300);
    expect(b.begun).toEqual([]);
    b.w.stop();
  });
});
