/**
 * A recording hop between Browser Pilot and a real Chromium: `bp connect --cdp-url` points at
 * it, it forwards every message both ways and notes each command the broker sends. Used to
 * count CDP round trips per command against the real browser, so they cannot creep back.
 *
 * Everything from the browser is held back DELAY_MS (in order), so the count does not depend
 * on timing: commands the broker sends without waiting reach the hop long before any answer
 * is let through, and a command that waited for an answer arrives after one was. A command's
 * depth is one more than the deepest of the answers let through since the broker's previous
 * command (the same as that command's when none came between them): the round trips a command
 * costs are its deepest chain, so questions asked beside others (a lookup sent along with the
 * text and the settle) cost what they add to the wait, not their count. Two chains answered
 * together count as the deeper one's (never fewer trips than were waited through).
 */
import type { ServerWebSocket } from "bun";

const DELAY_MS = 25;

export interface Sent {
  /** Method, with the page runtime's steps for page calls ("Runtime.callFunctionOn[ref,act:probe]"). */
  method: string;
  /** Round trips before it on its chain, itself included: 1 + the depth of the last command answered before it. */
  depth: number;
  /** A page call that carried the page runtime's source (its first use in a document). */
  install: boolean;
  /** Characters of page code the command carried (its function declaration or expression). */
  code: number;
}

export interface CdpRecorder {
  /** Browser-level endpoint to hand to `bp connect --cdp-url`. */
  url: string;
  /** Returns the commands sent since the previous mark and starts a new recording. */
  mark(): Sent[];
  /** From now on the hop answers commands that match with this protocol error instead of forwarding them. */
  refuse(match: (method: string, params: Record<string, unknown>) => boolean, message: string): void;
  stop(): void;
}

/** Calls the broker sends without waiting for their answer (src/broker: `void session.send(…)`). */
const RELEASES = new Set(["Runtime.releaseObject", "Runtime.releaseObjectGroup"]);

/** The round trips the broker waited through: its deepest chain of commands, each sent on an answer to the one before. */
export function roundTrips(sent: Sent[]): number {
  return sent.reduce((most, s) => Math.max(most, s.depth), 0);
}

interface Conn {
  up: WebSocket;
  queue: string[];
}

type PageCall = {
  id: number;
  method: string;
  sessionId?: string;
  params?: {
    functionDeclaration?: string;
    arguments?: { value?: { steps?: { fn: string; arg?: { op?: string } }[] } }[];
  };
};

export function startCdpRecorder(upstream: string): CdpRecorder {
  let log: Sent[] = [];
  /** Depth of each command in flight, by the broker's id; the base of the commands sent now; the deepest answer since the last command (-1: none). */
  const depths = new Map<number, number>();
  let base = 0;
  let answeredMax = -1;
  let refusal: { match: (method: string, params: Record<string, unknown>) => boolean; message: string } | undefined;
  const server = Bun.serve<Conn>({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req, srv) {
      return srv.upgrade(req, { data: { up: new WebSocket(upstream), queue: [] } })
        ? undefined
        : new Response("upgrade failed", { status: 400 });
    },
    websocket: {
      maxPayloadLength: 256 * 1024 * 1024,
      open(ws: ServerWebSocket<Conn>) {
        const { up } = ws.data;
        up.onopen = () => {
          for (const m of ws.data.queue.splice(0)) up.send(m);
        };
        up.onmessage = (ev) => {
          const text = String(ev.data);
          const isAnswer = text.startsWith('{"id":');
          const id = isAnswer ? Number(text.slice(6, text.indexOf(",", 6))) : Number.NaN;
          setTimeout(() => {
            if (isAnswer) {
              const depth = depths.get(id);
              depths.delete(id);
              if (depth !== undefined) answeredMax = Math.max(answeredMax, depth);
            }
            ws.send(text);
          }, DELAY_MS);
        };
        up.onclose = () => setTimeout(() => ws.close(), DELAY_MS);
      },
      message(ws, raw) {
        const text = String(raw);
        const msg = JSON.parse(text) as PageCall;
        const steps = msg.params?.arguments?.[0]?.value?.steps;
        const method = steps
          ? `${msg.method}[${steps.map((s) => `${s.fn}${s.arg?.op ? `:${s.arg.op}` : ""}`).join(",")}]`
          : msg.method;
        const code = msg.params?.functionDeclaration?.length ?? 0;
        // A release is sent and never waited for: no trip of its own, and the next call still
        // starts one if an answer came before it.
        const released = RELEASES.has(msg.method);
        if (!released && answeredMax >= 0) {
          base = answeredMax;
          answeredMax = -1;
        }
        const depth = released ? 0 : base + 1;
        if (!released) depths.set(msg.id, depth);
        log.push({ method, depth, install: code > 10_000, code });
        if (refusal?.match(msg.method, (msg.params ?? {}) as Record<string, unknown>)) {
          const answer = JSON.stringify({
            id: msg.id,
            error: { code: -32000, message: refusal.message },
            ...(msg.sessionId ? { sessionId: msg.sessionId } : {}),
          });
          setTimeout(() => {
            if (depths.delete(msg.id)) answeredMax = Math.max(answeredMax, depth);
            ws.send(answer);
          }, DELAY_MS);
          return;
        }
        if (ws.data.up.readyState === WebSocket.OPEN) ws.data.up.send(text);
        else ws.data.queue.push(text);
      },
      close(ws) {
        ws.data.up.close();
      },
    },
  });
  return {
    url: `ws://127.0.0.1:${server.port}/devtools/browser/recorded`,
    mark() {
      const out = log;
      log = [];
      // The next command starts a chain of its own; answers to earlier ones count for nothing.
      base = 0;
      answeredMax = -1;
      depths.clear();
      return out;
    },
    refuse(match, message) {
      refusal = { match, message };
    },
    stop() {
      server.stop(true);
    },
  };
}
