/** When the page took an action's input: one passive capture listener per input event type and window, kept for the document's life, marks the last input event, the last edit event and the last input event whose handlers scheduled a timer. */
import { setSlot, slotOf, type ActWindow } from "../act/dom.ts";
import { marks, pageScheduled, type Marks } from "./ledger.ts";

// Versioned by shape: a document outlives a bp upgrade, and a slot an older build left keeps its old shape.
const INPUT_KEY = Symbol.for("browser-pilot.quiet.input.v4");

/** The events an action's dispatch delivers. */
const INPUT_EVENTS = [
  "pointerdown",
  "mousedown",
  "pointerup",
  "mouseup",
  "click",
  "dblclick",
  "auxclick",
  "contextmenu",
  "keydown",
  "keyup",
  "pointerover",
  "mouseover",
  "pointermove",
  "mousemove",
  "wheel",
];
/** Input events whose handlers may answer later through a timer. */
const TIMED_UNTIL: Record<string, string> = {
  pointerdown: "pointerdown",
  mousedown: "mousedown",
  pointerup: "pointerup",
  mouseup: "mouseup",
  click: "click",
  dblclick: "dblclick",
  auxclick: "auxclick",
  contextmenu: "contextmenu",
  keydown: "keydown",
  keyup: "keyup",
  pointerover: "mousemove",
  mouseover: "mousemove",
};
const JUDGED_AT: Record<string, true> = {};
for (const end of Object.values(TIMED_UNTIL)) JUDGED_AT[end] = true;
/** An edit's events: the typing settle waits for a frame after them (a page that reacts to input in its next frame). */
const EDIT_EVENTS = ["beforeinput", "input"];
/** Where each received input event went (`Received`), by the slot it fills. */
const RECEIVED_SLOT: Record<string, keyof Received> = {
  pointerdown: "down",
  mousedown: "down",
  pointerup: "up",
  mouseup: "up",
  click: "click",
  dblclick: "dblclick",
  contextmenu: "contextmenu",
  pointerover: "over",
  mouseover: "over",
  input: "edit",
  drop: "drop",
};

/** What received the input events since the last probe (act-probe.ts) aimed at an element. */
export interface Received {
  /** The probed element: still known when the page replaced it (the ref no longer resolves). */
  aim?: unknown;
  down?: unknown;
  up?: unknown;
  click?: unknown;
  dblclick?: unknown;
  contextmenu?: unknown;
  /** Every element the pointer came over (bounded). */
  over?: unknown[];
  edit?: unknown;
  drop?: unknown;
}

type InputEvent = {
  type: string;
  isTrusted?: boolean;
  timeStamp?: number;
  target?: unknown;
  composedPath?: () => unknown[];
};

function innermost(e: InputEvent): unknown {
  try {
    const path = e.composedPath ? e.composedPath() : [];
    return path.length ? path[0] : e.target;
  } catch {
    return e.target;
  }
}

function note(got: Received, e: InputEvent): void {
  const slot = RECEIVED_SLOT[e.type];
  if (!slot) return;
  const t = innermost(e);
  if (slot === "over") {
    const list = (got.over ??= []);
    if (list.length < 32) list.push(t);
  } else if (got[slot] === undefined) {
    // The first of each: a pointerdown handler that removes its target sends mousedown to the parent.
    got[slot] = t as never;
  }
}

/** The window's high-resolution clock (ms), or Date.now() where there is none. */
export function hrNow(win: ActWindow): number {
  const p = win.performance;
  return p && typeof p.now === "function" ? p.now() : Date.now();
}

/** The frames' clock (ms): document.timeline's time, the last rendered frame's; NaN where there is none. */
export function frameClock(win: ActWindow): number {
  try {
    const t = win.document.timeline?.currentTime;
    return typeof t === "number" ? t : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** When the last input event and the last edit event came (hrNow()), and the listeners that mark them. */
export interface InputClock {
  hr: number;
  edit: number;
  /** The last press, release, click or key (not the pointer's moves and crossings); none on a clock an older build made. */
  press?: number;
  /**
   * The last burst of the pointer's boundary events (out, leave, over, enter: one task when the
   * pointer crosses into another element): when it began and when its last event came; none: never.
   */
  over?: number;
  overEnd?: number;
  /** The burst's event time (`timeStamp`), which every event of one crossing shares. */
  overStamp?: number;
  /** Capture listener for the out events, which only stamp the burst (none on a clock an older build made). */
  bound?: (e: InputEvent) => void;
  /** document.timeline's time (the last rendered frame's) at the last of them; NaN: none (or a clock an older build made). */
  tl?: number;
  /** The checkbox or radio the last input event toggled, and the state it toggled to; none for other edits. */
  toggled?: { el: unknown; checked: boolean } | undefined;
  /** The native select `select` set last (chosen()), the option's index and when; none on a clock an older build made. */
  chosen?: { el: unknown; index: number; at: number } | undefined;
  /** When the last discrete input event came whose handlers scheduled a timer or an idle callback; 0: none. */
  timed: number;
  /** The same for the pointer coming over an element (its over and enter events): a hover-intent delay, a tooltip's. */
  timedOver: number;
  /** The input being dispatched: when it came, the counters before the page's handlers ran, and the event whose end ends it. */
  judging?: { until: string; at: number; from: Marks } | undefined;
  /** What received the input since the last probe; none: no probe armed it in this world. */
  got?: Received | undefined;
  /** Called at each trusted input event, before the page's listeners: the armed watchers' (quiet.ts). */
  hooks: Set<() => void>;
  /** Capture listener: runs before the page's listeners. */
  mark: (e: InputEvent) => void;
  /** Bubble listener on the window: runs after them, when the event bubbles that far. */
  judge: (e: { type: string; isTrusted?: boolean }) => void;
}

/** The pointer's boundary events that come first in a crossing, before its over events (which mark() stamps). */
const OUT_EVENTS = ["pointerout", "mouseout"];
/**
 * Without an event time, a gap longer than this starts another burst. With one, the events of one
 * crossing share it (the pointer event that crossed, which our own press or move may have been:
 * a gap of time cannot tell our move's crossing from the one a render made a few ms later).
 */
const BURST_GAP_MS = 2;

function listen(win: ActWindow, c: InputClock): void {
  for (const type of INPUT_EVENTS.concat(EDIT_EVENTS, ["drop"])) {
    try {
      win.addEventListener(type, c.mark, { capture: true, passive: true });
      if (JUDGED_AT[type]) win.addEventListener(type, c.judge, { passive: true });
    } catch {}
  }
  const bound = c.bound;
  if (bound)
    for (const type of OUT_EVENTS) {
      try {
        win.addEventListener(type, bound, { capture: true, passive: true });
      } catch {}
    }
}

/** Stamps a boundary event into the clock's current burst, or begins a new one. */
function crossing(c: InputClock, at: number, e: InputEvent): void {
  const stamp = typeof e.timeStamp === "number" && e.timeStamp > 0 ? e.timeStamp : undefined;
  const same =
    c.over !== undefined &&
    c.overEnd !== undefined &&
    (stamp !== undefined ? stamp === c.overStamp : at - c.overEnd <= BURST_GAP_MS);
  if (!same) c.over = at;
  c.overEnd = at;
  c.overStamp = stamp;
}

/** A checkbox or radio an input event toggled, with its new state (read before any handler of the page's could put it back). */
function toggledBy(e: InputEvent): InputClock["toggled"] {
  const el = (e as unknown as { target?: { localName?: unknown; type?: unknown; checked?: unknown } }).target;
  if (!el || String(el.localName) !== "input" || (el.type !== "checkbox" && el.type !== "radio")) return undefined;
  return { el, checked: el.checked === true };
}

/** The last input event's time; one passive capture listener per event type and window, kept for the document's life. */
export function inputClock(win: ActWindow, relisten = false): InputClock {
  const clock = slotOf<InputClock>(win, INPUT_KEY);
  if (clock) {
    if (relisten) listen(win, clock);
    return clock;
  }
  const c: InputClock = {
    hr: 0,
    edit: 0,
    timed: 0,
    timedOver: 0,
    hooks: new Set(),
    // Trusted events only: what the page dispatches itself is not an action's input.
    mark: (e) => {
      if (e.isTrusted === false) return;
      runHooks(c);
      if (c.got) note(c.got, e);
      const at = hrNow(win);
      c.tl = frameClock(win);
      if (e.type === "input" || e.type === "beforeinput") {
        c.edit = at;
        if (e.type === "input") c.toggled = toggledBy(e);
      } else c.hr = at;
      if (TIMED_UNTIL[e.type] === e.type) c.press = at;
      if (e.type === "mouseover" || e.type === "pointerover") crossing(c, at, e);
      const until = TIMED_UNTIL[e.type];
      // The pointer's over events of one move are judged together, to its mousemove.
      if (until && !(until === "mousemove" && c.judging?.until === "mousemove"))
        c.judging = { until, at, from: marks(win) };
    },
    bound: (e) => {
      if (e.isTrusted !== false) crossing(c, hrNow(win), e);
    },
    judge: (e) => {
      const j = c.judging;
      if (e.isTrusted === false || !j || j.until !== e.type) return;
      c.judging = undefined;
      if (!pageScheduled(win, j.from)) return;
      if (j.until === "mousemove") c.timedOver = Math.max(c.timedOver, j.at);
      else c.timed = Math.max(c.timed, j.at);
    },
  };
  setSlot(win, INPUT_KEY, c);
  listen(win, c);
  return c;
}

function runHooks(c: InputClock): void {
  for (const hook of c.hooks) hook();
}

/** Our setter is about to edit a value control (its events are not trusted): the armed watchers' hooks, as at a trusted event. */
export function setterEdit(win: ActWindow): void {
  const c = readClock(win);
  if (c) runHooks(c);
}

/**
 * A native select our setter is about to set to option `index`: an edit at this moment. Its input
 * and change events are dispatched from our world, so they are not trusted and mark() leaves them
 * alone; the page's handlers run inside that dispatch. Stamped only on a clock a watcher armed.
 */
export function chosen(win: ActWindow, el: unknown, index: number): void {
  const c = readClock(win);
  if (!c) return;
  // As a trusted event does: the armed watchers' frame mark and a frame of theirs with the select's own repaint.
  runHooks(c);
  const at = hrNow(win);
  c.edit = at;
  c.chosen = { el, index, at };
  // An earlier action's checkbox would otherwise be judged instead, once any trusted pointer event came.
  c.toggled = undefined;
}

/** The document's input clock when one was armed (never arms one). */
export function readClock(win: ActWindow): InputClock | undefined {
  return slotOf<InputClock>(win, INPUT_KEY);
}
