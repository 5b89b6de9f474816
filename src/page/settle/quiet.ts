/** DOM-quiet detection around an action (the page runtime's `quiet`, a window step). */
import { setSlot, slotOf, type ActMutationObserver, type ActWindow } from "../act/dom.ts";
import { marks, type Marks } from "./ledger.ts";
import {
  armedFrame,
  frameEnds,
  framesRunning,
  type FrameEnds,
  type FrameMarks,
  frameMark,
  ownFrame,
} from "./frames.ts";
import { hrNow, inputClock, readClock } from "./input.ts";
import { churnLearner, churningNodes, restyledBefore, watchChurn } from "./churn.ts";
import { unreadStyles } from "./style.ts";
import { type Responses, watchResponses } from "./responses.ts";

export interface QuietArg {
  op?: string;
  id?: number;
  ids?: number[];
  after?: number;
  finish?: boolean;
  /** settle: quiet needed when the page changed after the dispatch (ms, and rendered frames). */
  quietFor?: number;
  frames?: number;
  /** settle: quiet needed when nothing changed since the settle began, always; 0: the ledger decides. */
  syncQuietFor?: number;
  /** settle: how long ago (ms) the last of the action's requests ended; the sync floor runs from then when later. */
  sinceResponse?: number;
  /** settle: give up after this many ms. */
  max?: number;
  /** settle: keep the watchers this many ms afterwards, then disconnect them. */
  linger?: number;
  /** late: how long to wait for the first change. */
  windowMs?: number;
  /** settle (without `syncQuietFor`), hold: the floor when the page set a timer since the arm. */
  timerQuietFor?: number;
  /** settle: an action other than typing: no settling without a frame, the floor from its last input event or response. */
  click?: boolean;
  /** settle: the frame rule also waits for an idle callback of ours (within `timerQuietFor` from the cause). */
  idle?: boolean;
}

export interface QuietPoll {
  quietFor: number;
  mutations: number;
  animating: number;
  /** Rendered frames since the last mutation; -1 when no frame rendered (a hidden tab). */
  framesQuiet: number;
}

/** A poll, with the totals the waits need. */
export interface Measure extends QuietPoll {
  /**
   * Of `mutations`, the changes of nodes learnt as the page's churn since they were counted: left out of the
   * reported count only, so every count the waits compare only grows.
   */
  learnt: number;
  frames: number;
  last: number;
  /** Rendered frames since the last change of an inline style (what an animation by script writes). */
  styleQuiet: number;
  /** The same in ms: frames can come closer than a display's interval (the first after an idle page comes at once). */
  styleQuietMs: number;
}

export interface Watcher {
  /** When it was installed (hrNow()): input events before it belong to earlier actions. */
  hr: number;
  /** When its last rendered frame's callback ran (hrNow()); 0: none yet. */
  tickHr: number;
  /** At that callback: the changes counted before it, and the frame id it asked for the next frame (loop.ts). */
  tickMutations: number;
  tickAsk: number | undefined;
  /**
   * The same after the frame's callbacks (a resize observation of ours, which the frame delivers after them): the
   * frame it was, the changes, and the frame counter then; `endFrames` -1: none yet.
   */
  endFrames: number;
  endMutations: number;
  endAsk: number | undefined;
  /** Changes counted in the tasks of the pointer's over events (its hover handlers'); the same at the frame's start and end. */
  overMutations: number;
  tickOver: number;
  overEnd: number;
  /** Our resize observer that tells the frame's end; none where the page's window has none. */
  ends: FrameEnds | undefined;
  mutations: number;
  /** Of those, the changes of nodes learnt as the page's churn during its settle (churn.ts churnLearner). */
  learnt: number;
  last: number;
  /** When its last mutation record came (hrNow()); 0: none. */
  lastHr: number;
  /** When its recent counted batches came (hrNow()), the newest last (later-cause.ts). */
  batches: number[];
  mark: number;
  obs: ActMutationObserver | null;
  /** Answers to the page's scripted requests since the install (responses.ts). */
  res: Responses | null;
  t0: number;
  frames: number;
  mutFrame: number;
  /** The frame count at its last inline-style change, and when it came (hrNow()); -Infinity: none. */
  styleFrame: number;
  styleHr: number;
  /** Called on every mutation record and rendered frame while a wait is pending. */
  wake: (() => void) | null;
  /** Counts calls on this watcher, so a later one cancels a pending linger. */
  linger?: number;
  /**
   * Whether frames are counted now: from install until a settle ends, and again while a later wait runs. Each is asked
   * for only when needed (needsFrames): a frame of ours rendered while the page is idle would take the display's tick
   * the frame after the action's change then waits behind (frames.ts armedFrame).
   */
  ticking: boolean;
  /** Settled and kept only in case its action settles again; the next install ends it. */
  lingering?: boolean;
  /** Restarts the frame count after a linger stopped it. */
  resume: () => void;
  /** The timer and idle-callback counters when it was armed (ledger.ts), the animation-frame one at the action's first input. */
  marks: Marks & FrameMarks;
  /** Removes its hook from the input clock. */
  unhook?: () => void;
}

// Versioned by shape: a document outlives a bp upgrade, and a slot an older build left keeps its old shape.
const KEY = Symbol.for("browser-pilot.quiet.v4");
export function heldOf(win: ActWindow): Record<number, Watcher> {
  let held = slotOf<Record<number, Watcher>>(win, KEY);
  if (!held) setSlot(win, KEY, (held = {}));
  return held;
}

export function install(win: ActWindow, held: Record<number, Watcher>, id: number): true {
  // Read first: every timer id handed out after these (ours below) is counted against them. The frame counter is read
  // at the action's first input (armedFrame): reading it now would have a frame rendered before the input.
  const counters: Marks & FrameMarks = { ...marks(win), frame: undefined, pending: true };
  const clock = inputClock(win, true);
  let t0 = 0;
  try {
    t0 = Number(win.document.timeline?.currentTime) || 0;
  } catch {}
  // Actions on a tab run one at a time, so a new watcher means the actions whose watchers only linger are done.
  for (const key of Object.keys(held)) {
    const other = held[Number(key)];
    if (other && (other.lingering || Number(key) === id)) {
      disconnect(other);
      other.ticking = false;
      delete held[Number(key)];
    }
  }
  const st: Watcher = {
    hr: hrNow(win),
    tickHr: 0,
    tickMutations: 0,
    tickAsk: undefined,
    endFrames: -1,
    endMutations: 0,
    endAsk: undefined,
    overMutations: 0,
    tickOver: 0,
    overEnd: 0,
    ends: undefined,
    mutations: 0,
    learnt: 0,
    last: 0,
    lastHr: 0,
    batches: [],
    mark: 0,
    obs: null,
    res: null,
    t0,
    frames: 0,
    mutFrame: 0,
    styleFrame: Number.NEGATIVE_INFINITY,
    styleHr: Number.NEGATIVE_INFINITY,
    wake: null,
    ticking: true,
    resume: () => undefined,
    marks: counters,
  };
  // Nodes the page itself keeps rewriting (a clock, a JS animation) do not hold this action's settle.
  const churning = churningNodes(win, { arm: true });
  watchChurn(win);
  const churned = (target: object): boolean => churning.has(target);
  const learner = churnLearner(win, Date.now());
  /** Changes counted per node whose streak began before the arm, taken back when it turns out to be churn. */
  const counts = new Map<object, number>();
  const styled = new WeakMap<object, true>();
  /** Nodes whose inline style changed what is read, and the frame and time of their last such change. */
  const styledAt = new Map<object, Styled>();
  const restyled = (): void => {
    const last = lastStyled(styledAt, st.frames, hrNow(win));
    st.styleFrame = last.f;
    st.styleHr = last.t;
  };
  /** The frame of each node's last counted inline-style change, kept when a rise drops it from `styledAt`. */
  const readFrame = new WeakMap<object, number>();
  /** Nodes whose counted inline-style changes came in two frames or more: a tween of what is read. */
  const readTween = new WeakMap<object, true>();
  const tweening = (target: object): boolean => restyledBefore(win, target, st.hr, TWEEN_GAP_MS);
  st.obs = new win.MutationObserver((list) => {
    // The churn watcher, older, has seen these records: a loop it proved since is no change of this action's.
    for (const node of learner.learnt(list, churning)) {
      churning.add(node);
      st.learnt += counts.get(node) ?? 0;
      counts.delete(node);
      if (styledAt.delete(node)) restyled();
    }
    let n = list.length;
    if (churning.size > 0)
      for (let i = 0; i < list.length; i++) if (churning.has((list[i] as { target?: object }).target ?? churning)) n--;
    // A fade's per-frame style rewrites do not hold the settle once what the snapshot reads is decided.
    const starts = new Set<number>(),
      rises = new Set<number>();
    const unread = n > 0 ? unreadStyles(win, list, styled, churned, tweening, starts, rises) : undefined;
    if (unread) n -= unread.size;
    // A counted inline-style rewrite: an animation by script may still be running (settle.ts). A
    // node whose opacity then only rises is fading in: what the snapshot reads of it was decided
    // when it was shown (jQuery's fadeIn shows its element in the handler's task). Not a node
    // whose read styles changed in two frames (a size tween that also fades): it stays held.
    const counted = new Set<object>(),
      rose = new Set<object>();
    for (let i = 0; i < list.length; i++) {
      const m = list[i] as { target?: object; attributeName?: string | null };
      if (m.attributeName !== "style" || !m.target || churning.has(m.target) || starts.has(i)) continue;
      if (!unread?.has(i)) counted.add(m.target);
      else if (rises.has(i)) rose.add(m.target);
    }
    for (const node of counted) {
      const before = readFrame.get(node);
      if (before !== undefined && before !== st.frames) readTween.set(node, true);
      readFrame.set(node, st.frames);
      styledAt.set(node, { f: st.frames, t: hrNow(win) });
    }
    let faded = false;
    for (const node of rose) if (!counted.has(node) && !readTween.has(node)) faded = styledAt.delete(node) || faded;
    if (counted.size > 0 || faded) restyled();
    if (n <= 0) return;
    for (let i = 0; i < list.length; i++) {
      const target = (list[i] as { target?: object }).target;
      if (target && !churning.has(target) && !unread?.has(i) && learner.candidate(target))
        counts.set(target, (counts.get(target) ?? 0) + 1);
    }
    st.mutations += n;
    st.last = Date.now();
    const over = readClock(win)?.overEnd;
    if (over !== undefined && hrNow(win) - over <= OVER_TASK_MS) st.overMutations += n;
    // A batch of nothing but fade-ins' first visible frames shows what an earlier change put in
    // place (a calendar the click built, fading in from the next frame): a change, but no step of
    // the page's own after the input, nor an animation by script that still changes what is read.
    if (starts.size < n) {
      st.lastHr = hrNow(win);
      st.batches.push(st.lastHr);
      if (st.batches.length > BATCHES_KEPT) st.batches.shift();
    }
    st.mutFrame = st.frames;
    // The frame after the change, asked for in its own task: an idle page renders it at once.
    if (st.ticking) request();
    if (st.wake) st.wake();
  });
  // Rendered frames since the last mutation: on a loaded machine timers and frames both run late, so quiet is also counted in frames, not only in milliseconds.
  let requested = false;
  const tick = (): void => {
    requested = false;
    st.frames++;
    st.tickHr = hrNow(win);
    st.tickMutations = st.mutations;
    st.tickOver = st.overMutations;
    st.tickAsk = undefined;
    if (held[id] === st && st.ticking && needsFrames(st)) {
      st.tickAsk = request();
      // Observed afresh (a target still observed is reported only when its size changes), it is reported in this
      // frame, after the frame's callbacks and layout.
      const root = win.document.documentElement;
      try {
        if (root && st.ends) {
          st.ends.unobserve(root);
          st.ends.observe(root);
        }
      } catch {}
    }
    if (st.wake) st.wake();
  };
  st.ends = frameEnds(win, () => {
    st.endFrames = st.frames;
    st.endMutations = st.mutations;
    st.overEnd = st.overMutations;
    st.endAsk = frameMark(win);
    // Reported once: still observed, it would be active again if a page's observer then resized the root, and
    // skipped at its depth, the browser would tell the page of an observation loop.
    const root = win.document.documentElement;
    try {
      if (root) st.ends?.unobserve(root);
    } catch {}
  });
  const request = (): number | undefined => {
    if (requested) return undefined;
    requested = true;
    try {
      const asked: unknown = ownFrame(win, tick);
      return typeof asked === "number" ? asked : undefined;
    } catch {
      requested = false;
      return undefined;
    }
  };
  st.resume = () => {
    st.ticking = true;
    st.lingering = false;
    request();
  };
  // The action's input: the frame mark before the page's handlers run, and a frame after it (the same frame as the
  // input's own repaint, asked for in its task).
  const hook = (): void => {
    armedFrame(win, counters);
    if (st.ticking && held[id] === st) request();
  };
  clock.hooks.add(hook);
  st.unhook = () => clock.hooks.delete(hook);
  // A document that never ran a frame of ours: one now tells the waits it renders frames, and keeps the frame ledger's
  // last frame of ours (foreignFrame) from being none.
  if (!framesRunning(win, Number.POSITIVE_INFINITY)) request();
  try {
    st.obs.observe(win.document, {
      subtree: true,
      childList: true,
      attributes: true,
      characterData: true,
      attributeOldValue: true,
    });
  } catch {}
  st.res = watchResponses(win, st.hr);
  win.setTimeout(() => {
    disconnect(st);
    st.ticking = false;
    if (held[id] === st) delete held[id];
  }, 60000);
  held[id] = st;
  return true;
}

/** Quiet frames the settle's rules count after a change (the broker's `frames`, a script animation's end): ticked until then. */
const TICKED_AFTER_CHANGE = 3;

/** Whether the watcher asks for the next frame: while a wait reads it, and for a few frames after a counted change. */
function needsFrames(st: Watcher): boolean {
  return (
    st.wake !== null ||
    (st.mutations > 0 && st.frames - st.mutFrame < TICKED_AFTER_CHANGE) ||
    st.frames - st.styleFrame < TICKED_AFTER_CHANGE
  );
}

/** A node's last counted inline-style change: the frame count then, and when (hrNow()). */
interface Styled {
  f: number;
  t: number;
}

/** How long the settle's rules read a style change as recent (settle.ts), beside its three frames. */
const STYLE_KEPT_MS = 50;

/** The latest counted inline-style change still in `at` (entries over three frames and 50 ms old go). */
function lastStyled(at: Map<object, Styled>, frames: number, now: number): Styled {
  const last = { f: Number.NEGATIVE_INFINITY, t: Number.NEGATIVE_INFINITY };
  for (const [node, s] of at) {
    if (frames - s.f > 3 && now - s.t > STYLE_KEPT_MS) at.delete(node);
    else {
      last.f = Math.max(last.f, s.f);
      last.t = Math.max(last.t, s.t);
    }
  }
  return last;
}

/** A batch this soon after the pointer's last over event came from its handlers (the burst's own task). */
const OVER_TASK_MS = 4;

/** A node whose style the page rewrote this recently before an arm is in a tween (a frame's gap, with slack for a busy renderer). */
const TWEEN_GAP_MS = 100;

/** Enough of a settle's batches to tell what came between two causes; older ones are before both. */
const BATCHES_KEPT = 64;

export function disconnect(st: Watcher): void {
  st.unhook?.();
  st.obs?.disconnect();
  st.res?.stop();
  st.ends?.disconnect();
}
