import type { SnapshotResult } from "../page/types.ts";
import type { FrameWorld } from "./frame-world.ts";

/** What one agent has observed of one tab's current document: which refs it was shown and where each lives. */
export class TabObservation {
  nextRef = 1;
  readonly refs = new Map<number, FrameWorld>();
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

  bind(ref: number, binding: FrameWorld): void {
    this.refs.set(ref, binding);
    if (ref >= this.nextRef) this.nextRef = ref + 1;
  }
}
