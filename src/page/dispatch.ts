/**
 * The page runtime itself: installed once per isolated world (= once per document and frame)
 * by `install`, then called by name. A call is a list of steps run in order in one CDP round
 * trip, so an action can resolve its ref, probe it and arm the quiet watcher at once, and read
 * its evidence back in the same call as the snapshot that follows.
 *
 * Steps: `{ fn, arg, ref?, slot?, when?, unlessFocused? }`. Element scripts get `(win, el, arg)` with the ref's
 * element (or the element an earlier call left in `slot`, or null); window scripts get
 * `(win, arg)`. `when: { step }` runs a step only if that earlier quiet settle step reported
 * the page settled; `unlessFocused` skips a step when the one before it answered `focused: true`.
 * The runtime also names its document with a random token: refs carry it, so a ref used in
 * another document is caught without asking the browser.
 *
 * The tables below are the names the broker calls by; as object keys they survive the
 * bundle's minifier, and `PageFn` (their keys) types the broker's steps.
 */
import type { ActElement, ActWindow } from "./act/dom.ts";
import { type DRAG_OPS, pageDrag } from "./act/drag.ts";
import { type EDIT_OPS, editedElement, pageEdit } from "./act/edit.ts";
import { type ACT_OPS, pageAct } from "./act/probe.ts";
import { inputClock } from "./settle/input.ts";
import { watchChurn } from "./settle/churn.ts";
import { ownFrame } from "./settle/frames.ts";
import { pageQuiet } from "./settle/settle.ts";
import { pageScroll } from "./act/scroll.ts";
import { type SELECT_OPS, pageSelect } from "./act/select.ts";
import { type UPLOAD_OPS, pageUpload } from "./act/upload.ts";
import { pageFind } from "./inspect/find.ts";
import { pageFrameElement, pageHostElement } from "./inspect/compose.ts";
import {
  listenedFresh,
  markDelegated,
  markListened,
  remarkListened,
  type MarkExtra,
} from "./snapshot/listener-mark.ts";
import {
  authField,
  focusedFrame,
  hitAt,
  openPopup,
  selectorRect,
  slotElement,
  viewState,
  waitSelector,
  waitText,
} from "./probes.ts";
import { pageRead } from "./inspect/read.ts";
import { pageResolveRef } from "./snapshot/resolve.ts";
import { pageSearch } from "./inspect/search.ts";
import { snapshotMain } from "./snapshot/main.ts";
import type { SpecsOf } from "./ops.ts";
import type { QuietOps } from "./settle/ops.ts";
import type { PageDocument, PageElement, PageWindow, RefRegistry, SnapshotOptions, SnapshotResult } from "./types.ts";

/**
 * The snapshot; with `ifMarked`, null unless this document's click-listener marks still hold
 * (listener-mark.ts). With `remark` as well, marks that no longer hold are made again from the
 * elements last handed over and the snapshot says so (`marksRemade`): the broker keeps it if
 * the browser still lists the same listeners.
 */
export function snapshot(
  win: PageWindow,
  opts?: SnapshotOptions & { ifMarked?: boolean; remark?: boolean },
): SnapshotResult | null {
  // An observed document is likely acted on next: its input clock's listeners go in now, not in the first action's locate call.
  inputClock(win as ActWindow);
  watchChurn(win as ActWindow);
  if (!opts?.ifMarked || listenedFresh(win)) {
    // Items a delegating container rendered since its marking (suggestions, a calendar's days).
    markDelegated(win);
    return snapshotMain(win, opts);
  }
  if (!opts.remark || !remarkListened(win)) return null;
  return { ...snapshotMain(win, opts), marksRemade: true };
}

/** Scripts taking `(win, el, arg)`. */
const ELEMENT = {
  act: pageAct,
  drag: pageDrag,
  edit: pageEdit,
  scroll: pageScroll,
  select: pageSelect,
  upload: pageUpload,
};

/** Scripts taking `(win, arg)`. */
const WINDOW = {
  snapshot,
  quiet: pageQuiet,
  read: pageRead,
  search: pageSearch,
  find: pageFind,
  waitText,
  waitSelector,
  hitAt,
  viewState,
  selectorRect,
  authField,
  openPopup,
  /** Whether focus is inside a frame this world cannot enter (its keys go to another document). */
  focusInFrame: (win: ActWindow): boolean => focusedFrame(win) !== null,
};

/** The iframe element of a same-origin frame path ("1.2") of the latest snapshot. */
export function framePath(win: PageWindow, path: string): PageElement | null {
  const reg = Reflect.get(win, Symbol.for("browser-pilot.ref-registry.v1")) as RefRegistry | undefined;
  return reg?.paths?.get(path) ?? null;
}

/** The element behind a ref, or null (for CDP calls that need the node itself). */
export function refElement(win: PageWindow, ref: number): PageElement | null {
  return pageResolveRef(win, ref).element;
}

/** Functions that answer with a page object (an element, the document), kept as a remote object. */
const OBJECTS = {
  frameElement: pageFrameElement,
  hostElement: pageHostElement,
  refElement,
  framePath,
  focusedFrame,
  slotElement,
  editedElement,
  document: (win: PageWindow): PageDocument => win.document,
};

/** The functions a step can name, by their call names: the broker types its calls from these signatures (src/broker/page-fns.ts). */
export type ElementFns = typeof ELEMENT;
export type WindowFns = typeof WINDOW;

/**
 * The ops of the functions that answer per `op` (src/page/ops.ts), by call name: a step's
 * argument is one op's own and its result that op's, not the union of all of them.
 */
export interface PageOps {
  act: SpecsOf<typeof ACT_OPS>;
  drag: SpecsOf<typeof DRAG_OPS>;
  edit: SpecsOf<typeof EDIT_OPS>;
  select: SpecsOf<typeof SELECT_OPS>;
  upload: SpecsOf<typeof UPLOAD_OPS>;
  quiet: QuietOps;
}

/** `ref` checks that the step's ref still resolves (its result: null, or why not) and stops the call if not. */
export type PageFn = keyof typeof ELEMENT | keyof typeof WINDOW | "ref";
export type PageObjectFn = keyof typeof OBJECTS;

export interface PageStep {
  fn: PageFn;
  arg?: object;
  ref?: number;
  slot?: string;
  when?: { step: number };
  /** Skipped (answers null) when the step right before answered `focused: true`: a pointer probe for a field that has focus already. */
  unlessFocused?: true;
}

export interface PageCall {
  steps: PageStep[];
  doc?: string;
  /** Answer the ms each step took (`tm`): the broker's off-by-default timing (src/cdp/phases.ts). */
  tm?: 1;
}

export interface PageReply {
  /** This document's token. */
  doc: string;
  /** Set when the caller expected another document: no step ran. */
  otherDocument?: true;
  results: unknown[];
  tm?: number[];
}

export interface Runtime {
  run(call: PageCall): Promise<PageReply>;
  /** `run`, answered as JSON text (what the broker's calls return; see runtime.ts). */
  text(call: PageCall): string | Promise<string>;
  object(fn: PageObjectFn, arg: unknown): unknown;
  markListened(els: PageElement[], extra?: MarkExtra): number;
  /** Follows the top document's churn and input from its DOMContentLoaded (the browser calls it in bp's own tabs). */
  follow(): void;
}

type Loose = (win: ActWindow, ...args: unknown[]) => unknown;

function has<T extends object>(table: T, key: string): key is Extract<keyof T, string> {
  return Object.prototype.hasOwnProperty.call(table, key);
}

/** A step held back for a settle step runs only once that step reported the page settled. */
function settled(p: unknown): boolean {
  return typeof p === "object" && p !== null && (p as { settled?: unknown }).settled === true;
}

function focusedAnswer(p: unknown): boolean {
  return typeof p === "object" && p !== null && (p as { focused?: unknown }).focused === true;
}

/** Installs the runtime on our world's window under `key` (non-enumerable: the page never sees this world). */
export function install(win: ActWindow, key: symbol): Runtime {
  const token = (): string => {
    const a = new Uint32Array(2);
    win.crypto.getRandomValues(a);
    return (a[0] ?? 0).toString(36) + (a[1] ?? 0).toString(36);
  };
  let doc = win.document,
    docToken = token();
  const clock = (): number => win.performance?.now() ?? Date.now();
  const element = (step: PageStep): ActElement | null => {
    if (typeof step.ref === "number") return pageResolveRef(win, step.ref).element as ActElement | null;
    if (step.slot) return slotElement(win, step.slot);
    return null;
  };
  /** This document's token, renewed when the window holds another document than before. */
  const currentToken = (): string => {
    if (doc !== win.document) {
      doc = win.document;
      docToken = token();
    }
    return docToken;
  };
  /** One page function's step (not `ref`, not held back): its result or the promise of it. */
  const callStep = (st: PageStep): unknown => {
    const fn = st.fn;
    const arg = st.arg || {};
    if (has(ELEMENT, fn)) return (ELEMENT[fn] as Loose)(win, element(st), arg);
    if (has(WINDOW, fn)) return (WINDOW[fn] as Loose)(win, arg);
    throw new Error(`no page function ${String(fn)}`);
  };
  const rt: Runtime = {
    async run(call) {
      const tok = currentToken();
      if (call.doc && call.doc !== tok) return { doc: tok, otherDocument: true, results: [] };
      const out: unknown[] = [];
      const tm: number[] | undefined = call.tm ? [] : undefined;
      for (const st of call.steps) {
        const t0 = tm ? clock() : 0;
        if ((st.when && !settled(out[st.when.step])) || (st.unlessFocused && focusedAnswer(out[out.length - 1]))) {
          out.push(null);
          tm?.push(0);
          continue;
        }
        if (st.fn === "ref") {
          // Resolves the step's ref; when it is gone, no later step runs.
          const why = pageResolveRef(win, Number(st.ref)).reason;
          out.push(why);
          tm?.push(Math.round((clock() - t0) * 10) / 10);
          if (why) break;
          continue;
        }
        out.push(await callStep(st));
        tm?.push(Math.round((clock() - t0) * 10) / 10);
      }
      return tm ? { doc: docToken, results: out, tm } : { doc: docToken, results: out };
    },
    text(call) {
      // A call of one step whose function answers at once (a snapshot) answers at once too: no
      // promise for Chromium to wait on. Longer calls keep run's turn between steps.
      const only = call.steps.length === 1 ? call.steps[0] : undefined;
      if (only && only.fn !== "ref" && !only.when) {
        const tok = currentToken();
        if (call.doc && call.doc !== tok) return JSON.stringify({ doc: tok, otherDocument: true, results: [] });
        const r = callStep(only);
        if (!(r instanceof Promise)) return JSON.stringify({ doc: tok, results: [r] });
        return r.then((v) => JSON.stringify({ doc: docToken, results: [v] }));
      }
      return rt.run(call).then((reply) => JSON.stringify(reply));
    },
    object(fn, arg) {
      if (!has(OBJECTS, fn)) throw new Error(`no page function ${String(fn)}`);
      return (OBJECTS[fn] as Loose)(win, arg);
    },
    markListened(els, extra) {
      return markListened(win, els, extra);
    },
    follow() {
      followFromLoad(win);
    },
  };
  Object.defineProperty(win, key, { value: rt, configurable: true, enumerable: false, writable: true });
  return rt;
}

/**
 * The top document's own loops are followed from its DOMContentLoaded (the browser installs the runtime at each new
 * document's start), not from the agent's first look: an action taken a moment after `open` then knows a loop that
 * ran before it (settle/churn.ts), where a look 30 ms before the action saw too few of its frames.
 */
function followFromLoad(win: ActWindow): void {
  try {
    if (win.parent !== win) return;
    const start = (): void => {
      try {
        inputClock(win);
        watchChurn(win);
        // A first frame of ours while the page renders its own at its load: an action's watcher then needs none of
        // its own before the action's input (quiet.ts), which would take the tick the frame after the input needs.
        ownFrame(win, () => undefined);
      } catch {
        // Followed from the first look instead.
      }
    };
    if (win.document.readyState === "loading") win.addEventListener("DOMContentLoaded", start, { once: true });
    else start();
  } catch {
    // A document that refuses it is followed from the first look, as before.
  }
}
