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
 * 2. The poll's rhythm, when the call site is the poll's own (a shared `load()` or a fetch
 *    wrapper such as axios, whose top frame is the same for every request). A poll makes one
 *    request per beat: a setInterval lands on a fixed grid (late ticks are followed by ticks
 *    back on the grid, never two in one slot), a setTimeout chain never comes sooner than its
 *    shortest gap. A second request in a beat, started right after the action's input (from
 *    the dispatch until DISPATCH_SLACK_MS after it), is the action's. This is a timing signal,
 *    so it is used only where the call site cannot tell, only for polls slower than
 *    MIN_TIMED_PERIOD_MS and only near the input; the page's clock (the requests' own
 *    timestamps) is used, not the time the events reach us.
 *
 * Neither costs a CDP call: both read the requestWillBeSent events the action watches anyway.
 */
import type { Protocol } from "devtools-protocol";
import type { CdpSession } from "../../cdp/session.ts";

/** How far back a session's request starts are remembered, and how many at most. */
const RECENT_MS = 5_000;
const RECENT_MAX = 200;
/**
 * A page that fetched (GET) the same address this many times within RECENT_MS, spread over at
 * least POLL_SPAN_MS (a page load's burst of pages 1, 2, 3 is no polling), polls it.
 */
const POLLED_AFTER = 3;
const POLL_SPAN_MS = 250;
/**
 * A faster poll makes a request every few ms after any input: by timing, an action's request
 * from the poll's own call site cannot be told from a tick there, so it is taken as the poll's.
 */
const MIN_TIMED_PERIOD_MS = 50;
/** The most recent starts of one poll that its rhythm is read from (a longer run adds period error). */
const RHYTHM_TICKS = 12;
/** A setInterval tick starts this close after its grid slot (the page's timer and clock precision). */
const GRID_TOL_MS = 2;
/** How long after the action's input was acknowledged a request of the poll's own call site may still be the action's. */
export const DISPATCH_SLACK_MS = 50;

type RequestSent = Protocol.Network.RequestWillBeSentEvent;

/** One remembered GET: address, call site, the page's start time (ms) and how late it reached us. */
interface Sent {
  key: string;
  site: string;
  ts: number;
  at: number;
  lag: number;
}

class History {
  readonly list: Sent[] = [];
  /** Actions running on the session now: what starts meanwhile may be theirs, so it is not counted as the page's own. */
  acting = 0;
  listening = false;

  add(s: Sent): void {
    this.list.push(s);
    while (this.list.length > RECENT_MAX || (this.list.length > 0 && s.at - (this.list[0]?.at ?? s.at) > RECENT_MS)) this.list.shift();
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
    h.add({ key, site: callSite(p), ts: p.timestamp * 1000, at, lag: at - p.timestamp * 1000 });
  });
}

/** How a poll's requests follow one another, read from its recent starts. */
export type Rhythm = { grid: true; period: number; anchor: number } | { grid: false; minGap: number };

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
};

/**
 * The rhythm of one poll's starts (page clock, ms, ascending); undefined when it has too few
 * or polls faster than MIN_TIMED_PERIOD_MS. A grid when most starts lie within GRID_TOL_MS
 * of one phase of the period (a setInterval); otherwise its shortest gap (a setTimeout chain).
 */
export function rhythmOf(starts: number[]): Rhythm | undefined {
  const t = starts.slice(-RHYTHM_TICKS);
  if (t.length < POLLED_AFTER) return undefined;
  const gaps = t.slice(1).map((x, i) => x - (t[i] ?? x));
  const period = median(gaps);
  if (period < MIN_TIMED_PERIOD_MS) return undefined;
  const last = t[t.length - 1] ?? 0;
  const phases = t.map((x) => {
    const p = (((x - last) % period) + period) % period;
    return p > period / 2 ? p - period : p;
  });
  // A timer's own gaps are its period to a millisecond (a chain's vary with its responses),
  // and its on-time starts cluster at one phase, late ones after it.
  const steady = gaps.filter((g) => Math.abs(g - period) <= 1).length * 2 >= gaps.length;
  const need = Math.ceil(t.length * 0.6);
  const on = phases.filter((p) => phases.filter((q) => q >= p && q <= p + GRID_TOL_MS).length >= need);
  if (steady && on.length > 0) return { grid: true, period, anchor: last + Math.min(...on) };
  return { grid: false, minGap: Math.min(...gaps) };
}

/**
 * One poll's beat while an action runs: which of its call site's requests are more than the
 * poll makes. Starts from the poll's last start before the action.
 */
export class Beat {
  private lastSlot: number;
  private lastStart: number;
  /** The grid's origin, following on-time starts (the period read from a few gaps drifts a little over many beats). */
  private anchor: number;
  /** The request that took the current beat, when it started during the action. */
  private holder: string | undefined;

  constructor(
    readonly rhythm: Rhythm,
    lastStart: number,
  ) {
    this.anchor = rhythm.grid ? rhythm.anchor : 0;
    this.lastStart = lastStart;
    this.lastSlot = this.slot(lastStart);
  }

  /** How far after its grid slot a start is (ms). */
  private phase(ts: number): number {
    return this.rhythm.grid ? ts - this.anchor - this.slot(ts) * this.rhythm.period : 0;
  }

  private slot(ts: number): number {
    return this.rhythm.grid ? Math.floor((ts - this.anchor + GRID_TOL_MS) / this.rhythm.period) : 0;
  }

  /**
   * A request of the poll's call site started (page clock, ms): the ids that are extra. A
   * second request in one beat is; so is the beat's first, unless it started on the grid and
   * this one did not: which of the two the poll made is then unknown (the action's may have
   * come just before a late tick, or in a chain just before the next was due).
   */
  judge(id: string, ts: number): string[] {
    const r = this.rhythm;
    const extra = r.grid ? this.slot(ts) === this.lastSlot : ts - this.lastStart < r.minGap - Math.max(5, r.minGap * 0.1);
    // A grid beat's holder that started on time, followed by a start off the grid, is the
    // timer's tick; a late holder, or two starts on time, may be either.
    const onTime = (x: number) => this.phase(x) <= GRID_TOL_MS * 2;
    const holderDoubt = this.holder !== undefined && (!r.grid || !onTime(this.lastStart) || onTime(ts));
    if (extra) return holderDoubt && this.holder !== undefined ? [id, this.holder] : [id];
    this.lastSlot = this.slot(ts);
    this.lastStart = ts;
    this.holder = id;
    if (r.grid && Math.abs(this.phase(ts)) <= GRID_TOL_MS) this.anchor += this.phase(ts);
    return [];
  }
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
    for (const [key, list] of byKey) {
      if (list.length < POLLED_AFTER || (list[list.length - 1]?.at ?? 0) - (list[0]?.at ?? 0) < POLL_SPAN_MS) continue;
      const sites = new Map<string, Beat | null>();
      for (const site of new Set(list.map((s) => s.site))) {
        const starts = list.filter((s) => s.site === site).map((s) => s.ts);
        const rhythm = rhythmOf(starts);
        sites.set(site, rhythm ? new Beat(rhythm, starts[starts.length - 1] ?? 0) : null);
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
    if (beat === undefined) return [p.requestId];
    const ts = p.timestamp * 1000;
    const at = performance.now();
    this.offset = Math.min(this.offset, at - ts);
    if (!beat) return [];
    this.starts.set(p.requestId, ts);
    const extra = beat.judge(p.requestId, ts).filter((id) => !this.given.has(id) && this.nearInput(this.starts.get(id)));
    for (const id of extra) this.given.add(id);
    // The poll's own ticks keep its history going across back-to-back actions.
    if (!extra.includes(p.requestId)) this.history.add({ key, site, ts, at, lag: at - ts });
    return extra;
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
  }
}
