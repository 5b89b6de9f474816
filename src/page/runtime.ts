/** The broker's side of the page runtime (page/dispatch.ts): declarations that install it or call it by name. */
import { PAGE_LIBRARY } from "./bundle.ts";

import type { PageReply } from "./dispatch.ts";

export type {
  ElementFns,
  PageCall,
  PageFn,
  PageObjectFn,
  PageOps,
  PageReply,
  PageStep,
  WindowFns,
} from "./dispatch.ts";

function hash(text: string): string {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return (h >>> 0).toString(36);
}

/** One name per build of the page code, so two versions never call each other's functions. */
export const RUNTIME_KEY = `browser-pilot.runtime.${hash(PAGE_LIBRARY)}`;

const KEY_EXPR = `Symbol.for(${JSON.stringify(RUNTIME_KEY)})`;

const INSTALLED = `(window[${KEY_EXPR}] || ${PAGE_LIBRARY}.install(window, ${KEY_EXPR}))`;

/** Installed in every new document's world by the browser, compiled once through Chromium's code cache. */
export const INSTALL_ON_NEW_DOCUMENT = `${INSTALLED};`;

/** The same in bp's own tabs, following the top document's churn and input from its load (dispatch.ts follow). */
export const INSTALL_AND_FOLLOW_ON_NEW_DOCUMENT = `${INSTALLED}.follow();`;

/** Replies come back as JSON text: Chromium's field-by-field object conversion cost more than a small snapshot. */

export const INSTALL_AND_RUN = `function (call) { return ${INSTALLED}.text(call); }`;

export const RUN = `function (call) { var rt = window[${KEY_EXPR}]; return rt ? rt.text(call) : { missing: true }; }`;

/** As INSTALL_AND_RUN, first marking the further arguments click-listened: marks and snapshot in one call. */
export const INSTALL_MARK_AND_RUN = `function (call) { var rt = ${INSTALLED}; rt.markListened(Array.prototype.slice.call(arguments, 1), call.mk); return rt.text(call); }`;
export const MARK_AND_RUN = `function (call) { var rt = window[${KEY_EXPR}]; if (!rt) return { missing: true }; rt.markListened(Array.prototype.slice.call(arguments, 1), call.mk); return rt.text(call); }`;

export function readReply(value: unknown): PageReply | { missing: true } {
  if (typeof value === "string") return JSON.parse(value) as PageReply;
  if (typeof value === "object" && value !== null && (value as { missing?: unknown }).missing === true)
    return { missing: true };
  throw new Error("page runtime: unexpected reply");
}

export const MISSING = "browser-pilot:missing";

/** `{ fn, arg }` → the runtime's `fn(window, arg)`, kept as a remote object. */
export const INSTALL_AND_OBJECT = `function (call) { return ${INSTALLED}.object(call.fn, call.arg); }`;

export const OBJECT = `function (call) { var rt = window[${KEY_EXPR}]; return rt ? rt.object(call.fn, call.arg) : ${JSON.stringify(MISSING)}; }`;
