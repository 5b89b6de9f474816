/**
 * The page runtime: every page-side module, installed once per isolated world (= once per
 * document and frame) and then called by name. A call is a list of steps run in order in one
 * CDP round trip, so an action can resolve its ref, probe it and arm the quiet watcher at
 * once, and read its evidence back in the same call as the snapshot that follows.
 *
 * Steps: `{ fn, arg, ref?, slot?, when? }`. Element scripts (`(win, el, arg)`) get the ref's
 * element (or the element an earlier call left in `slot`, or null); window scripts get
 * `(win, arg)`. `when: { step }` runs a step only if that earlier quiet settle step reported
 * the page settled. The runtime also names its document with a random token: refs
 * carry it, so a ref used in another document is caught without asking the browser.
 */
import { ACT_SOURCE, QUIET_SOURCE } from "./act-script.ts";
import { PAGE_LIBRARY } from "./bundle.ts";

/** Scripts taking `(win, el, arg)`. */
const ELEMENT_SCRIPTS = { act: ACT_SOURCE, drag: "L.drag", edit: "L.edit", scroll: "L.scroll", select: "L.select", upload: "L.upload" } as const;
/** Scripts taking `(win, arg)`; `L` is the bundled page library (entry.ts). */
const WINDOW_SCRIPTS = {
  snapshot: "L.snapshot", read: "L.read", search: "L.search", find: "L.find", waitText: "L.waitText", waitSelector: "L.waitSelector",
  hitAt: "L.hitAt", viewState: "L.viewState", selectorRect: "L.selectorRect", authField: "L.authField",
  openPopup: "L.openPopup", quiet: QUIET_SOURCE,
} as const;

/** `ref` checks that the step's ref still resolves (its result: null, or why not) and stops the call if not. */
export type PageFn = keyof typeof ELEMENT_SCRIPTS | keyof typeof WINDOW_SCRIPTS | "ref";

export interface PageStep {
  fn: PageFn;
  arg?: Record<string, unknown>;
  ref?: number;
  slot?: string;
  when?: { step: number };
}

export interface PageReply {
  /** This document's token. */
  doc: string;
  /** Set when the caller expected another document: no step ran. */
  otherDocument?: true;
  results: unknown[];
}

function hash(text: string): string {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return (h >>> 0).toString(36);
}

const entries = (o: Record<string, string>) => Object.entries(o).map(([k, v]) => `${JSON.stringify(k)}: ${v}`).join(",\n");

const BODY = `{
  var L = ${PAGE_LIBRARY}, resolve = L.resolve;
  var E = {${entries(ELEMENT_SCRIPTS)}};
  var W = {${entries(WINDOW_SCRIPTS)}};
  function token() { var a = new Uint32Array(2); win.crypto.getRandomValues(a); return a[0].toString(36) + a[1].toString(36); }
  var rt = { doc: win.document, token: token(), lib: L };
  function element(step) {
    if (typeof step.ref === "number") return resolve(win, step.ref).element;
    if (step.slot) { var s = win[Symbol.for(step.slot)]; return s ? s.el : null; }
    return null;
  }
  // A step held back for a settle step runs only once that step reported the page settled.
  function settled(p) { return !!(p && p.settled === true); }
  rt.run = async function (call) {
    if (rt.doc !== win.document) { rt.doc = win.document; rt.token = token(); }
    if (call.doc && call.doc !== rt.token) return { doc: rt.token, otherDocument: true, results: [] };
    var out = [];
    for (var i = 0; i < call.steps.length; i++) {
      var st = call.steps[i], arg = st.arg || {};
      if (st.when && !settled(out[st.when.step])) { out.push(null); continue; }
      var fn = st.fn;
      if (fn === "ref") {
        // Resolves the step's ref; when it is gone, no later step runs.
        var why = resolve(win, st.ref).reason;
        out.push(why);
        if (why) break;
        continue;
      }
      out.push(await (E[fn] ? E[fn](win, element(st), arg) : W[fn](win, arg)));
    }
    return { doc: rt.token, results: out };
  };
  Object.defineProperty(win, KEY, { value: rt, configurable: true, enumerable: false, writable: true });
}`;

/** One name per build of the page code, so two versions never call each other's functions. */
export const RUNTIME_KEY = `browser-pilot.runtime.${hash(BODY)}`;

const KEY_EXPR = `Symbol.for(${JSON.stringify(RUNTIME_KEY)})`;

/** Installs the runtime (if this world lacks it) and runs the call: sent once per world. */
export const INSTALL_AND_RUN = `function (call) { var win = window, KEY = ${KEY_EXPR}; if (!win[KEY]) ${BODY} return win[KEY].run(call); }`;

/** Runs the call in a world that already has the runtime; `{ missing: true }` if it does not. */
export const RUN = `function (call) { var rt = window[${KEY_EXPR}]; return rt ? rt.run(call) : { missing: true }; }`;

/**
 * As INSTALL_AND_RUN and RUN, first marking the elements passed as further arguments as
 * click-listened (listener-mark.ts), so the marks and the snapshot that reads them are one call.
 */
export const INSTALL_MARK_AND_RUN = `function (call) { var win = window, KEY = ${KEY_EXPR}; if (!win[KEY]) ${BODY} win[KEY].lib.markListened(win, Array.prototype.slice.call(arguments, 1)); return win[KEY].run(call); }`;
export const MARK_AND_RUN = `function (call) { var rt = window[${KEY_EXPR}]; if (!rt) return { missing: true }; rt.lib.markListened(window, Array.prototype.slice.call(arguments, 1)); return rt.run(call); }`;

/** The library functions that answer with a page object (an element, the document), for CDP calls that take one. */
export type PageObjectFn = "frameElement" | "hostElement" | "refElement" | "framePath" | "focusedFrame" | "slotElement" | "document";

/** What OBJECT answers in a world without the runtime. */
export const MISSING = "browser-pilot:missing";

/** `{ fn, arg }` → the library's `fn(window, arg)`, kept as a remote object; installs like INSTALL_AND_RUN. */
export const INSTALL_AND_OBJECT = `function (call) { var win = window, KEY = ${KEY_EXPR}; if (!win[KEY]) ${BODY} return win[KEY].lib[call.fn](win, call.arg); }`;

/** As INSTALL_AND_OBJECT in a world that already has the runtime; MISSING if it does not. */
export const OBJECT = `function (call) { var rt = window[${KEY_EXPR}]; return rt ? rt.lib[call.fn](window, call.arg) : ${JSON.stringify(MISSING)}; }`;
