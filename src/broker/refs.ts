import type { CdpSession } from "../cdp/session.ts";
import type { SnapshotResult } from "../page/types.ts";

/** Where a ref lives: the session, frame and document (loader) it was observed in. */
export interface RefBinding {
  session: CdpSession;
  frameId: string;
  loaderId: string;
  /** Frame path shown to the agent ("" for the top document). */
  framePath: string;
  /** Top-level viewport px (out-of-process frames). */
  offset: { x: number; y: number };
  /** The page runtime's token of that document: a ref used in another document is caught page-side. */
  doc?: string;
  /** The same-origin child frame holding the element, when observed inline: it settles by its own rules. */
  childFrame?: string;
}

/** What one agent has observed of one tab's current document: which refs it was shown and where each lives. */
export class TabObservation {
  nextRef = 1;
  readonly refs = new Map<number, RefBinding>();
  last: SnapshotResult | undefined;
  seq = 0;
  /** The document this agent observed before this one, so its refs report why they went stale. */
  previous: { url: string; nextRef: number } | undefined;
  /** Numbering continues across a tab's documents: a lower ref is stale, never another element. */
  firstRef = 1;
  authSeen: boolean | undefined;
  /** The site (host without its leftmost labels) of the page where that login was seen. */
  authSite: string | undefined;
  humanControlBelow: number | undefined;
  doc: string | undefined;
  /**
   * The session's main-frame navigation count when the frame tree last named `mainLoaderId` (no document came since).
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
