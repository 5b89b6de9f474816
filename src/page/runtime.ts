/**
 * The broker's side of the page runtime (page/dispatch.ts): the declarations that install it in an isolated world
 * (bundled code, once per world) or call an installed one by name. See `callPage` and `pageObject` in broker/world.ts.
 */
import { PAGE_LIBRARY } from "./bundle.ts";

import type { PageReply } from "./dispatch.ts";

export type { ElementFns, PageCall, PageFn, PageObjectFn, PageOps, PageReply, PageStep, WindowFns } from "./dispatch.ts";

function hash(text: string): string {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return (h >>> 0).toString(36);
}

/** One name per build of the page code, so two versions never call each other's functions. */
export const RUNTIME_KEY = `browser-pilot.runtime.${hash(PAGE_LIBRARY)}`;

const KEY_EXPR = `Symbol.for(${JSON.stringify(RUNTIME_KEY)})`;

/** The installed runtime, installing it first if this world lacks it. */
const INSTALLED = `(window[${KEY_EXPR}] || ${PAGE_LIBRARY}.install(window, ${KEY_EXPR}))`;

/**
 * Installed by the browser in every new document's world (Page.addScriptToEvaluateOnNewDocument), compiled there
 * through Chromium's code cache rather than anew per document.
 */
export const INSTALL_ON_NEW_DOCUMENT = `${INSTALLED};`;

/**
 * Replies come back as JSON text: Chromium converts a returned object field by field, which cost more than a small
 * page's snapshot walk.
 */

/** Installs the runtime (if this world lacks it) and runs the call: sent once per world. */
export const INSTALL_AND_RUN = `function (call) { return ${INSTALLED}.text(call); }`;

/** Runs the call in a world that already has the runtime; `{ missing: true }` if it does not. */
export const RUN = `function (call) { var rt = window[${KEY_EXPR}]; return rt ? rt.text(call) : { missing: true }; }`;

/**
 * As INSTALL_AND_RUN, first marking the elements passed as further arguments click-listened (listener-mark.ts): marks
 * and snapshot in one call.
 */
export const INSTALL_MARK_AND_RUN = `function (call) { var rt = ${INSTALLED}; rt.markListened(Array.prototype.slice.call(arguments, 1), call.mk); return rt.text(call); }`;
export const MARK_AND_RUN = `function (call) { var rt = window[${KEY_EXPR}]; if (!rt) return { missing: true }; rt.markListened(Array.prototype.slice.call(arguments, 1), call.mk); return rt.text(call); }`;

/** What one of the RUN declarations answered: the runtime's reply, or `{ missing: true }` from a world without it. */
export function readReply(value: unknown): PageReply | { missing: true } {
  if (typeof value === "string") return JSON.parse(value) as PageReply;
  if (typeof value === "object" && value !== null && (value as { missing?: unknown }).missing === true) return { missing: true };
  throw new Error("page runtime: unexpected reply");
}

/** What OBJECT answers in a world without the runtime. */
export const MISSING = "browser-pilot:missing";

/** `{ fn, arg }` → the runtime's object function `fn(window, arg)`, kept as a remote object; installs like INSTALL_AND_RUN. */
export const INSTALL_AND_OBJECT = `function (call) { return ${INSTALLED}.object(call.fn, call.arg); }`;

/** As INSTALL_AND_OBJECT in a world that already has the runtime; MISSING if it does not. */
export const OBJECT = `function (call) { var rt = window[${KEY_EXPR}]; return rt ? rt.object(call.fn, call.arg) : ${JSON.stringify(MISSING)}; }`;
