import type { CdpSession } from "../cdp/session.ts";

/** A frame's isolated world, where its content sits, and for observations the document it was seen in. */
export interface FrameWorld {
  session: CdpSession;
  frameId: string;
  /** Top-left of the frame's content in top-level viewport px. */
  offset: { x: number; y: number };
  loaderId?: string;
  /** Frame path shown to the agent ("" for the top document). */
  framePath?: string;
  /** Its session's top frame: the page's main world is the session's default context. */
  top?: boolean;
  /** Top-level viewport size, to judge what is on screen inside an out-of-process frame. */
  viewport?: { w: number; h: number };
  /** The page runtime's token of the document: a ref used elsewhere is caught page-side. */
  doc?: string;
  /** The same-origin child frame holding a ref's element observed inline here. */
  childFrame?: string;
}
