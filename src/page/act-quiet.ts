/**
 * DOM-quiet detection around an action (the page runtime's `quiet`, a window step).
 * "install" (before dispatch) starts a mutation observer kept on our world's window under
 * `arg.id`, and counts rendered frames. "poll" reports how long the DOM has been quiet,
 * counted from the first poll (less `arg.after`) so a long dispatch (a drag, a key sequence)
 * cannot use up the quiet period; with `finish` it also disconnects. It also counts the
 * animations (CSS transitions, CSS and Web animations) that began since install and are still
 * running with a finite end, so an accordion that opens through a transition is observed open.
 * "settle" and "late" wait in the page (act-settle.ts, which also answers the calls).
 */
import { setSlot, slotOf, type ActMutationObserver, type ActWindow } from "./act-dom.ts";

export interface QuietArg {
  op?: string;
  id?: number;
  ids?: number[];
  after?: number;
  finish?: boolean;
  /** settle: quiet needed when the page changed after the dispatch (ms, and rendered frames). */
  quietFor?: number;
  frames?: number;
  /** settle: quiet needed when nothing changed since the settle began (ms, plus one frame). */
  syncQuietFor?: number;
  /** settle: how long ago (ms) the last of the action's requests ended; the sync floor runs from then when later. */
  sinceResponse?: number;
  /** settle: give up after this many ms. */
  max?: number;
  /** settle: keep the watchers this many ms afterwards, then disconnect them. */
  linger?: number;
  /** late: how long to wait for the first change. */
  windowMs?: number;
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
  frames: number;
  last: number;
}

export interface Watcher {
  /** When it was installed (Date.now()): input events before it belong to earlier actions. */
  at: number;
  mutations: number;
  last: number;
  mark: number;
  obs: ActMutationObserver | null;
  t0: number;
  frames: number;
  mutFrame: number;
  /** Called on every mutation record and rendered frame while a wait is pending. */
  wake: (() => void) | null;
  /** Counts calls on this watcher, so a later one cancels a pending linger. */
  linger?: number;
  /** Whether frames are counted now: from install until a settle ends, and again while a later wait runs. */
  ticking: boolean;
  /** Settled and kept only in case its action settles again; the next install ends it. */
  lingering?: boolean;
  /** Restarts the frame count after a linger stopped it. */
  resume: () => void;
}

/** The watchers of one call (`arg.ids`) and what may be done with them. */
export interface Watched {
  win: ActWindow;
  sts: Watcher[];
  /** When the page last received an input event since these watchers were installed; 0: none. */
  input: number;
  /** The same on the high-resolution clock (hrNow). */
  inputHr: number;
  measure(after: number): Measure;
  /** Disconnects and forgets them. */
  finish(): void;
  /** Keeps them `ms` more for a settle after the network, then disconnects them. */
  linger(ms: number): void;
}

const KEY = Symbol.for("browser-pilot.quiet.v1");
const INPUT_KEY = Symbol.for("browser-pilot.quiet.input.v1");

/**
 * The events an action's dispatch delivers. The time of the last one starts the sync floor:
 * the action's handlers run when the page takes the event, before the browser acknowledges it
 * and well before the settle call arrives, and a timer they started runs from then on.
 */
const INPUT_EVENTS = ["pointerdown", "mousedown", "pointerup", "mouseup", "click", "dblclick", "auxclick", "contextmenu", "keydown", "keyup", "pointermove", "mousemove", "wheel"];

/** The window's high-resolution clock (ms), or Date.now() where there is none. */
export function hrNow(win: ActWindow): number {
  const p = win.performance;
  return p && typeof p.now === "function" ? p.now() : Date.now();
}

/** When the last input event came: `at` by Date.now() (to compare with install times), `hr` by hrNow(). */
interface InputClock {
  at: number;
  hr: number;
}

/**
 * The last input event's time; one passive capture listener per event type and window, kept
 * for the document's life. Armed by the first watcher, or earlier by the document's first
 * snapshot (dispatch.ts): adding the listeners then keeps their cost out of the first action.
 */
export function inputClock(win: ActWindow): InputClock {
  let clock = slotOf<InputClock>(win, INPUT_KEY);
  if (clock) return clock;
  const c: InputClock = { at: 0, hr: 0 };
  setSlot(win, INPUT_KEY, c);
  // Trusted events only: what the page dispatches itself is not an action's input.
  const mark = (e: { defaultPrevented: boolean; isTrusted?: boolean }): void => {
    if (e.isTrusted === false) return;
    c.at = Date.now();
    c.hr = hrNow(win);
  };
  for (const type of INPUT_EVENTS) {
    try {
      win.addEventListener(type, mark, { capture: true, passive: true });
    } catch {}
  }
  return c;
}

export function heldOf(win: ActWindow): Record<number, Watcher> {
  let held = slotOf<Record<number, Watcher>>(win, KEY);
  if (!held) setSlot(win, KEY, (held = {}));
  return held;
}

export function install(win: ActWindow, held: Record<number, Watcher>, id: number): true {
  inputClock(win);
  let t0 = 0;
  try {
    t0 = Number(win.document.timeline?.currentTime) || 0;
  } catch {}
  // Actions on a tab run one at a time, so a new watcher means the actions whose watchers only
  // linger are done: they go now (and an id reused goes too, or nothing would disconnect it).
  for (const key of Object.keys(held)) {
    const other = held[Number(key)];
    if (other && (other.lingering || Number(key) === id)) {
      other.obs?.disconnect();
      other.ticking = false;
      delete held[Number(key)];
    }
  }
  const st: Watcher = { at: Date.now(), mutations: 0, last: 0, mark: 0, obs: null, t0, frames: 0, mutFrame: 0, wake: null, ticking: true, resume: () => undefined };
  st.obs = new win.MutationObserver((list) => {
    st.mutations += list.length;
    st.last = Date.now();
    st.mutFrame = st.frames;
    if (st.wake) st.wake();
  });
  // Rendered frames since the last mutation: on a loaded machine timers and frames both run
  // late, so quiet is also counted in frames, not only in milliseconds.
  // The loop stops while the watcher only lingers (no wait needs frames then) and resumes for the next wait.
  let requested = false;
  const tick = (): void => {
    requested = false;
    st.frames++;
    if (held[id] === st && st.ticking) request();
    if (st.wake) st.wake();
  };
  const request = (): void => {
    if (requested) return;
    requested = true;
    try {
      win.requestAnimationFrame(tick);
    } catch {
      requested = false;
    }
  };
  st.resume = () => {
    st.ticking = true;
    st.lingering = false;
    request();
  };
  request();
  try {
    st.obs.observe(win.document, { subtree: true, childList: true, attributes: true, characterData: true });
  } catch {}
  win.setTimeout(() => {
    st.obs?.disconnect();
    st.ticking = false;
    if (held[id] === st) delete held[id];
  }, 60000);
  held[id] = st;
  return true;
}

/** Running animations that began since `from` and have a finite end. */
function animating(win: ActWindow, from: number): number {
  let n = 0;
  try {
    const list = win.document.getAnimations ? win.document.getAnimations() : [];
    for (let i = 0; i < list.length && i < 500; i++) {
      const a = list[i];
      if (!a || (a.playState !== "running" && a.playState !== "pending")) continue;
      if (a.startTime !== null && a.startTime < from - 50) continue;
      const end = a.effect && a.effect.getComputedTiming ? a.effect.getComputedTiming().endTime : Infinity;
      if (typeof end === "number" && isFinite(end)) n++;
    }
  } catch {}
  return n;
}

export function watched(win: ActWindow, held: Record<number, Watcher>, ids: number[], sts: Watcher[]): Watched {
  const clock = slotOf<InputClock>(win, INPUT_KEY);
  const input = clock?.at ?? 0;
  let installed = 0;
  for (const s of sts) installed = Math.max(installed, s.at);
  return {
    win,
    sts,
    input: input >= installed ? input : 0,
    inputHr: input >= installed ? (clock?.hr ?? 0) : 0,
    measure(after) {
      const now = Date.now();
      let last = 0, m = 0, from = Infinity, framesQuiet = Infinity, rendering = false, frames = 0;
      for (const s of sts) {
        framesQuiet = Math.min(framesQuiet, s.frames - s.mutFrame);
        if (s.frames > 0) rendering = true;
        frames = Math.max(frames, s.frames);
        if (s.t0 < from) from = s.t0;
      }
      const running = animating(win, from);
      for (const s of sts) {
        if (!s.mark) s.mark = now - (after > 0 ? after : 0);
        last = Math.max(last, s.mark, s.last);
        // The earliest observer saw every mutation the later ones did.
        if (s.mutations > m) m = s.mutations;
      }
      return { quietFor: now - last, mutations: m, animating: running, framesQuiet: rendering ? framesQuiet : -1, frames, last };
    },
    finish() {
      for (const id of ids) {
        const s = held[id];
        if (s) {
          s.obs?.disconnect();
          delete held[id];
        }
      }
    },
    linger(ms) {
      for (const id of ids) {
        const s = held[id];
        if (!s) continue;
        const seq = s.linger;
        s.ticking = false;
        s.lingering = true;
        win.setTimeout(() => {
          if (s.linger !== seq) return;
          s.obs?.disconnect();
          if (held[id] === s) delete held[id];
        }, ms);
      }
    },
  };
}

/** The poll as the broker reads it, with what a wait adds (`settled`, `capped`). */
export function reply(p: Measure, extra: { settled?: true; capped?: true } = {}): QuietPoll & { settled?: true; capped?: true } {
  return { quietFor: p.quietFor, mutations: p.mutations, animating: p.animating, framesQuiet: p.framesQuiet, ...extra };
}
