import type { CdpSession } from "../../cdp/session.ts";
import type { PageFn } from "../../page/runtime.ts";
import type { ResolvedRef } from "../observe/resolve-ref.ts";
import { callPage } from "../world.ts";

/** One frame's isolated world, and where its content sits in the top-level viewport. */
export interface FrameRef {
  session: CdpSession;
  frameId: string;
  offset: { x: number; y: number };
}

export function frameOfRef(r: ResolvedRef): FrameRef {
  return { session: r.binding.session, frameId: r.binding.frameId, offset: r.binding.offset };
}

/** A page-runtime script taking `(win, el, arg)`. */
export type ElementFn = Extract<PageFn, "act" | "drag" | "edit" | "scroll" | "select" | "upload">;

async function one<T>(session: CdpSession, frameId: string, step: Parameters<typeof callPage>[2][number]): Promise<T> {
  return (await callPage(session, frameId, [step])).results[0] as T;
}

/** Runs a page-runtime script with the element behind a ref. */
export function callOnRef<T>(r: ResolvedRef, fn: ElementFn, arg: Record<string, unknown>): Promise<T> {
  return one<T>(r.binding.session, r.binding.frameId, { fn, ref: r.ref, arg });
}

/** Runs a page-runtime script in a frame's world with no element. */
export function callInFrame<T>(f: FrameRef, fn: ElementFn, arg: Record<string, unknown>): Promise<T> {
  return one<T>(f.session, f.frameId, { fn, arg });
}

/**
 * Runs a page-runtime script with an element an earlier call left in our world's `slot` (an
 * option found inside a listbox, a file input inside a drop zone).
 */
export function callOnSlot<T>(f: FrameRef, slot: string, fn: ElementFn, arg: Record<string, unknown>): Promise<T> {
  return one<T>(f.session, f.frameId, { fn, slot, arg });
}

export { frameLoader } from "../observe/frame-list.ts";
