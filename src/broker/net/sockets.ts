/**
 * WebSocket messages an action sends, told apart from what the page sends on its own.
 *
 * A message the page sends over a socket near one of the action's inputs (a chat's "send" on a
 * click or Enter; not typed text, whose typing indicators answer nothing: InputSpans.nearCommand)
 * is the action's, and its answer on that socket is waited for like a request's response. A
 * socket the page keeps sending on by itself (telemetry, collaborative cursors: at least
 * CHATTY_SENDS messages within RECENT_MS that no action took as its own, while none ran or away
 * from an action's inputs) is the page's chatter: a message on it that happens to fall near an
 * input is not the action's. The history begins when the tab's network events are switched on
 * (its first action), so that first action may take a chatty socket's message for its own and
 * wait WS_REPLY_MAX_MS once. Read from the network events the action watches anyway: no CDP
 * call of its own.
 */
import type { CdpSession } from "../../cdp/session.ts";

/**
 * How long an action waits for the answer to its message. A message nobody answers (a client
 * that only notifies) costs this once, not the network's whole bound.
 */
export const WS_REPLY_MAX_MS = 1_000;
/** How far back a socket's own messages are remembered, and how many make it chatter. */
const RECENT_MS = 5_000;
const CHATTY_SENDS = 3;

type NetEvents = Pick<CdpSession, "on">;

/** Text and binary messages; control frames (ping, pong, close) are the socket's own. */
const isMessage = (opcode: number): boolean => opcode === 1 || opcode === 2;

/**
 * A session's sockets: when the page sent on each by itself (the messages' own timestamps, ms,
 * most recent last): while no action ran, and during actions what was not theirs.
 */
class SocketHistory {
  /** Actions watching the session now: each records what it does not take as its own. */
  acting = 0;
  listening = false;
  private readonly sends = new Map<string, number[]>();

  record(requestId: string, ts: number): void {
    const list = this.sends.get(requestId) ?? [];
    // Two actions open at once (a dialog answer while the click it blocked waits) both see it.
    if (list.includes(ts)) return;
    list.push(ts);
    this.sends.set(requestId, list.filter((t) => ts - t <= RECENT_MS).slice(-CHATTY_SENDS));
  }

  /** Whether the page sent on the socket by itself CHATTY_SENDS times within RECENT_MS before `ts`. */
  chatty(requestId: string, ts: number): boolean {
    return (this.sends.get(requestId) ?? []).filter((t) => t < ts && ts - t <= RECENT_MS).length >= CHATTY_SENDS;
  }

  forget(requestId: string): void {
    this.sends.delete(requestId);
  }
}

const histories = new WeakMap<NetEvents, SocketHistory>();

function historyOf(session: NetEvents): SocketHistory {
  let h = histories.get(session);
  if (!h) {
    h = new SocketHistory();
    histories.set(session, h);
  }
  return h;
}

/** Remembers what the page sends on its sockets while no action runs, from the moment its network events are on. */
export function rememberSockets(session: NetEvents): void {
  const h = historyOf(session);
  if (h.listening) return;
  h.listening = true;
  session.on("Network.webSocketFrameSent", (p) => {
    if (h.acting === 0 && isMessage(p.response.opcode)) h.record(p.requestId, p.timestamp * 1000);
  });
  session.on("Network.webSocketClosed", (p) => h.forget(p.requestId));
}

export interface SocketWatch {
  /** The session is gone (a frame that went): its sockets' answers will never come. */
  drop(): void;
  stop(): void;
}

/**
 * One action's watch of a session's sockets: `begin(id)` when it sends a message of its own on
 * a socket (once per socket), `end(id, answered)` when a message comes back on it, the socket
 * closes or fails, WS_REPLY_MAX_MS passed, or the session went (`drop`). `near` tells whether
 * now is near one of the action's inputs that was more than typed text.
 */
export function watchSockets(session: NetEvents, near: () => boolean, begin: (id: string) => void, end: (id: string, answered: boolean) => void): SocketWatch {
  const h = historyOf(session);
  h.acting++;
  const waiting = new Map<string, ReturnType<typeof setTimeout>>();
  const finish = (id: string, answered: boolean) => {
    const timer = waiting.get(id);
    if (timer === undefined) return;
    clearTimeout(timer);
    waiting.delete(id);
    end(id, answered);
  };
  const offs = [
    session.on("Network.webSocketFrameSent", (p) => {
      if (!isMessage(p.response.opcode)) return;
      const ts = p.timestamp * 1000;
      // Not the action's (away from its inputs, on a chatty socket, or a second message on a
      // socket already waited for): the page's own, which keeps a chatty socket known as such.
      if (waiting.has(p.requestId) || !near() || h.chatty(p.requestId, ts)) {
        if (!waiting.has(p.requestId)) h.record(p.requestId, ts);
        return;
      }
      waiting.set(p.requestId, setTimeout(() => finish(p.requestId, false), WS_REPLY_MAX_MS));
      begin(p.requestId);
    }),
    session.on("Network.webSocketFrameReceived", (p) => {
      if (isMessage(p.response.opcode)) finish(p.requestId, true);
    }),
    session.on("Network.webSocketClosed", (p) => finish(p.requestId, false)),
    session.on("Network.webSocketFrameError", (p) => finish(p.requestId, false)),
  ];
  let stopped = false;
  return {
    drop() {
      for (const id of [...waiting.keys()]) finish(id, false);
    },
    stop() {
      if (stopped) return;
      stopped = true;
      for (const off of offs) off();
      for (const timer of waiting.values()) clearTimeout(timer);
      waiting.clear();
      h.acting = Math.max(0, h.acting - 1);
    },
  };
}
