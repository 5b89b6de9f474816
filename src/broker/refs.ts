import type { SnapshotResult } from "../page/types.ts";
import type { FrameWorld } from "./frame-world.ts";

/**
 * What one agent has observed of one tab's current document. Refs are numbered by the page
 * (stable per document, never reused); this records which of them this agent was shown and
 * where each lives, so a ref can be re-checked before use and another key's ref is unknown.
 */
export class TabObservation {
  nextRef = 1;
  readonly refs = new Map<number, FrameWorld>();
  last: SnapshotResult | undefined;
  seq = 0;
  /** The document this agent observed before this one, so its refs report why they went stale. */
  previous: { url: string; nextRef: number } | undefined;
  /**
   * The lowest ref of this document. Numbering continues across the documents of a tab (for
   * this agent), so a ref below it is from an earlier document: stale, never another element.
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
   * The tab session's count of main-frame navigation events (world.ts navigationCount) when the
   * frame tree last named `mainLoaderId`: while it holds, no other document can have come.
   */
  confirmedAt = -1;

  constructor(
    readonly generation: number,
    readonly targetId: string,
    readonly mainLoaderId: string,
    readonly url: string,
  ) {}

  bind(ref: number, binding: FrameWorld): void {
    this.refs.set(ref, binding);
    if (ref >= this.nextRef) this.nextRef = ref + 1;
  }
}
