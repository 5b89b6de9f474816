/** The watchers of one settle call, as its waits read them: counts, frames, the input clock's marks. */
import type { ActWindow } from "../act/dom.ts";
import { hrNow, readClock } from "./input.ts";
import { framesRunning } from "./frames.ts";
import { paintOnly } from "./paint.ts";
import { disconnect, type Measure, type QuietPoll, type Watcher } from "./quiet.ts";

/** The watchers of one call (`arg.ids`) and what may be done with them. */
export interface Watched {
  win: ActWindow;
  sts: Watcher[];
  /** When the page last received an input event since these watchers were installed (hrNow()); 0: none. */
  inputHr: number;
  /** The same for an edit's events (beforeinput, input: text inserted without key events fires only these); 0: none. */
  editHr: number;
  /**
   * A checkbox or radio this action's pointer toggled (its input event came since the install), or
   * a native select this action's setter set (input.ts chosen()), still shows that state.
   */
  toggled(): boolean;
  /** The same for a discrete input event whose handlers scheduled a timer or an idle callback (input.ts); 0: none. */
  timedHr: number;
  /** The same for the pointer coming over an element (a hover-intent delay, a tooltip's); 0: none. */
  timedOverHr: number;
  measure(after: number): Measure;
  /** Disconnects and forgets them. */
  finish(): void;
  /** Keeps them `ms` more for a settle after the network, then disconnects them. */
  linger(ms: number): void;
}

/** A frame of ours asked for this long ago and not drawn: the document draws none now (the settle's quiet period). */
const STALLED_MS = 50;

function visible(win: ActWindow): boolean {
  try {
    return win.document.visibilityState !== "hidden";
  } catch {
    return true;
  }
}

/** Running animations that began since `from`, have a finite end and do more than repaint (paint.ts). */
function animating(win: ActWindow, from: number): number {
  let n = 0;
  try {
    const list = win.document.getAnimations ? win.document.getAnimations() : [];
    for (let i = 0; i < list.length && i < 500; i++) {
      const a = list[i];
      if (!a || (a.playState !== "running" && a.playState !== "pending")) continue;
      if (a.startTime !== null && a.startTime < from - 50) continue;
      if (paintOnly(a)) continue;
      const end = a.effect && a.effect.getComputedTiming ? a.effect.getComputedTiming().endTime : Infinity;
      if (typeof end === "number" && Number.isFinite(end)) n++;
    }
  } catch {}
  return n;
}

export function watched(win: ActWindow, held: Record<number, Watcher>, ids: number[], sts: Watcher[]): Watched {
  const clock = readClock(win);
  let installed = 0;
  for (const s of sts) installed = Math.max(installed, s.hr);
  // On the high-resolution clock: in whole ms an event just before install would count as the action's.
  const since = (t: number | undefined): number => (typeof t === "number" && t > installed ? t : 0);
  return {
    win,
    sts,
    inputHr: since(clock?.hr),
    editHr: since(clock?.edit),
    toggled: () => {
      const t = clock?.toggled;
      const c = clock?.chosen;
      try {
        if (t && since(clock?.edit) > 0 && since(clock?.hr) > 0)
          return (t.el as { checked?: unknown }).checked === t.checked;
        if (c && since(c.at) > 0) {
          const options = (c.el as { options?: ArrayLike<{ selected?: unknown }> }).options;
          return options?.[c.index]?.selected === true;
        }
      } catch {}
      return false;
    },
    timedHr: since(clock?.timed),
    timedOverHr: since(clock?.timedOver),
    measure(after) {
      const now = Date.now();
      let last = 0,
        m = 0,
        net = 0,
        from = Infinity,
        framesQuiet = Infinity,
        styleQuiet = Infinity,
        styleQuietMs = Infinity,
        rendering = false,
        frames = 0;
      // A watcher asks for frames only when it needs them: a document renders them when any of ours ran in it, unless
      // it is hidden now or one we asked for has not come within the settle's quiet period (a throttled frame).
      if (framesRunning(win, STALLED_MS) && visible(win)) rendering = true;
      for (const s of sts) {
        framesQuiet = Math.min(framesQuiet, s.frames - s.mutFrame);
        styleQuiet = Math.min(styleQuiet, s.frames - s.styleFrame);
        styleQuietMs = Math.min(styleQuietMs, hrNow(win) - s.styleHr);
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
        if (s.mutations - s.learnt > net) net = s.mutations - s.learnt;
      }
      return {
        quietFor: now - last,
        mutations: m,
        learnt: m - net,
        animating: running,
        framesQuiet: rendering ? framesQuiet : -1,
        frames,
        last,
        styleQuiet,
        styleQuietMs,
      };
    },
    finish() {
      for (const id of ids) {
        const s = held[id];
        if (s) {
          disconnect(s);
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
          disconnect(s);
          if (held[id] === s) delete held[id];
        }, ms);
      }
    },
  };
}

/** The poll as the broker reads it, with what a wait adds (`settled`, `capped`). */
export function reply(
  p: Measure,
  extra: { settled?: true; capped?: true } = {},
): QuietPoll & { settled?: true; capped?: true } {
  return {
    quietFor: p.quietFor,
    mutations: p.mutations - p.learnt,
    animating: p.animating,
    framesQuiet: p.framesQuiet,
    ...extra,
  };
}
