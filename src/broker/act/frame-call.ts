import type { FrameWorld } from "../frame-world.ts";
import type { PageFn } from "../../page/runtime.ts";
import type { ResolvedRef } from "../observe/resolve-ref.ts";
import { BpError } from "../../shared/errors.ts";
import { callFn, type PageArg, type PageResult } from "../page-fns.ts";

export function frameOfRef(r: ResolvedRef): FrameWorld {
  return { session: r.binding.session, frameId: r.binding.frameId, offset: r.binding.offset };
}

/** The ref an action located (its definition has `locate`, so the pipeline resolved it before dispatch). */
export function locatedRef(r: ResolvedRef | undefined): ResolvedRef {
  if (!r) throw new BpError("internal_error", "The action located no ref.");
  return r;
}

export type ElementFn = Extract<PageFn, "act" | "drag" | "edit" | "scroll" | "select" | "upload">;

/** Runs a page-runtime script in a frame's world with no element: its answer is the function's (the op's) own. */
export function callInFrame<F extends ElementFn, A extends PageArg<F>>(
  f: FrameWorld,
  fn: F,
  arg: A,
): Promise<PageResult<F, A>> {
  return callFn(f, fn, arg);
}

/**
 * Runs a page-runtime script with an element an earlier call left in our world's `slot` (an
 * option found inside a listbox, a file input inside a drop zone).
 */
export function callOnSlot<F extends ElementFn, A extends PageArg<F>>(
  f: FrameWorld,
  slot: string,
  fn: F,
  arg: A,
): Promise<PageResult<F, A>> {
  return callFn(f, fn, arg, { slot });
}

export { frameLoader } from "../observe/frame-list.ts";
