import { ActionPolls, type Clock, InputSpans, isRedirectHop, type NetEvents } from "../net/polling.ts";

/**
 * A message the action sends over a WebSocket (a chat's "send") is answered on that socket: the
 * answer is waited for like a response, this long at most. A message nobody answers (a typing
 * indicator) costs this once, not the network's whole bound.
 */
export const WS_REPLY_MAX_MS = 1_000;
/** Text and binary messages; control frames (ping, pong, close) are the socket's own. */
const isMessage = (opcode: number): boolean => opcode === 1 || opcode === 2;

/** A session whose end can be told (a frame's goes with its frame, and its requests then never end). */
type Watched = NetEvents & { onClose?(fn: () => void): () => void };

/**
 * The requests an action starts, from the network events of the sessions it watches (the
 * tab's, and its out-of-process frames' as they are followed: add()): the documents, XHRs
 * and fetches it is waited for, less the page's own polling (net/polling.ts), judged per
 * session against that session's history. Part of the action's watch (watch.ts), which reads
 * `pending` and `responded`.
 */
export class ActionRequests {
  /** The action's requests still in flight (request ids, tagged with their session but for the first). */
  readonly pending = new Set<string>();
  /** When the last of the action's requests ended (Date.now()); 0: none yet. */
  responded = 0;
  /** Told when the action's inputs go out and when it waits between them (its windows near an input); one for all sessions. */
  readonly inputs: InputSpans;
  private readonly offs: (() => void)[] = [];
  private readonly sessions = new Set<Watched>();
  /**
   * The action's documents in flight, by request id, with the tag of the session they started
   * on. A frame's navigation to another site starts on the session of the frame's parent (or
   * of the frame's old process) and ends on the new frame's own; navigation ids are unique
   * across the browser, so a document ends on whichever watched session tells it.
   */
  private readonly documents = new Map<string, string>();
  private stopped = false;

  /** `effects.requests` counts the action's requests. */
  constructor(
    session: Watched,
    private readonly effects: { requests: number },
    private readonly poke: () => void,
    now?: Clock,
  ) {
    this.inputs = new InputSpans(now);
    this.add(session);
  }

  /** Watches one more session from now on (an out-of-process frame's); a session already watched is not watched twice. */
  add(session: Watched): void {
    if (this.stopped || this.sessions.has(session)) return;
    const tag = this.sessions.size === 0 ? "" : `${this.sessions.size}:`;
    this.sessions.add(session);
    const polls = new ActionPolls(session, this.inputs);
    /** Requests to addresses the page polls, taken for the poll's and still in flight (a later start may show one was the action's). */
    const background = new Set<string>();
    const mine = new Set<string>();
    const done = (p: { requestId: string; timestamp: number }) => {
      polls.ended(p);
      background.delete(p.requestId);
      mine.delete(p.requestId);
      const start = this.documents.get(p.requestId);
      this.documents.delete(p.requestId);
      if (this.pending.delete(tag + p.requestId) || (start !== undefined && this.pending.delete(start + p.requestId))) this.responded = Date.now();
      this.poke();
    };
    this.offs.push(
      () => polls.stop(),
      session.on("Network.requestWillBeSent", (p) => {
        // A redirect hop is the same request again: it was judged at its first start.
        if ((p.type !== "Document" && p.type !== "XHR" && p.type !== "Fetch") || isRedirectHop(p)) return;
        // A request to an address the page polls on its own is background unless it is shown to be this action's.
        const ids = p.type === "Document" ? [p.requestId] : polls.claim(p);
        if (!ids.includes(p.requestId)) background.add(p.requestId);
        for (const id of ids) {
          this.effects.requests++;
          // An earlier start, shown to be the action's only now, may have ended already: its response counts as landed.
          if (id === p.requestId || background.delete(id)) {
            this.pending.add(tag + id);
            mine.add(id);
            if (p.type === "Document") this.documents.set(id, tag);
          } else this.responded = Date.now();
        }
        this.poke();
      }),
      session.on("Network.loadingFinished", done),
      session.on("Network.loadingFailed", done),
      ...this.sockets(session, tag),
    );
    // A frame that goes takes its requests along: none of them will end.
    const off = session.onClose?.(() => {
      for (const id of mine) this.pending.delete(tag + id);
      mine.clear();
      this.poke();
    });
    if (off) this.offs.push(off);
  }

  /**
   * Messages the action sends over the session's WebSockets: each socket it sent on near an
   * input that was more than typed text is pending until a message comes back on it, the socket
   * closes, or WS_REPLY_MAX_MS. A heartbeat sent while the action waits is not near an input,
   * and a typing indicator is near typed text only: neither is waited for.
   */
  private sockets(session: Watched, tag: string): (() => void)[] {
    const waiting = new Map<string, ReturnType<typeof setTimeout>>();
    const end = (requestId: string, answered: boolean) => {
      const timer = waiting.get(requestId);
      if (timer === undefined) return;
      clearTimeout(timer);
      waiting.delete(requestId);
      if (this.pending.delete(`${tag}ws:${requestId}`) && answered) this.responded = Date.now();
      this.poke();
    };
    return [
      session.on("Network.webSocketFrameSent", (p) => {
        if (!isMessage(p.response.opcode) || waiting.has(p.requestId) || !this.inputs.nearCommand(this.inputs.now())) return;
        waiting.set(p.requestId, setTimeout(() => end(p.requestId, false), WS_REPLY_MAX_MS));
        this.pending.add(`${tag}ws:${p.requestId}`);
        this.effects.requests++;
        this.poke();
      }),
      session.on("Network.webSocketFrameReceived", (p) => {
        if (isMessage(p.response.opcode)) end(p.requestId, true);
      }),
      session.on("Network.webSocketClosed", (p) => end(p.requestId, false)),
      session.on("Network.webSocketFrameError", (p) => end(p.requestId, false)),
      () => {
        for (const timer of waiting.values()) clearTimeout(timer);
        waiting.clear();
      },
    ];
  }

  /** The action is over: no more events are read, and each session's history goes on. */
  stop(): void {
    this.stopped = true;
    for (const off of this.offs.splice(0)) off();
  }
}
