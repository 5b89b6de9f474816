import type { CdpSession } from "../cdp/session.ts";

/**
 * A frame's isolated world: the session that owns the frame, the frame, and where its content
 * sits in the top-level viewport. Observations also know the document it was seen in.
 */
export interface FrameWorld {
  session: CdpSession;
  frameId: string;
  /** Top-left of the frame's content in top-level viewport px. */
  offset: { x: number; y: number };
  /** The document (loader) it was observed in. */
  loaderId?: string;
  /** Frame path shown to the agent ("" for the top document). */
  framePath?: string;
  /** The frame is its session's top frame (the page's main world is the session's default context). */
  top?: boolean;
  /** Top-level viewport size, for judging whether an element inside an out-of-process frame is on screen. */
  viewport?: { w: number; h: number };
  /** The page runtime's token of the document: a ref used in another document is caught page-side. */
  doc?: string;
  /** The same-origin child frame whose document holds a ref's element, when it was observed inline here. */
  childFrame?: string;
}
