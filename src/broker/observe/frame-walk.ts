import type { PageObjectFn } from "../../page/runtime.ts";
import type { FrameWorld } from "../frame-world.ts";
import type { FrameSessions } from "../frames.ts";
import { pageObject } from "../world.ts";

/** The iframe element the parent's page hands back; `release`: let go of it once read. */
export interface IframeElement {
  fn: PageObjectFn;
  arg: unknown;
  release?: boolean;
}

export async function iframeFrameId(parent: FrameWorld, el: IframeElement): Promise<string | undefined> {
  const objectId = await pageObject(parent.session, parent.frameId, el.fn, el.arg);
  if (!objectId) return undefined;
  const { node } = await parent.session.send("DOM.describeNode", { objectId });
  if (el.release) void parent.session.send("Runtime.releaseObject", { objectId }).catch(() => undefined);
  return node.frameId;
}

/**
 * Walks into a child frame (snapshot and inspect), placed `at` inside the parent. With
 * `inProcess`, a cross-origin frame in the parent's process is reached through its session.
 */
export async function childWorld(
  frames: FrameSessions | undefined,
  parent: FrameWorld,
  frame: string | IframeElement,
  at: { x: number; y: number },
  inProcess: boolean,
): Promise<FrameWorld | undefined> {
  const frameId = typeof frame === "string" ? frame : await iframeFrameId(parent, frame);
  if (!frameId) return undefined;
  const session = frames?.sessionFor(frameId) ?? (inProcess ? parent.session : undefined);
  if (!session) return undefined;
  return { session, frameId, offset: { x: parent.offset.x + at.x, y: parent.offset.y + at.y } };
}
