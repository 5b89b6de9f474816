/**
 * The page runtime: installed once per isolated world by `install`, then called by name. A call is a list of steps run
 * in one CDP round trip (resolve, probe, arm, read back, snapshot).
 * Steps: `{ fn, arg, ref?, slot?, when?, unlessFocused? }`; `when: { step }` runs only if that settle step said
 * settled. The document's random token rides on refs, so a ref from another document is caught page-side.
 */
import type { ActElement, ActWindow } from "./act/dom.ts";
import { DRAG_OPS, pageDrag } from "./act/drag.ts";
import { EDIT_OPS, editedElement, pageEdit } from "./act/edit.ts";
import { ACT_OPS, pageAct } from "./act/probe.ts";
import { inputClock } from "./act-input.ts";
import { pageQuiet } from "./act-settle.ts";
import { pageScroll } from "./act/scroll.ts";
import { SELECT_OPS, pageSelect } from "./act/select.ts";
import { UPLOAD_OPS, pageUpload } from "./act/upload.ts";
import { pageFind } from "./inspect/find.ts";
import { pageFrameElement, pageHostElement } from "./inspect/compose.ts";
import { listenedFresh, markDelegated, markListened, remarkListened, type MarkExtra } from "./snapshot/listener-mark.ts";
import { authField, focusedFrame, hitAt, openPopup, selectorRect, slotElement, viewState, waitSelector, waitText } from "./probes.ts";
import { pageRead } from "./inspect/read.ts";
import { pageResolveRef } from "./snapshot/resolve.ts";
import { pageSearch } from "./inspect/search.ts";
import { snapshotMain } from "./snapshot/main.ts";
import type { SpecsOf } from "./ops.ts";
import type { QuietOps } from "./quiet-ops.ts";
import type { PageDocument, PageElement, PageWindow, RefRegistry, SnapshotOptions, SnapshotResult } from "./types.ts";

/**
 * The snapshot; with `ifMarked`, null unless the click-listener marks still hold; with `remark`, stale marks are
 * remade.
 */
export function snapshot(win: PageWindow, opts?: SnapshotOptions & { ifMarked?: boolean; remark?: boolean }): SnapshotResult | null {
  // An observed document is likely acted on next: install its input clock now.
  inputClock(win as ActWindow);
  if (!opts?.ifMarked || listenedFresh(win)) {
    // Items a delegating container rendered since its marking (suggestions, a calendar's days).
    markDelegated(win);
    return snapshotMain(win, opts);
  }
  if (!opts.remark || !remarkListened(win)) return null;
  return { ...snapshotMain(win, opts), marksRemade: true };
}

const ELEMENT = { act: pageAct, drag: pageDrag, edit: pageEdit, scroll: pageScroll, select: pageSelect, upload: pageUpload };

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

export function framePath(win: PageWindow, path: string): PageElement | null {
  const reg = Reflect.get(win, Symbol.for("browser-pilot.ref-registry.v1")) as RefRegistry | undefined;
  return reg?.paths?.get(path) ?? null;
}

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

/** The functions a step can name: the broker types its calls from these (broker/page-fns.ts). */
export type ElementFns = typeof ELEMENT;
export type WindowFns = typeof WINDOW;

/** The ops of per-`op` functions (ops.ts) by call name. */
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
  /** Skipped when the step before answered `focused: true` (a pointer probe for a focused field). */
  unlessFocused?: true;
}

export interface PageCall {
  steps: PageStep[];
  doc?: string;
}

export interface PageReply {
  doc: string;
  /** Set when the caller expected another document: no step ran. */
  otherDocument?: true;
  results: unknown[];
}

export interface Runtime {
  run(call: PageCall): Promise<PageReply>;
  text(call: PageCall): string | Promise<string>;
  object(fn: PageObjectFn, arg: unknown): unknown;
  markListened(els: PageElement[], extra?: MarkExtra): number;
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
  let doc = win.document, docToken = token();
  const element = (step: PageStep): ActElement | null => {
    if (typeof step.ref === "number") return pageResolveRef(win, step.ref).element as ActElement | null;
    if (step.slot) return slotElement(win, step.slot);
    return null;
  };
  const currentToken = (): string => {
    if (doc !== win.document) {
      doc = win.document;
      docToken = token();
    }
    return docToken;
  };
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
      for (const st of call.steps) {
        if ((st.when && !settled(out[st.when.step])) || (st.unlessFocused && focusedAnswer(out[out.length - 1]))) {
          out.push(null);
          continue;
        }
        if (st.fn === "ref") {
          const why = pageResolveRef(win, Number(st.ref)).reason;
          out.push(why);
          if (why) break;
          continue;
        }
        out.push(await callStep(st));
      }
      return { doc: docToken, results: out };
    },
    text(call) {
      // A one-step call that answers at once (a snapshot) returns no promise for Chromium to wait on.
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
  };
  Object.defineProperty(win, key, { value: rt, configurable: true, enumerable: false, writable: true });
  return rt;
}
