/**
 * The page's own churn: nodes a ticking clock, a progress counter or an endless JS animation
 * rewrites again and again whatever the agent does. An action's settle ignores mutations of
 * nodes that were churning when it armed: otherwise a page with a clock is never quiet and every
 * action waits out the settle's cap, and the clock's ticks read as the action's DOM change.
 * Only mutations well after any input count, over a streak longer than a transition, so an
 * action's own edits and animations are never taken for churn.
 */
import { setSlot, slotOf, type ActMutationObserver, type ActWindow } from "../act/dom.ts";
import { frameClock, hrNow, readClock } from "./input.ts";

// Versioned by shape: a document outlives a bp upgrade, and a slot an older build left keeps its old shape.
const KEY = Symbol.for("browser-pilot.churn.v3");
/**
 * Churning: at least this many separate mutation batches, at most MAX_GAP_MS apart on average,
 * over at least MIN_STREAK_MS (longer than a transition: a slide, a fade), the last one recent.
 * A status line an agent's clicks or scripts rewrite every second or so is far from it.
 */
const CHURN_BATCHES = 8;
const MAX_GAP_MS = 250;
const MIN_STREAK_MS = 1_000;
const ACTIVE_MS = 1_000;
/**
 * And, on the frames' clock, its last batch at most this many of its average gaps old (at least
 * ACTIVE_MIN_MS): a long fade that just ended is not churn, while a renderer too busy to draw
 * frames (a loaded machine) stops that clock too and ends no churn.
 */
const ACTIVE_GAPS = 4;
const ACTIVE_MIN_MS = 150;
/** Mutations this soon after an input event may be its effect: they do not count. */
const AFTER_INPUT_MS = 300;
/** One frame at 60 Hz: slack for a change paced by frames. */
const FRAME_MS = 17;
/** A node whose mutations stop for this long starts a new count. */
const STREAK_GAP_MS = 1_000;
const MAX_HOT = 256;
/** Idle this long before an input (and twice its own pace), a node the input then changes was woken by it. */
const MIN_IDLE_MS = 50;
/**
 * A node an input changed goes on changing as that input's own (an animation longer than AFTER_INPUT_MS: jQuery's
 * default 400 ms) while its changes come at most this far apart, up to OWN_MAX_MS after the input: they do not count.
 */
const OWN_GAP_MS = 100;
const OWN_MAX_MS = 1_000;
/**
 * A node changing at a known pace (this many counted batches, the last within a beat of the input) that
 * goes on at that pace through an input's window, a later frame each time, for CROSS_PACED changes in a
 * row is the page's own loop: its rhythm did not notice the input. An input's change of it comes in the
 * input's own task, off the beat, and ends that proof for the input.
 */
const CROSS_BEFORE = 2;
const CROSS_PACED = 3;
/** A document whose load event has not come this long after the following began is taken as loaded (a hung tracker). */
const LOAD_GRACE_MS = 2_000;

interface Seen {
  batches: number;
  first: number;
  last: number;
  batch: number;
  /** Its last mutation, counted or not (those just after an input are not). */
  touched: number;
  /** document.timeline's time at its last mutation (the last rendered frame's); NaN: none. */
  tl: number;
  /** Its text changed (children or character data), not only its attributes. */
  text: boolean;
  /**
   * Churning when an input found it idle: it stays churn only if it changes again by itself, in a
   * later frame at its own pace within AFTER_INPUT_MS of `at` (Date.now()), or
   * outside any input's window. `last`, `tl`, `call`: its last change's time, frames' clock and
   * mutation callback.
   */
  trial?: { at: number; last: number; tl: number; call: number };
  /** When the input came (Date.now()) whose window it changed in, not churning then: its changes since are that input's. */
  own?: number;
  /**
   * Changing at its pace when an input came at `at` (Date.now()): `n` changes since at that pace, each in a later
   * frame; `broken`: one off the beat. `last`, `tl`, `call`: its last change's time, frames' clock and mutation callback.
   */
  cross?: { at: number; n: number; broken: boolean; last: number; tl: number; call: number };
}

/** When the page last rewrote a node's inline style (hrNow()), and the time before that, from an earlier callback. */
interface Restyled {
  at: number;
  before: number;
  call: number;
}

interface Churn {
  obs: ActMutationObserver | null;
  seen: WeakMap<object, Seen>;
  restyled: WeakMap<object, Restyled>;
  hot: Set<object>;
  batch: number;
  /** Mutation callbacks so far. */
  calls: number;
  /** When the following began, and when the document finished loading (Date.now(); Infinity: not yet). */
  since: number;
  loaded: number;
}

/** Starts following the document's churn (once per document; cheap: one entry per mutated node). */
export function watchChurn(win: ActWindow): void {
  if (slotOf<Churn>(win, KEY)) return;
  const now = Date.now();
  const c: Churn = {
    obs: null,
    seen: new WeakMap(),
    restyled: new WeakMap(),
    hot: new Set(),
    batch: 0,
    calls: 0,
    since: now,
    loaded: now,
  };
  setSlot(win, KEY, c);
  try {
    if (win.document.readyState !== "complete") {
      c.loaded = Number.POSITIVE_INFINITY;
      win.addEventListener("load", () => (c.loaded = Date.now()), { once: true });
    }
    c.obs = new win.MutationObserver((list) => {
      const clock = readClock(win);
      const tl = frameClock(win);
      const now = Date.now();
      // The page's own start is no input: a loop that runs from its load is learnt from then.
      const inputHr = clock ? Math.max(clock.hr, clock.edit) : 0;
      const sinceInput = inputHr > 0 ? hrNow(win) - inputHr : Infinity;
      c.calls++;
      noteRestyled(c, list, hrNow(win));
      if (sinceInput < AFTER_INPUT_MS) {
        forgetWoken(c, list, now - sinceInput, clock?.tl ?? Number.NaN, tl);
        // A press, a key or an edit came (not the page's start, the clock's zero, nor the pointer's crossings as the
        // page moves under it): what it changed is its own.
        const pressed = clock ? Math.max(clock.press ?? 0, clock.edit) : 0,
          sincePress = hrNow(win) - pressed;
        if (pressed > 0 && sincePress < AFTER_INPUT_MS) noteOwn(c, list, now - sincePress, now, tl);
        return;
      }
      c.batch++;
      for (let i = 0; i < list.length; i++) {
        const record = list[i] as { target?: object; type?: string };
        const target = record.target;
        if (!target) continue;
        let e = c.seen.get(target);
        if (!e || now - e.touched > STREAK_GAP_MS) {
          e = { batches: 0, first: now, last: now, batch: -1, touched: now, tl, text: false };
          c.seen.set(target, e);
        } else if (e.own !== undefined) {
          // The input's own animation going on: its frames are no churn.
          if (now - e.own <= OWN_MAX_MS && now - e.touched <= OWN_GAP_MS) {
            e.touched = now;
            e.tl = tl;
            continue;
          }
          e.own = undefined;
        }
        if (record.type !== "attributes") e.text = true;
        // Changing on its own, away from any input: still the page's churn.
        e.trial = undefined;
        if (e.batch !== c.batch) {
          e.batch = c.batch;
          if (e.batches === 0) e.first = now;
          e.batches++;
          if (e.batches >= CHURN_BATCHES && c.hot.size < MAX_HOT) c.hot.add(target);
        }
        e.last = now;
        e.touched = now;
        e.tl = tl;
      }
    });
    c.obs.observe(win.document, { subtree: true, childList: true, attributes: true, characterData: true });
  } catch {
    c.obs = null;
  }
}

/** Every inline-style rewrite, inputs' own included: a tween an action started goes on after its reply. */
function noteRestyled(c: Churn, list: ArrayLike<unknown>, hr: number): void {
  for (let i = 0; i < list.length; i++) {
    const r = list[i] as { target?: object; attributeName?: string | null };
    if (r.attributeName !== "style" || !r.target) continue;
    const e = c.restyled.get(r.target);
    if (!e) c.restyled.set(r.target, { at: hr, before: Number.NEGATIVE_INFINITY, call: c.calls });
    else {
      // Within one callback `before` keeps the time from before it: a watcher's observer, created
      // after this one, reads it for the same batch.
      if (e.call !== c.calls) {
        e.before = e.at;
        e.call = c.calls;
      }
      e.at = hr;
    }
  }
}

/**
 * Whether the page rewrote the node's inline style within `withinMs` before `hr` (hrNow()): a
 * tween under way when a watcher armed at `hr`.
 */
export function restyledBefore(win: ActWindow, target: object, hr: number, withinMs: number): boolean {
  const e = slotOf<Churn>(win, KEY)?.restyled?.get(target);
  if (!e) return false;
  const t = e.at < hr ? e.at : e.before;
  return t < hr && hr - t <= withinMs;
}

/**
 * A node the input woke (idle for well over its own pace before it) answers the agent: its streak
 * ends, so a widget clicked again and again (an accordion's panels, a calendar) never passes for
 * churn. A clock or animation that kept its pace up to the input keeps its streak. One that was
 * still churning by the churn rule when the input came (as the action's arm took it) is tried:
 * a loop a busy machine delayed (the main thread late with its frames) goes on by itself and keeps
 * its streak; a churn that had stopped, changed by the agent's input, does not, and is forgotten
 * when the next action arms (or at a change in a later input's window). `inputTl`: the frames'
 * clock at the input (NaN: none, or a clock an older build made: no trial).
 */
function forgetWoken(c: Churn, list: ArrayLike<unknown>, inputAt: number, inputTl: number, tl: number): void {
  for (let i = 0; i < list.length; i++) {
    const target = (list[i] as { target?: object }).target;
    const e = target ? c.seen.get(target) : undefined;
    if (!target || !e) continue;
    const t = e.trial;
    if (t) {
      if (Date.now() - t.at > AFTER_INPUT_MS) forget(c, target);
      else if (t.call !== c.calls) {
        // Going on by itself: a change in a later frame at about its own pace after the last. A handler's later
        // writes come in the same frame, or in a task of their own, at no pace of the node's.
        const now = Date.now();
        const gap = now - t.last;
        const pace = paceOf(e);
        const paced = tl > t.tl && gap >= pace / 2 && gap <= 2 * pace + FRAME_MS;
        t.call = c.calls;
        t.tl = tl;
        t.last = now;
        // One such change is enough: the next action may arm a frame later.
        if (paced) {
          e.trial = undefined;
          e.touched = now;
          e.tl = tl;
        }
      }
      continue;
    }
    const pace = paceOf(e);
    if (e.touched < inputAt && inputAt - e.touched > Math.max(2 * pace, MIN_IDLE_MS)) {
      if (!Number.isNaN(inputTl) && isChurning(c, e, inputAt, inputTl))
        e.trial = { at: Date.now(), last: Date.now(), tl, call: c.calls };
      else forget(c, target);
    } else {
      crossing(c, target, e, inputAt, tl);
      e.touched = Date.now();
      e.tl = tl;
    }
  }
}

/**
 * Follows a node that was changing at its pace when the input came through the input's window (see CROSS_BEFORE):
 * once proven, it is churn at once, not after a streak of a second, so an action soon after a page's load or right
 * after another does not wait out its cap on the page's own loop.
 */
function crossing(c: Churn, target: object, e: Seen, inputAt: number, tl: number): void {
  const now = Date.now();
  let x = e.cross;
  // Proven: it stays churn while it goes on (a later input that finds it idle ends it, as any churn's).
  if (x && !x.broken && x.n >= CROSS_PACED) return;
  if (!x || inputAt - x.at > AFTER_INPUT_MS) {
    const pace = paceOf(e);
    // Its first change since the input: changing right up to the input, within a beat, or no proof for this input
    // (a tween that ended just before it, which the input may have restarted). And changing since the page loaded,
    // or since the following began: a streak seen to begin later (a slider's tween, an agent's earlier click's
    // animation) may be one the input restarts or extends, and has the second-long rule only.
    const before =
      e.batches >= CROSS_BEFORE &&
      pace <= MAX_GAP_MS &&
      inputAt - e.touched <= pace + FRAME_MS &&
      e.first <= (Number.isFinite(c.loaded) ? Math.max(c.since, c.loaded) : c.since) + 2 * pace + FRAME_MS;
    x = e.cross = { at: inputAt, n: 0, broken: !before, last: e.touched, tl: e.tl, call: -1 };
  }
  if (x.broken || x.call === c.calls) return;
  const pace = paceOf(e),
    gap = now - x.last;
  if (tl > x.tl && gap >= pace / 2 && gap <= 2 * pace + FRAME_MS) {
    x.n++;
    if (x.n >= CROSS_PACED && c.hot.size < MAX_HOT) c.hot.add(target);
  } else x.broken = true;
  x.call = c.calls;
  x.last = now;
  x.tl = tl;
}

/** Nodes an input changed that were no churn then, nor becoming one: what they do next is that input's own. */
function noteOwn(c: Churn, list: ArrayLike<unknown>, inputAt: number, now: number, tl: number): void {
  for (let i = 0; i < list.length; i++) {
    const target = (list[i] as { target?: object }).target;
    if (!target || c.hot.has(target)) continue;
    const e = c.seen.get(target);
    if (!e)
      c.seen.set(target, { batches: 0, first: now, last: now, batch: -1, touched: now, tl, text: false, own: inputAt });
    // One whose churn is being learnt (counted batches, away from any input) goes on being learnt.
    // One seen too few times to know its pace (a node the page built once during its load) is no loop either.
    else if (!e.trial && e.batches < CROSS_BEFORE) {
      if (e.batches > 0) {
        e.batches = 0;
        e.first = now;
      }
      e.own = inputAt;
    }
  }
}

/** Its average gap between counted batches (ms); 0 for one. */
function paceOf(e: Seen): number {
  return e.batches > 1 ? (e.last - e.first) / (e.batches - 1) : 0;
}

function forget(c: Churn, target: object): void {
  c.seen.delete(target);
  c.hot.delete(target);
}

/** Whether the node churns at `now`, `tl` the frames' clock then: its later mutations are the page's, not an action's. */
function isChurning(c: Churn, e: Seen, now: number, tl: number): boolean {
  // The page's building of itself during its load is no churn: the streak counts from the load.
  const span = e.last - Math.max(e.first, Number.isFinite(c.loaded) ? c.loaded : c.since + LOAD_GRACE_MS);
  const gap = paceOf(e);
  if (now - e.touched > ACTIVE_MS || tl - e.tl > Math.max(ACTIVE_MIN_MS, ACTIVE_GAPS * gap)) return false;
  const x = e.cross;
  if (x && !x.broken && x.n >= CROSS_PACED && gap <= MAX_GAP_MS) return true;
  return e.batches >= CHURN_BATCHES && span >= MIN_STREAK_MS && gap <= MAX_GAP_MS;
}

/** What an action's settle learns of the page's churn while it waits (quiet.ts). */
export interface ChurnLearner {
  /** Whether the node had begun a streak before the arm: its changes may yet turn out to be the page's. */
  candidate(target: object): boolean;
  /** Of a callback's records, the targets not in `known` that turned out to be churn since the arm, once each. */
  learnt(list: ArrayLike<unknown>, known: Set<object>): object[];
}

/** For an action's settle armed at `armedAt` (Date.now()); its streak begun before the arm, a node's changes are the page's. */
export function churnLearner(win: ActWindow, armedAt: number): ChurnLearner {
  const c = slotOf<Churn>(win, KEY);
  if (!c) return { candidate: () => false, learnt: () => [] };
  return {
    candidate: (target) => (c.seen.get(target)?.first ?? armedAt) < armedAt,
    learnt(list, known) {
      let out: object[] | undefined;
      let now = 0,
        tl = 0;
      for (let i = 0; i < list.length; i++) {
        const target = (list[i] as { target?: object }).target;
        if (!target || known.has(target) || !c.hot.has(target) || out?.includes(target)) continue;
        const e = c.seen.get(target);
        if (!e || e.trial || e.first >= armedAt) continue;
        if (!out) {
          out = [];
          now = Date.now();
          tl = frameClock(win);
        }
        if (isChurning(c, e, now, tl)) out.push(target);
      }
      return out ?? [];
    },
  };
}

/**
 * The nodes churning right now; `text`: only those whose text churns (a clock's digits), not their
 * attributes alone (an animated style). `arm`: for an action's settle, which ends the trials of
 * nodes an input found idle that have not gone on by themselves since (not churn for it, nor
 * later) unless their next change at their own pace is not due yet. A node on trial is no churn
 * for an outcome's text: its change may be the agent's.
 */
export function churningNodes(win: ActWindow, o: { text?: boolean; arm?: boolean } = {}): Set<object> {
  const c = slotOf<Churn>(win, KEY);
  const out = new Set<object>();
  if (!c) return out;
  const now = Date.now(),
    tl = frameClock(win);
  for (const node of c.hot) {
    const e = c.seen.get(node);
    if (e?.trial) {
      if (!o.arm) continue;
      // Armed before its next change at its own pace was due (a frame after the input): churn for this action, still on trial.
      if (now - e.trial.last <= 2 * paceOf(e) + FRAME_MS) out.add(node);
      else forget(c, node);
    } else if (e && isChurning(c, e, now, tl)) {
      if (!o.text || e.text) out.add(node);
    } else if (!e || now - e.touched > STREAK_GAP_MS) c.hot.delete(node);
  }
  return out;
}
