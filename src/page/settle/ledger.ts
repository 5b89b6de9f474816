/** Whether the page scheduled work since a watcher was armed. */
import { setSlot, slotOf, type ActWindow } from "../act/dom.ts";

type Kind = "timer" | "idle";

/** Our ids of each kind, most recent last (bounded: a forgotten one only makes the page look busy). */
type Ledger = Record<Kind, number[]>;

/** The counters as a watcher's arm read them; a counter that cannot be read is `undefined`. */
export type Marks = Record<Kind, number | undefined>;

const KEY = Symbol.for("browser-pilot.quiet.timers.v1");

interface TimerWindow {
  setTimeout(fn: () => void, ms?: number): unknown;
  clearTimeout(id: unknown): void;
  setInterval?(fn: () => void, ms?: number): unknown;
  requestIdleCallback?(fn: () => void, opts?: unknown): unknown;
  cancelIdleCallback?(id: unknown): void;
}

function keep(list: number[], id: unknown): void {
  if (typeof id !== "number") return;
  list.push(id);
  if (list.length > 512) list.splice(0, list.length - 512);
}

function wrap(win: TimerWindow, name: "setTimeout" | "setInterval" | "requestIdleCallback", list: number[]): void {
  const orig = win[name];
  if (typeof orig !== "function") return;
  const wrapped = function (this: unknown, ...args: unknown[]): unknown {
    const id: unknown = Reflect.apply(orig, win, args);
    keep(list, id);
    return id;
  };
  try {
    Object.defineProperty(win, name, { value: wrapped, configurable: true, writable: true });
  } catch {}
}

function ledgerOf(win: ActWindow): Ledger {
  let l = slotOf<Ledger>(win, KEY);
  if (l) return l;
  l = { timer: [], idle: [] };
  setSlot(win, KEY, l);
  const tw = win as unknown as TimerWindow;
  wrap(tw, "setTimeout", l.timer);
  wrap(tw, "setInterval", l.timer);
  wrap(tw, "requestIdleCallback", l.idle);
  return l;
}

/** Reads a counter: asks for an id (ours, recorded by the wrapper) and cancels it at once. */
function probe(win: TimerWindow, kind: Kind): number | undefined {
  try {
    if (kind === "timer") {
      const id = win.setTimeout(() => undefined, 600000);
      win.clearTimeout(id);
      return typeof id === "number" ? id : undefined;
    }
    if (!win.requestIdleCallback || !win.cancelIdleCallback) return undefined;
    const id = win.requestIdleCallback(() => undefined);
    win.cancelIdleCallback(id);
    return typeof id === "number" ? id : undefined;
  } catch {
    return undefined;
  }
}

/** The counters now; called when a watcher is armed. Wraps our world's timer functions first. */
export function marks(win: ActWindow): Marks {
  ledgerOf(win);
  const tw = win as unknown as TimerWindow;
  return { timer: probe(tw, "timer"), idle: probe(tw, "idle") };
}

/** Whether an id not ours was handed out since `from` (timers or idle callbacks). */
export function pageScheduled(win: ActWindow, from: Marks): boolean {
  const l = ledgerOf(win);
  const tw = win as unknown as TimerWindow;
  for (const kind of ["timer", "idle"] as const) {
    if (kind === "idle" && (!tw.requestIdleCallback || !tw.cancelIdleCallback)) continue;
    const base = from[kind];
    const now = probe(tw, kind);
    if (base === undefined || now === undefined || now < base) return true;
    const ours = l[kind].filter((o) => o > base && o < now).length;
    if (now - base - 1 > ours) return true;
  }
  return false;
}
