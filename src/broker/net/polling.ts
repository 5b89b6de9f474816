/**
 * A page's own polling, told apart from the requests an action starts.
 *
 * A GET to an address (origin and path) the page fetched again and again before the action
 * is background, so a page that polls does not hold every action to the network cap. Two
 * signals still give an action's own GET to that address back to the action:
 *
 * 1. Its call site. Without the Runtime or Debugger domain, Chromium's requestWillBeSent
 *    carries the initiator's top stack frame only (the function that called fetch or
 *    XHR.send, with script, line and column; no async parent). A request made from a place the
 *    poll never fetched from (a Refresh handler, a search box's debounce) is the action's:
 *    exact, no timing involved.
 * 2. The poll's rhythm (rhythm.ts), when the call site is the poll's own (a shared `load()`,
 *    a fetch wrapper such as axios, whose top frame is the same for every request). A poll
 *    makes one request per beat; a second one in a beat, started from the input until
 *    DISPATCH_SLACK_MS after its acknowledgement, is the action's. This is a timing signal,
 *    needed because the call site cannot tell there, and kept narrow: polls slower than 50 ms
 *    only, near the input only, on the page's clock (the requests' own timestamps), not the
 *    time the events reach us.
 *
 * Neither costs a CDP call: both read the network events the action watches anyway.
 */
import type { Protocol } from "devtools-protocol";
import type { CdpSession } from "../../cdp/session.ts";
import { Beat, RHYTHM_MIN_STARTS, rhythmOf } from "./rhythm.ts";

/** How far back a session's request starts are remembered, and how many at most. */
const RECENT_MS = 5_000;
const RECENT_MAX = 200;
/**
 * A page that fetched (GET) the same address this many times within RECENT_MS, spread over at
 * least POLL_SPAN_MS (a page load's burst of pages 1, 2, 3 is no polling), polls it.
 */
const POLLED_AFTER = RHYTHM_MIN_STARTS;
const POLL_SPAN_MS = 250;
/** How long after the action's input was acknowledged a request of the poll's own call site may still be the action's. */
export const DISPATCH_SLACK_MS = 50;

type RequestSent = Protocol.Network.RequestWillBeSentEvent;

/**
 * One remembered GET: request id, address, call site, the page's start time and, once
 * known, its response's end (ms), and how late its start reached us. `doubt`: seen near an
 * action's input, maybe the action's: it tells that its beat was taken, not what the poll's
 * rhythm is.
 */
interface Sent {
  id: string;
  key: string;
  site: string;
  ts: number;
  end?: number;
  at: number;
  lag: number;
  doubt?: true;
}

class History {
  readonly list: Sent[] = [];
  private readonly byId = new Map<string, Sent>();
  /** Actions running on the session now: what starts meanwhile may be theirs, so it is not counted as the page's own. */
  acting = 0;
  listening = false;

  add(s: Sent): void {
    this.list.push(s);
    this.byId.set(s.id, s);
    while (this.list.length > RECENT_MAX || (this.list.length > 0 && s.at - (this.list[0]?.at ?? s.at) > RECENT_MS)) {
      const old = this.list.shift();
      if (old && this.byId.get(old.id) === old) this.byId.delete(old.id);
    }
  }

  ended(id: string, ts: number): void {
    const s = this.byId.get(id);
    if (s) s.end = ts;
  }
}

const histories = new WeakMap<CdpSession, History>();

function historyOf(session: CdpSession): History {
  let h = histories.get(session);
  if (!h) {
    h = new History();
    histories.set(session, h);
  }
  return h;
}

/**
 * A GET's origin and path (a poller's query, a timestamp or cursor, changes every time);
 * undefined for any other method: a POST to the address the page polls (sending a message to
 * the list it refreshes, any GraphQL call) is never taken for polling.
 */
export function requestKey(method: string, url: string): string | undefined {
  if (method !== "GET") return undefined;
  const q = url.search(/[?#]/);
  return q < 0 ? url : url.slice(0, q);
}

/** Where the request was made: the initiator's top frame (script, line, column), or its kind when no script made it. */
export function callSite(p: Pick<RequestSent, "initiator">): string {
  const f = p.initiator.stack?.callFrames[0];
  return f ? `${f.url || f.scriptId}:${f.lineNumber}:${f.columnNumber}` : p.initiator.type;
}

function fetchKey(p: RequestSent): string | undefined {
  return p.type === "XHR" || p.type === "Fetch" ? requestKey(p.request.method, p.request.url) : undefined;
}

/** Remembers a session's XHR/fetch GETs that no action was running for, from the moment its network events are on. */
export function rememberRequests(session: CdpSession): void {
  const h = historyOf(session);
  if (h.listening) return;
  h.listening = true;
  session.on("Network.requestWillBeSent", (p) => {
    if (h.acting > 0) return;
    const key = fetchKey(p);
    if (key === undefined) return;
    const at = performance.now();
    h.add({ id: p.requestId, key, site: callSite(p), ts: p.timestamp * 1000, at, lag: at - p.timestamp * 1000 });
  });
  // Ends are kept during actions too: a chain's next start is timed from its last answer.
  session.on("Network.loadingFinished", (p) => h.ended(p.requestId, p.timestamp * 1000));
  session.on("Network.loadingFailed", (p) => h.ended(p.requestId, p.timestamp * 1000));
}

/**
 * What one action makes of the requests to addresses the page polls (see the top of this
 * file). Created before the action's first call; the session's own history stops while it runs.
 */
export class ActionPolls {
  /** Polled address → call sites the poll fetched it from → that site's beat (null: too fast or too few to time). */
  private readonly polled = new Map<string, Map<string, Beat | null>>();
  /** Requests already given to the action (a beat may name its holder again). */
  private readonly given = new Set<string>();
  /** Starts from call sites the poll never used, by address and site: one that keeps fetching is a poll too. */
  private readonly novel = new Map<string, number[]>();
  /** The poll-site requests seen, for the history once the action is over. */
  private readonly ticks: Sent[] = [];
  /** The beat each poll-site request (and each poll's last start before the action) belongs to. */
  private readonly beatOf = new Map<string, Beat>();
  /** Page-clock start of the poll-site requests seen, by request id. */
  private readonly starts = new Map<string, number>();
  /** Our clock minus the page's, at its smallest (the least delivery delay seen). */
  private offset = Infinity;
  private windowStart = Infinity;
  private windowEnd = Infinity;
  private readonly history: History;
  private done = false;

  constructor(session: CdpSession) {
    const h = historyOf(session);
    this.history = h;
    h.acting++;
    const now = performance.now();
    const byKey = new Map<string, Sent[]>();
    for (const s of h.list) {
      if (now - s.at > RECENT_MS) continue;
      this.offset = Math.min(this.offset, s.lag);
      byKey.set(s.key, [...(byKey.get(s.key) ?? []), s]);
    }
    for (const [key, all] of byKey) {
      const list = all.filter((s) => !s.doubt);
      if (list.length < POLLED_AFTER || (list[list.length - 1]?.at ?? 0) - (list[0]?.at ?? 0) < POLL_SPAN_MS) continue;
      const sites = new Map<string, Beat | null>();
      for (const site of new Set(list.map((s) => s.site))) {
        const rhythm = rhythmOf(list.filter((s) => s.site === site));
        const last = all.filter((s) => s.site === site).at(-1);
        const beat = rhythm && last ? new Beat(rhythm, last) : null;
        if (beat && last) this.beatOf.set(last.id, beat);
        sites.set(site, beat);
      }
      this.polled.set(key, sites);
    }
  }

  /** The action's input goes out now. */
  dispatching(): void {
    this.windowStart = performance.now();
    this.windowEnd = Infinity;
  }

  /** The action's input was acknowledged. */
  dispatched(): void {
    this.windowEnd = performance.now() + DISPATCH_SLACK_MS;
  }

  /**
   * The requests this start makes the action's: itself, unless it is the page's polling, and
   * possibly an earlier one of the poll's call site that this start shows was extra.
   */
  claim(p: RequestSent): string[] {
    const key = fetchKey(p);
    const sites = key === undefined ? undefined : this.polled.get(key);
    if (key === undefined || !sites) return [p.requestId];
    const site = callSite(p);
    const beat = sites.get(site);
    const ts = p.timestamp * 1000;
    if (beat === undefined) return this.polling(`${key} ${site}`, ts) ? [] : [p.requestId];
    const at = performance.now();
    this.offset = Math.min(this.offset, at - ts);
    if (!beat) return [];
    this.starts.set(p.requestId, ts);
    this.beatOf.set(p.requestId, beat);
    const judged = beat.judge(p.requestId, ts);
    const extra = judged.filter((id) => !this.given.has(id) && this.nearInput(this.starts.get(id)));
    for (const id of extra) this.given.add(id);
    this.ticks.push({ id: p.requestId, key, site, ts, at, lag: at - ts });
    return extra;
  }

  /** A request's response ended (or it failed). */
  ended(p: { requestId: string; timestamp: number }): void {
    const ts = p.timestamp * 1000;
    this.beatOf.get(p.requestId)?.ended(p.requestId, ts);
    const t = this.ticks.find((x) => x.id === p.requestId);
    if (t) t.end = ts;
  }

  /**
   * Whether a new call site has fetched the polled address POLLED_AFTER times over
   * POLL_SPAN_MS during this action: a poll the action started, or the page's own under a
   * new site. Its first requests were waited for; the rest, like any poll, are not.
   */
  private polling(k: string, ts: number): boolean {
    const starts = [...(this.novel.get(k) ?? []), ts];
    this.novel.set(k, starts);
    return starts.length >= POLLED_AFTER && ts - (starts[0] ?? ts) >= POLL_SPAN_MS;
  }

  private nearInput(ts: number | undefined): boolean {
    if (ts === undefined || !Number.isFinite(this.offset)) return false;
    const at = ts + this.offset;
    return at >= this.windowStart - 1 && at <= this.windowEnd;
  }

  /** The action ended: the session's own history goes on. */
  stop(): void {
    if (this.done) return;
    this.done = true;
    this.history.acting = Math.max(0, this.history.acting - 1);
    // The poll's starts keep its history going across back-to-back actions. Those near the
    // input, or taken by the action, may be the action's: they mark their beat as taken but
    // do not shape the rhythm the next action is judged by.
    for (const t of this.ticks) this.history.add(this.given.has(t.id) || this.nearInput(t.ts) ? { ...t, doubt: true } : t);
  }
}
