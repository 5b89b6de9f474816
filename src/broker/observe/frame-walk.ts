import type { PageObjectFn } from "../../page/runtime.ts";
import type { FrameWorld } from "../frame-world.ts";
import type { FrameSessions } from "../frames.ts";
import { pageObject } from "../world.ts";

/** The iframe element the parent's page hands back (`fn`, `arg`); `release`: let go of it once read. */
export interface IframeElement {
  fn: PageObjectFn;
  arg: unknown;
  release?: boolean;
}

/** The frame id behind an iframe element of the parent's document. */
export async function iframeFrameId(parent: FrameWorld, el: IframeElement): Promise<string | undefined> {
  const objectId = await pageObject(parent.session, parent.frameId, el.fn, el.arg);
  if (!objectId) return undefined;
  const { node } = await parent.session.send("DOM.describeNode", { objectId });
  if (el.release) void parent.session.send("Runtime.releaseObject", { objectId }).catch(() => undefined);
  return node.frameId;
}

/**
 * Walks from a frame into a child frame (snapshot and inspect alike): the child's world, its
 * content placed `at` inside the parent's. An out-of-process frame has a session of its own;
 * with `inProcess`, a cross-origin frame in the parent's process (a sandboxed one) is reached
 * through the parent's session, else it is no child to walk into.
 */
export async function childWorld(frames: FrameSessions | undefined, parent: FrameWorld, frame: string | IframeElement, at: { x: number; y: number }, inProcess: boolean): Promise<FrameWorld | undefined> {
  const frameId = typeof frame === "string" ? frame : await iframeFrameId(parent, frame);
  if (!frameId) return undefined;
  const session = frames?.sessionFor(frameId) ?? (inProcess ? parent.session : undefined);
  if (!session) return undefined;
  return { session, frameId, offset: { x: parent.offset.x + at.x, y: parent.offset.y + at.y } };
}
