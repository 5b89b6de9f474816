import { setSlot, slotOf, type ActWindow } from "../act/dom.ts";
import { pageScheduled, type Marks } from "./ledger.ts";

/** Our world's animation-frame requests, to tell whether the page has one pending. */
interface FrameLedger {
  /** The id of our callback the last frame ran; 0: none ran yet in this document. */
  ran: number;
  /** Our ids handed out after `ran` (pending, cancelled or probes). */
  ours: number[];
  /** Our recent ids, ran or not: what a watcher's arm counts frames requested since against. */
  log: number[];
  /** When a frame of ours was asked for that has not run yet (Date.now()); 0 or none: none waits. */
  asked?: number;
}

const FRAMES_KEY = Symbol.for("browser-pilot.quiet.frames.v1");

function ledgerOf(win: ActWindow): FrameLedger {
  let l = slotOf<FrameLedger>(win, FRAMES_KEY);
  if (!l) setSlot(win, FRAMES_KEY, (l = { ran: 0, ours: [], log: [] }));
  return l;
}

/** Remembers one of our ids; bounded where no frame runs to prune them. */
function keep(l: FrameLedger, id: number): void {
  l.ours.push(id);
  if (l.ours.length > 256) l.ours.splice(0, l.ours.length - 256);
  l.log.push(id);
  if (l.log.length > 512) l.log.splice(0, l.log.length - 512);
}

/** The animation-frame counter now (a request cancelled at once, kept as ours); undefined: unreadable. */
export function frameMark(win: ActWindow): number | undefined {
  try {
    const probe: unknown = win.requestAnimationFrame(() => undefined);
    if (typeof probe !== "number" || !win.cancelAnimationFrame) return undefined;
    win.cancelAnimationFrame(probe);
    keep(ledgerOf(win), probe);
    return probe;
  } catch {
    return undefined;
  }
}

/**
 * A watcher's animation-frame mark, read when first needed rather than at its arm: reading the counter asks for a
 * frame (a request cancelled at once still has the frame rendered), and one rendered between the arm and the action's
 * input takes the display's current tick, so the frame after the input's change waits for the next one (up to 16 ms)
 * where an idle page renders it at once. Taken at the action's first input event, in our capture listener before the
 * page's handlers (input.ts), else when a wait first reads it.
 */
export interface FrameMarks {
  frame: number | undefined;
  /** Not read yet. */
  pending?: boolean;
}

/** The mark, read now if it is still pending. */
export function armedFrame(win: ActWindow, m: FrameMarks): number | undefined {
  if (m.pending) {
    m.pending = false;
    m.frame = frameMark(win);
  }
  return m.frame;
}

/** Whether the page (or another world) scheduled anything since the watcher was armed. */
export function scheduledSince(win: ActWindow, since: Marks & FrameMarks): boolean {
  return pageScheduled(win, since) || framesAskedBetween(win, armedFrame(win, since), frameMark(win));
}

/** Whether an animation frame not ours was asked for between two ids of ours (both excluded); undefined: it may have been. */
export function framesAskedBetween(win: ActWindow, from: number | undefined, to: number | undefined): boolean {
  if (from === undefined || to === undefined || to < from) return true;
  const ours = ledgerOf(win).log.filter((o) => o > from && o < to).length;
  return to - from - 1 > ours;
}

/** Whether the document holds a child frame: its frames run their own animation-frame callbacks and timers on counters of their own, and what they render is not seen here. */
export function childFrames(win: ActWindow): boolean {
  try {
    return (
      Number(Reflect.get(win, "length")) > 0 || win.document.querySelector("iframe, frame, object, embed") !== null
    );
  } catch {
    return true;
  }
}

/**
 * Whether the document draws frames now: one of ours ran in it, and none asked for has waited longer than `ms` (a
 * hidden tab, a cross-site frame the browser throttles while it is out of view, run none).
 */
export function framesRunning(win: ActWindow, ms: number): boolean {
  const l = ledgerOf(win);
  return l.ran > 0 && !(l.asked && Date.now() - l.asked > ms);
}

/** requestAnimationFrame for our world, through the ledger. */
export function ownFrame(win: ActWindow, fn: () => void): number {
  const l = ledgerOf(win);
  const id = win.requestAnimationFrame(() => {
    l.asked = 0;
    if (typeof id === "number" && id > l.ran) {
      l.ran = id;
      l.ours = l.ours.filter((o) => o > id);
    }
    fn();
  });
  if (typeof id === "number") keep(l, id);
  if (!l.asked) l.asked = Date.now();
  return id;
}

/** Whether an animation-frame callback that is not ours may be pending. */
export function foreignFrame(win: ActWindow): boolean {
  const l = ledgerOf(win);
  let probe: unknown;
  try {
    probe = win.requestAnimationFrame(() => undefined);
    if (typeof probe === "number") win.cancelAnimationFrame?.(probe);
  } catch {
    return true;
  }
  if (typeof probe !== "number" || !win.cancelAnimationFrame) return true;
  const ours = l.ours.filter((o) => o > l.ran && o < probe).length;
  keep(l, probe);
  return l.ran === 0 || probe <= l.ran || probe - l.ran - 1 > ours;
}

/** A resize observer of our world: observed afresh in a frame's callback, it reports after the frame's callbacks and layout. */
export interface FrameEnds {
  observe(target: object): void;
  unobserve(target: object): void;
  disconnect(): void;
}

/** One that calls `ended` each time a frame reports it; none where the window has no resize observer. */
export function frameEnds(win: ActWindow, ended: () => void): FrameEnds | undefined {
  const Resize = (win as unknown as { ResizeObserver?: new (cb: () => void) => FrameEnds }).ResizeObserver;
  if (typeof Resize !== "function") return undefined;
  try {
    return new Resize(ended);
  } catch {
    return undefined;
  }
}
