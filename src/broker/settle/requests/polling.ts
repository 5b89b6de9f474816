/** A page's own polling, told apart from the requests an action starts. */
import type { Protocol } from "devtools-protocol";
import type { CdpSession } from "../../../cdp/session.ts";
import { type Clock, InputSpans, wallClock } from "./input-spans.ts";
import { Beat, median, RHYTHM_MIN_STARTS, rhythmOf } from "./rhythm.ts";
import { rememberSockets } from "./sockets.ts";

export { type Clock, InputSpans } from "./input-spans.ts";

/** How far back a session's request starts are remembered, and how many at most. */
const RECENT_MS = 5_000;
const RECENT_MAX = 200;
/** A call site that fetched the same address this many times within RECENT_MS, spread over at least POLL_SPAN_MS, polls it. */
const POLLED_AFTER = RHYTHM_MIN_STARTS;
const POLL_SPAN_MS = 250;

type RequestSent = Protocol.Network.RequestWillBeSentEvent;
/** What is read from a session: its events only (a test gives a fake one). */
export type NetEvents = Pick<CdpSession, "on">;

/** One remembered GET: request id, address, call site, the page's start time and, once known, its response's end, and how late its start reached us. */
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

  constructor(readonly now: Clock) {}

  add(s: Sent): void {
    // Two actions open at once (a dialog answer while the click it blocked waits) both hand back the ticks they saw.
    if (this.byId.has(s.id)) return;
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

const histories = new WeakMap<NetEvents, History>();

function historyOf(session: NetEvents, now: Clock): History {
  let h = histories.get(session);
  if (!h) {
    h = new History(now);
    histories.set(session, h);
  }
  return h;
}

/** A GET's origin and path (a poller's query, a timestamp or cursor, changes every time). */
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

/** A redirect hop reuses its request's id: the same request again, not a new start. */
export const isRedirectHop = (p: Pick<RequestSent, "redirectResponse">): boolean => p.redirectResponse !== undefined;

function fetchKey(p: RequestSent): string | undefined {
  return p.type === "XHR" || p.type === "Fetch" ? requestKey(p.request.method, p.request.url) : undefined;
}

/** Remembers a session's XHR/fetch GETs that no action was running for, from the moment its network events are on. */
export function rememberRequests(session: NetEvents, now: Clock = wallClock): void {
  const h = historyOf(session, now);
  if (h.listening) return;
  h.listening = true;
  // And what it sends over its WebSockets by itself (sockets.ts).
  rememberSockets(session);
  session.on("Network.requestWillBeSent", (p) => {
    if (h.acting > 0 || isRedirectHop(p)) return;
    const key = fetchKey(p);
    if (key === undefined) return;
    const at = h.now();
    h.add({ id: p.requestId, key, site: callSite(p), ts: p.timestamp * 1000, at, lag: at - p.timestamp * 1000 });
  });
  // Ends are kept during actions too: a chain's next start is timed from its last answer.
  session.on("Network.loadingFinished", (p) => h.ended(p.requestId, p.timestamp * 1000));
  session.on("Network.loadingFailed", (p) => h.ended(p.requestId, p.timestamp * 1000));
}

/** A call site's requests seen during the action; `counted`: started after the action's dispatch. */
interface NovelStart {
  id: string;
  ts: number;
  counted: boolean;
}

/** Whether a new call site's starts are a poll. */
function novelPoll(all: NovelStart[], ends: Map<string, number>): boolean {
  const counted = all.filter((s) => s.counted);
  const first = counted[0];
  const last = counted.at(-1);
  if (!first || !last || counted.length < POLLED_AFTER || last.ts - first.ts < POLL_SPAN_MS) return false;
  const gaps = counted.slice(1).map((s, i) => s.ts - (counted[i]?.ts ?? s.ts));
  const typical = median(gaps);
  const tol = Math.max(5, typical * 0.25);
  if (gaps.filter((g) => Math.abs(g - typical) <= tol).length * 3 < gaps.length * 2) return false;
  const followUps = counted.filter((s) => {
    const before = all[all.indexOf(s) - 1];
    const end = before ? ends.get(before.id) : undefined;
    return end !== undefined && s.ts - end < Math.max(4, typical * 0.1);
  }).length;
  return followUps * 2 < counted.length;
}

/** What one action makes of the requests to addresses the page polls (see the top of this file). */
export class ActionPolls {
  /** Polled address → the call sites that poll it → that site's beat. */
  private readonly polled = new Map<string, Map<string, Beat | null | "untimed">>();
  /** Requests already given to the action (a beat may name its holder again). */
  private readonly given = new Set<string>();
  /** Starts from the other call sites, by address and site: one that keeps fetching is a poll too. */
  private readonly novel = new Map<string, { starts: NovelStart[]; poll: boolean }>();
  /** Response ends (page clock) of the requests seen. */
  private readonly ends = new Map<string, number>();
  /** The poll-site requests seen, for the history once the action is over. */
  private readonly ticks: Sent[] = [];
  /** The beat each poll-site request (and each poll's last start before the action) belongs to. */
  private readonly beatOf = new Map<string, Beat>();
  /** Page-clock start of the poll-site requests seen, by request id. */
  private readonly starts = new Map<string, number>();
  /** Our clock minus the page's, at its smallest (the least delivery delay seen). */
  private offset = Infinity;
  /** When the action is near an input (shared by every session the action watches). */
  readonly spans: InputSpans;
  private readonly history: History;
  private done = false;

  constructor(session: NetEvents, spans: InputSpans = new InputSpans()) {
    this.spans = spans;
    const h = historyOf(session, spans.now);
    this.history = h;
    h.acting++;
    const at = h.now();
    const byKey = new Map<string, Sent[]>();
    for (const s of h.list) {
      if (at - s.at > RECENT_MS) continue;
      this.offset = Math.min(this.offset, s.lag);
      byKey.set(s.key, [...(byKey.get(s.key) ?? []), s]);
    }
    for (const [key, all] of byKey) {
      const sites = new Map<string, Beat | null | "untimed">();
      for (const site of new Set(all.map((s) => s.site))) {
        // Overlapping actions hand their ticks back out of order.
        const mine = all.filter((s) => s.site === site).sort((a, b) => a.ts - b.ts);
        const last = mine.at(-1);
        // A site seen once or twice (a refresh on load or on focus) is no poll.
        if (!last || mine.length < POLLED_AFTER || last.at - (mine[0]?.at ?? last.at) < POLL_SPAN_MS) continue;
        // Doubtful starts say the site polls, but not when.
        const certain = mine.filter((s) => !s.doubt);
        const rhythm = rhythmOf(certain);
        if (rhythm) {
          const beat = new Beat(rhythm, last);
          this.beatOf.set(last.id, beat);
          sites.set(site, beat);
        } else sites.set(site, certain.length < RHYTHM_MIN_STARTS && rhythmOf(mine) ? "untimed" : null);
      }
      if (sites.size > 0) this.polled.set(key, sites);
    }
  }

  /** The requests this start makes the action's. */
  claim(p: RequestSent): string[] {
    const key = fetchKey(p);
    const sites = key === undefined ? undefined : this.polled.get(key);
    if (key === undefined || !sites) return [p.requestId];
    const site = callSite(p);
    const beat = sites.get(site);
    const ts = p.timestamp * 1000;
    const at = this.history.now();
    this.offset = Math.min(this.offset, at - ts);
    if (beat === undefined) return this.polling(`${key} ${site}`, p.requestId, ts) ? [] : [p.requestId];
    this.ticks.push({ id: p.requestId, key, site, ts, at, lag: at - ts });
    if (!beat) return [];
    if (beat === "untimed") {
      if (!this.nearInput(ts)) return [];
      this.given.add(p.requestId);
      return [p.requestId];
    }
    this.starts.set(p.requestId, ts);
    this.beatOf.set(p.requestId, beat);
    const judged = beat.judge(p.requestId, ts);
    const extra = judged.filter((id) => !this.given.has(id) && this.nearInput(this.starts.get(id)));
    for (const id of extra) this.given.add(id);
    return extra;
  }

  /** A request's response ended (or it failed). */
  ended(p: { requestId: string; timestamp: number }): void {
    const ts = p.timestamp * 1000;
    this.ends.set(p.requestId, ts);
    this.beatOf.get(p.requestId)?.ended(p.requestId, ts);
    const t = this.ticks.find((x) => x.id === p.requestId);
    if (t) t.end = ts;
  }

  /** Whether a new call site keeps fetching the polled address on its own during this action (novelPoll). */
  private polling(k: string, id: string, ts: number): boolean {
    // Only starts after the dispatch count: a debounce per key, with a delay between the keys, fetches away from every key yet at regular gaps.
    let n = this.novel.get(k);
    if (!n) {
      n = { starts: [], poll: false };
      this.novel.set(k, n);
    }
    if (n.poll) return true;
    const counted = !this.within(ts, (at) => this.spans.inDispatch(at));
    n.starts.push({ id, ts, counted });
    n.poll = counted && novelPoll(n.starts, this.ends);
    return n.poll;
  }

  private nearInput(ts: number | undefined): boolean {
    return this.within(ts, (at) => this.spans.nearInput(at));
  }

  /** Whether a page-clock start falls in spans of our clock. */
  private within(ts: number | undefined, spans: (at: number) => boolean): boolean {
    if (ts === undefined || !Number.isFinite(this.offset)) return false;
    return spans(ts + this.offset);
  }

  /** The action ended: the session's own history goes on. */
  stop(): void {
    if (this.done) return;
    this.done = true;
    this.history.acting = Math.max(0, this.history.acting - 1);
    // The poll's starts keep its history going across back-to-back actions.
    for (const t of this.ticks)
      this.history.add(this.given.has(t.id) || this.nearInput(t.ts) ? { ...t, doubt: true } : t);
  }
}
