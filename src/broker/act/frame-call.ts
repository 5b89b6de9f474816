import type { CdpSession } from "../../cdp/session.ts";
import { RESOLVE_SOURCE } from "../../page/resolve-script.ts";
import type { ResolvedRef } from "../observe/resolve-ref.ts";
import { runInWorld } from "../world.ts";

/** One frame's isolated world, and where its content sits in the top-level viewport. */
export interface FrameRef {
  session: CdpSession;
  frameId: string;
  offset: { x: number; y: number };
}

export function frameOfRef(r: ResolvedRef): FrameRef {
  return { session: r.binding.session, frameId: r.binding.frameId, offset: r.binding.offset };
}

/** Runs a page script `(source)(win, el, arg)` with the element behind a ref. */
export function callOnRef<T>(r: ResolvedRef, source: string, arg: Record<string, unknown>): Promise<T> {
  const fn = `function (win, arg) { var el = (${RESOLVE_SOURCE})(win, arg.ref).element; return (${source})(win, el, arg); }`;
  return runInWorld<T>(r.binding.session, r.binding.frameId, fn, { ...arg, ref: r.ref });
}

/** Runs a page script `(source)(win, null, arg)` in a frame's world (no element). */
export function callInFrame<T>(f: FrameRef, source: string, arg: Record<string, unknown>): Promise<T> {
  return runInWorld<T>(f.session, f.frameId, `function (win, arg) { return (${source})(win, null, arg); }`, arg);
}

/**
 * Runs a page script with an element an earlier call left in our world's `slot` (an option
 * found inside a listbox, a file input inside a drop zone): `(source)(win, el, arg)`.
 */
export function callOnSlot<T>(f: FrameRef, slot: string, source: string, arg: Record<string, unknown>): Promise<T> {
  const fn = `function (win, arg) { var s = win[Symbol.for(${JSON.stringify(slot)})]; return (${source})(win, s ? s.el : null, arg); }`;
  return runInWorld<T>(f.session, f.frameId, fn, arg);
}

export { frameLoader } from "../observe/frame-list.ts";
