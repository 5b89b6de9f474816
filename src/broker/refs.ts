import type { CdpSession } from "../cdp/session.ts";
import type { SnapshotResult } from "../page/types.ts";

/** Where a ref lives: the frame's session, frame and document (loader) it was observed in. */
export interface RefBinding {
  session: CdpSession;
  frameId: string;
  loaderId: string;
  /** Frame path shown to the agent ("" for the top document). */
  framePath: string;
  /** Top-left of the frame's content in top-level viewport px (for out-of-process frames). */
  offset: { x: number; y: number };
  /** The page runtime's token of that document: a ref used in another document is caught page-side. */
  doc?: string;
  /**
   * The same-origin child frame whose document holds the element, when observed inline in this document's snapshot: it
   * settles by its own rules.
   */
  childFrame?: string;
}

/**
 * What one agent has observed of one tab's current document: which page-numbered refs it was shown and where each
 * lives, so a ref is re-checked before use and another key's ref is unknown.
 */
export class TabObservation {
  nextRef = 1;
  readonly refs = new Map<number, RefBinding>();
  last: SnapshotResult | undefined;
  seq = 0;
  /** The document this agent observed before this one, so its refs report why they went stale. */
  previous: { url: string; nextRef: number } | undefined;
  /**
   * The lowest ref of this document: numbering continues across a tab's documents, so a lower ref is stale, never
   * another element.
   */
  firstRef = 1;
  /** Whether this agent's latest observation of the tab (in any document) showed a login surface. */
  authSeen: boolean | undefined;
  /** The site (host without its leftmost labels) of the page where that login was seen. */
  authSite: string | undefined;
  /** Refs numbered below this were invalidated when a person handed the tab back. */
  humanControlBelow: number | undefined;
  /** The page runtime's token of the top document at this agent's latest snapshot of it. */
  doc: string | undefined;
  /**
   * The tab session's main-frame navigation count (world.ts) when the frame tree last named `mainLoaderId`: while it
   * holds, no other document came.
   */
  confirmedAt = -1;

  constructor(
    readonly generation: number,
    readonly targetId: string,
    readonly mainLoaderId: string,
    readonly url: string,
  ) {}

  bind(ref: number, binding: RefBinding): void {
    this.refs.set(ref, binding);
    if (ref >= this.nextRef) this.nextRef = ref + 1;
  }
}
