/** A poll's rhythm, read from the page's own request timestamps, and the beat that tells a request more than the poll makes. */

/** A poll needs this many starts to have a rhythm. */
export const RHYTHM_MIN_STARTS = 3;
/** A faster poll makes a request every few ms after any input. */
const MIN_TIMED_PERIOD_MS = 50;
/** The most recent starts of one poll that its rhythm is read from (a longer run adds period error). */
const RHYTHM_TICKS = 12;
/** A setInterval tick starts this close after its grid slot (the page's timer and clock precision). */
const GRID_TOL_MS = 2;

/** One start of a poll's request (page clock, ms) and, once known, when its response ended. */
export interface Start {
  ts: number;
  end?: number;
}

/** grid: a setInterval (ticks on a fixed grid); chain: a setTimeout set as each answer lands; gap: neither. */
export type Rhythm =
  | { kind: "grid"; period: number; anchor: number }
  | { kind: "chain"; wait: number }
  | { kind: "gap"; minGap: number };

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
};

/** Whether a gap is `k` times `base` for some whole k ≥ 1, within the jitter of a timer and its clock. */
const multipleOf = (g: number, base: number): number | undefined => {
  const k = Math.round(g / base);
  return k >= 1 && Math.abs(g - k * base) <= Math.max(2, base * 0.15) ? k : undefined;
};

/** The period of a poll's starts. */
export function periodOf(gaps: number[]): number {
  const sorted = [...gaps].sort((a, b) => a - b);
  const recurs = Math.max(2, Math.ceil(gaps.length / 4));
  const shortest = sorted.find((g) => g > 0);
  // …and that most gaps are whole multiples of.
  const explains = (base: number) => gaps.filter((h) => multipleOf(h, base) !== undefined).length * 2 >= gaps.length;
  const recurring = sorted.find(
    (g) => g > 0 && sorted.filter((h) => multipleOf(h, g) === 1).length >= recurs && explains(g),
  );
  // Too few gaps for one to recur (100, 200): the shortest, when the others are its multiples.
  const base =
    recurring ??
    (shortest !== undefined && sorted.every((g) => multipleOf(g, shortest) !== undefined) ? shortest : median(gaps));
  const per = gaps.flatMap((g) => {
    const k = multipleOf(g, base);
    return k === undefined ? [] : [g / k];
  });
  return per.length > 0 ? median(per) : median(gaps);
}

/** The rhythm of one poll's starts (ascending). */
export function rhythmOf(starts: Start[]): Rhythm | undefined {
  const t = starts.slice(-RHYTHM_TICKS);
  if (t.length < RHYTHM_MIN_STARTS) return undefined;
  const gaps = t.slice(1).map((x, i) => x.ts - (t[i]?.ts ?? x.ts));
  const period = periodOf(gaps);
  if (period < MIN_TIMED_PERIOD_MS) return undefined;
  const last = t[t.length - 1]?.ts ?? 0;
  const phases = t.map((x) => {
    const p = (((x.ts - last) % period) + period) % period;
    return p > period / 2 ? p - period : p;
  });
  // A timer's own gaps are its period to a millisecond, a chain's vary with its answers.
  const steady =
    gaps.filter((g) => Math.abs(g - Math.max(1, Math.round(g / period)) * period) <= 1).length * 2 >= gaps.length;
  const need = Math.ceil(t.length * 0.6);
  const on = phases.filter((p) => phases.filter((q) => q >= p && q <= p + GRID_TOL_MS).length >= need);
  if (steady && on.length > 0) return { kind: "grid", period, anchor: last + Math.min(...on) };
  // A chain starts only after the last answer.
  const waits = t.slice(1).flatMap((x, i) => {
    const end = t[i]?.end;
    return end === undefined ? [] : [x.ts - end];
  });
  // A much shorter wait or gap is a stray call of the same function (a focus handler's refresh), not the rhythm.
  if (waits.length >= RHYTHM_MIN_STARTS - 1 && waits.every((w) => w >= 0))
    return { kind: "chain", wait: Math.min(...waits.filter((w) => w >= median(waits) / 2)) };
  return { kind: "gap", minGap: Math.min(...gaps.filter((g) => g >= period / 2)) };
}

/** One poll's beat while an action runs: which of its call site's requests are more than the poll makes. */
export class Beat {
  private lastSlot: number;
  private last: Start & { id: string | undefined };
  /** The grid's origin, following on-time starts (the period read from a few gaps drifts a little over many beats). */
  private anchor: number;
  /** The request that took the current beat, when it started during the action. */
  private holder: string | undefined;

  constructor(
    readonly rhythm: Rhythm,
    last: Start & { id?: string },
  ) {
    this.anchor = rhythm.kind === "grid" ? rhythm.anchor : 0;
    this.last = { id: last.id, ts: last.ts, ...(last.end !== undefined ? { end: last.end } : {}) };
    this.lastSlot = this.slot(last.ts);
  }

  private slot(ts: number): number {
    return this.rhythm.kind === "grid" ? Math.floor((ts - this.anchor + GRID_TOL_MS) / this.rhythm.period) : 0;
  }

  private early(ts: number): boolean {
    const r = this.rhythm;
    const margin = (x: number) => Math.max(5, x * 0.1);
    if (r.kind === "grid") return this.slot(ts) === this.lastSlot;
    if (r.kind === "chain") return this.last.end === undefined || ts - this.last.end < r.wait - margin(r.wait);
    return ts - this.last.ts < r.minGap - margin(r.minGap);
  }

  /** A request of the poll's call site started. */
  judge(id: string, ts: number): string[] {
    if (this.early(ts)) return this.holder === undefined ? [id] : [id, this.holder];
    this.lastSlot = this.slot(ts);
    this.last = { id, ts };
    this.holder = id;
    if (this.rhythm.kind === "grid") {
      const phase = ts - this.anchor - this.lastSlot * this.rhythm.period;
      if (Math.abs(phase) <= GRID_TOL_MS) this.anchor += phase;
    }
    return [];
  }

  /** A request's response ended (page clock, ms): a chain's next start is timed from its last one's. */
  ended(id: string, ts: number): void {
    if (id === this.last.id) this.last.end = ts;
  }
}
