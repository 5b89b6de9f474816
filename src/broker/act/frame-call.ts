import type { CdpSession } from "../../cdp/session.ts";
import type { PageFn } from "../../page/runtime.ts";
import type { ResolvedRef } from "../observe/resolve-ref.ts";
import { BpError } from "../../shared/errors.ts";
import { callFn, type PageArg, type PageResult } from "../page-fns.ts";

/** One frame's isolated world, and where its content sits in the top-level viewport. */
export interface FrameRef {
  session: CdpSession;
  frameId: string;
  offset: { x: number; y: number };
}

export function frameOfRef(r: ResolvedRef): FrameRef {
  return { session: r.binding.session, frameId: r.binding.frameId, offset: r.binding.offset };
}

/** The ref an action located (its definition has `locate`, so the pipeline resolved it before dispatch). */
export function locatedRef(r: ResolvedRef | undefined): ResolvedRef {
  if (!r) throw new BpError("internal_error", "The action located no ref.");
  return r;
}

export type ElementFn = Extract<PageFn, "act" | "drag" | "edit" | "scroll" | "select" | "upload">;

/** Runs a page-runtime script in a frame's world with no element: its answer is the function's (the op's) own. */
export function callInFrame<F extends ElementFn, A extends PageArg<F>>(f: FrameRef, fn: F, arg: A): Promise<PageResult<F, A>> {
  return callFn(f, fn, arg);
}

/** Runs a page-runtime script on the element an earlier call left in our world's `slot`. */
export function callOnSlot<F extends ElementFn, A extends PageArg<F>>(f: FrameRef, slot: string, fn: F, arg: A): Promise<PageResult<F, A>> {
  return callFn(f, fn, arg, { slot });
}

export { frameLoader } from "../observe/frame-list.ts";
