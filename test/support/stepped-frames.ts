/**
 * Windows whose animation frames, timers and idle callbacks run only when a test steps them, for
 * the settle's unit tests (src/page/settle/frames*.test.ts). happy-dom runs animation frames as
 * immediates and numbers them with objects, so these windows get a frame clock the test steps
 * itself, numbered from one counter as a document numbers every world's callbacks in Chromium.
 */
import { closePages, page } from "./happy-dom.ts";
import { bundled } from "./page-bundle.ts";

export type Quiet = (win: unknown, arg: Record<string, unknown>) => unknown;
export type Settled = { settled: boolean; mutations: number; capped?: boolean };
export const quiet = bundled<Quiet>("quiet");
export const tick = () => new Promise((r) => setTimeout(r, 0));

/**
 * What a trusted input event of the action does in our capture listener, before the page's listeners (happy-dom's
 * events are never trusted): the input clock's stamp, and the armed watchers' frame mark and their frame request.
 */
export function trusted(w: unknown, type: string): void {
  const clock = Reflect.get(w as object, Symbol.for("browser-pilot.quiet.input.v4")) as
    | { mark(e: { type: string; isTrusted: boolean }): void }
    | undefined;
  if (!clock) throw new Error("no input clock: install a watcher first");
  clock.mark({ type, isTrusted: true });
}

const timers = new Set<ReturnType<typeof setTimeout>>();

/** For each file's afterAll: the page timers still pending, then the windows. */
export async function closeFramed(): Promise<void> {
  for (const t of timers) clearTimeout(t);
  await closePages();
}

/** A window whose frames run only when the test says so. */
export function framed(channel: boolean) {
  const { w } = page("", { url: "https://frames.example/" });
  if (channel) Object.defineProperty(w, "MessageChannel", { value: MessageChannel, configurable: true });
  let last = 0;
  let queue: { id: number; fn: (t: number) => void }[] = [];
  Object.defineProperty(w, "requestAnimationFrame", {
    configurable: true,
    value: (fn: (t: number) => void) => {
      queue.push({ id: ++last, fn });
      return last;
    },
  });
  Object.defineProperty(w, "cancelAnimationFrame", {
    configurable: true,
    value: (id: number) => (queue = queue.filter((c) => c.id !== id)),
  });
  // Resize observations, reported after the frame's callbacks as a browser's rendering step does: each target
  // observed afresh is reported in the next frame (a test of ours observes the root every frame).
  let observed: { report: () => void }[] = [];
  Object.defineProperty(w, "ResizeObserver", {
    configurable: true,
    value: class {
      #cb: () => void;
      #on = true;
      constructor(cb: () => void) {
        this.#cb = cb;
      }
      observe() {
        this.#on = true;
        if (!observed.some((o) => o.report === this.#report)) observed.push({ report: this.#report });
      }
      unobserve() {}
      disconnect() {
        this.#on = false;
      }
      #report = () => {
        if (this.#on) this.#cb();
      };
    },
  });
  /** Runs every callback requested before the frame began (those it requests wait for the next), then reports the resize observations. */
  const frame = () => {
    const run = queue;
    queue = [];
    for (const c of run) c.fn(performance.now());
    // After the mutation records the callbacks made (microtasks, delivered after each callback in a browser).
    const report = observed;
    observed = [];
    queueMicrotask(() => {
      for (const o of report) o.report();
    });
  };
  // Timers numbered from one counter for every world, as a document numbers them in Chromium
  // (happy-dom hands out objects). `pageTimeout` is the page world's: our world's is wrapped.
  let lastTimer = 0;
  const live = new Map<number, ReturnType<typeof setTimeout>>();
  const pageTimeout = (fn: () => void, ms = 0): number => {
    const id = ++lastTimer;
    const t = setTimeout(() => {
      live.delete(id);
      timers.delete(t);
      fn();
    }, ms);
    live.set(id, t);
    timers.add(t);
    return id;
  };
  Object.defineProperty(w, "setTimeout", { configurable: true, writable: true, value: pageTimeout });
  Object.defineProperty(w, "clearTimeout", {
    configurable: true,
    writable: true,
    value: (id: number) => {
      const t = live.get(id);
      if (t) {
        clearTimeout(t);
        timers.delete(t);
        live.delete(id);
      }
    },
  });
  // Idle callbacks, run when the test says the main thread has nothing pending.
  let lastIdle = 0;
  let idles: { id: number; fn: () => void }[] = [];
  Object.defineProperty(w, "requestIdleCallback", {
    configurable: true,
    writable: true,
    value: (fn: () => void) => {
      idles.push({ id: ++lastIdle, fn });
      return lastIdle;
    },
  });
  Object.defineProperty(w, "cancelIdleCallback", {
    configurable: true,
    writable: true,
    value: (id: number) => (idles = idles.filter((c) => c.id !== id)),
  });
  const idle = () => {
    const run = idles;
    idles = [];
    for (const c of run) c.fn();
  };
  return { w, frame, pageTimeout, idle };
}

export const SETTLE = { op: "settle", ids: [1], quietFor: 50, syncQuietFor: 0, frames: 3, max: 60_000, finish: true };

/** The settle's answer, or "waiting" while it has none after the page's pending tasks ran. */
export async function settledWithoutFrames(p: Promise<unknown>): Promise<Settled | "waiting"> {
  let out: Settled | undefined;
  void p.then((r) => (out = r as Settled));
  // Its look in the next task (a timer or a message of its own) has run after a few of ours.
  for (let i = 0; i < 20 && !out; i++) await tick();
  return out ?? "waiting";
}

export const channels: [string, boolean][] = [
  ["timer tasks", false],
  ["MessageChannel tasks", true],
];
