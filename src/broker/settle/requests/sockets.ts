/** WebSocket messages an action sends, told apart from what the page sends on its own. */
import type { CdpSession } from "../../../cdp/session.ts";
import { wallClock } from "./input-spans.ts";

/** How long an action waits for the answer to its message. */
export const WS_REPLY_MAX_MS = 1_000;
/** How far back a socket's own messages are remembered, and how many make it chatter. */
const RECENT_MS = 5_000;
const CHATTY_SENDS = 3;
/** A socket that left an action's message unanswered is not waited on again for this long. */
const SILENT_MS = 60_000;

type NetEvents = Pick<CdpSession, "on">;

/** Text and binary messages; control frames (ping, pong, close) are the socket's own. */
const isMessage = (opcode: number): boolean => opcode === 1 || opcode === 2;

/** A session's sockets: when the page sent on each by itself (the messages' own timestamps, ms, most recent last). */
class SocketHistory {
  /** Actions watching the session now: each records what was sent away from its inputs. */
  acting = 0;
  listening = false;
  private readonly sends = new Map<string, number[]>();
  private readonly silent = new Map<string, number>();

  /** Answered nothing to an action's message: not waited on for SILENT_MS. */
  silence(requestId: string): void {
    this.silent.set(requestId, wallClock() + SILENT_MS);
  }

  /** Whether an action should not wait on the socket: chatter, or silent lately. */
  background(requestId: string, ts: number): boolean {
    return this.chatty(requestId, ts) || (this.silent.get(requestId) ?? 0) > wallClock();
  }

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
    this.silent.delete(requestId);
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

/** One action's watch of a session's sockets. */
export function watchSockets(
  session: NetEvents,
  near: () => "command" | "text" | undefined,
  begin: (id: string) => void,
  end: (id: string, answered: boolean) => void,
): SocketWatch {
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
      const input = near();
      // Away from every input of the action: the page's own, which keeps a chatty socket known as such.
      if (input === undefined) h.record(p.requestId, ts);
      if (input !== "command" || waiting.has(p.requestId) || h.background(p.requestId, ts)) return;
      waiting.set(
        p.requestId,
        setTimeout(() => {
          h.silence(p.requestId);
          finish(p.requestId, false);
        }, WS_REPLY_MAX_MS),
      );
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
