import { ActionPolls, type Clock, InputSpans, isRedirectHop, type NetEvents } from "./polling.ts";
import { watchSockets } from "./sockets.ts";

/** A session whose end can be told (a frame's goes with its frame, and its requests then never end). */
type Watched = NetEvents & { onClose?(fn: () => void): () => void };

/** The requests an action starts, from the network events of the sessions it watches. */
export class ActionRequests {
  /** The action's requests still in flight. */
  readonly pending = new Set<string>();
  /** When the last of the action's requests was answered (Date.now()): its body's bytes in (bodyLength), or its end; 0: none yet. */
  responded = 0;
  /** Told when the action's inputs go out and when it waits between them; one for all sessions. */
  readonly inputs: InputSpans;
  private readonly offs: (() => void)[] = [];
  private readonly sessions = new Set<Watched>();
  /** The action's documents in flight, by request id, with the tag of the session they started on. */
  private readonly documents = new Map<string, string>();
  private stopped = false;

  /** `count` is told of each request (or socket message) that is the action's. */
  constructor(
    session: Watched,
    private readonly count: () => void,
    private readonly poke: () => void,
    now?: Clock,
  ) {
    this.inputs = new InputSpans(now);
    this.add(session);
  }

  /** Watches one more session from now on; a session already watched is not watched twice. */
  add(session: Watched): void {
    if (this.stopped || this.sessions.has(session)) return;
    const tag = this.sessions.size === 0 ? "" : `${this.sessions.size}:`;
    this.sessions.add(session);
    const polls = new ActionPolls(session, this.inputs);
    /** Requests to addresses the page polls, taken for the poll's and still in flight. */
    const background = new Set<string>();
    const mine = new Set<string>();
    /** Body bytes still to come of the action's answers whose length is known (bodyLength). */
    const owed = new Map<string, number>();
    // The page has all of an answer once its body's bytes are in: what it does with them is the page's to settle.
    const answered = (id: string) => {
      owed.delete(id);
      if (this.pending.delete(tag + id)) this.responded = Date.now();
      this.poke();
    };
    const done = (p: { requestId: string; timestamp: number }) => {
      polls.ended(p);
      background.delete(p.requestId);
      mine.delete(p.requestId);
      owed.delete(p.requestId);
      const start = this.documents.get(p.requestId);
      this.documents.delete(p.requestId);
      if (this.pending.delete(tag + p.requestId) || (start !== undefined && this.pending.delete(start + p.requestId)))
        this.responded = Date.now();
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
          this.count();
          // An earlier start, shown to be the action's only now, may have ended already.
          if (id === p.requestId || background.delete(id)) {
            this.pending.add(tag + id);
            mine.add(id);
            if (p.type === "Document") this.documents.set(id, tag);
          } else this.responded = Date.now();
        }
        this.poke();
      }),
      session.on("Network.responseReceived", (p) => {
        if (p.type === "Document" || !mine.has(p.requestId) || !this.pending.has(tag + p.requestId)) return;
        const n = bodyLength(p.response);
        if (n === 0) answered(p.requestId);
        else if (n !== undefined) owed.set(p.requestId, n);
      }),
      session.on("Network.dataReceived", (p) => {
        const n = owed.get(p.requestId);
        if (n === undefined) return;
        if (n - p.dataLength > 0) owed.set(p.requestId, n - p.dataLength);
        else answered(p.requestId);
      }),
      session.on("Network.loadingFinished", done),
      session.on("Network.loadingFailed", done),
    );
    // Its WebSocket messages (sockets.ts): each socket it sent on is pending until answered.
    const sockets = watchSockets(
      session,
      () => this.inputs.nearWhich(this.inputs.now()),
      (id) => {
        this.pending.add(`${tag}ws:${id}`);
        this.count();
        this.poke();
      },
      (id, answered) => {
        if (this.pending.delete(`${tag}ws:${id}`) && answered) this.responded = Date.now();
        this.poke();
      },
    );
    this.offs.push(() => sockets.stop());
    // A frame that goes takes its requests and its sockets along.
    const off = session.onClose?.(() => {
      for (const id of mine) this.pending.delete(tag + id);
      mine.clear();
      owed.clear();
      sockets.drop();
      this.poke();
    });
    if (off) this.offs.push(off);
  }

  /** The action is over: no more events are read, and each session's history goes on. */
  stop(): void {
    this.stopped = true;
    for (const off of this.offs.splice(0)) off();
  }
}

/**
 * The bytes of an answer's body as the page gets them, when the answer says: its Content-Length,
 * unencoded (a compressed body's decoded size is not known ahead); 0 for an answer without a body.
 * Over HTTP/1.x only, where a sized body ends with its last byte: over HTTP/2 and 3 it ends with
 * the stream, which a server may close later, and the page's read of the body waits for that.
 * Chromium ends a fetch whose body the page never reads (a fire-and-forget log call) some 50 ms
 * after its bytes arrived; the bytes are what the page could act on, so they end the wait.
 */
export function bodyLength(response: {
  status: number;
  headers: Record<string, string>;
  protocol?: string;
  fromServiceWorker?: boolean;
}): number | undefined {
  const protocol = response.protocol?.toLowerCase();
  if (protocol !== "http/1.1" && protocol !== "http/1.0") return undefined;
  // A service worker's own answer is labelled HTTP/1.1 but ends when the worker closes its stream.
  if (response.fromServiceWorker === true) return undefined;
  if (response.status === 204 || response.status === 304) return 0;
  let length: string | undefined;
  for (const [k, v] of Object.entries(response.headers)) {
    const name = k.toLowerCase();
    // A chunked body's length is its chunks', whatever Content-Length says.
    if (name === "transfer-encoding") return undefined;
    if (name === "content-encoding" && v.trim().toLowerCase() !== "identity") return undefined;
    if (name === "content-length") length = v;
  }
  const n = length === undefined || !/^\s*\d+\s*$/.test(length) ? Number.NaN : Number(length);
  return Number.isSafeInteger(n) ? n : undefined;
}
