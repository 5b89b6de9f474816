/**
 * The page-side observation engine (`pageSnapshot`, bundled as `snapshot`; runs in an isolated world or happy-dom). One
 * linear walk of the composed tree (DESIGN.md §7): inherited facts are computed top-down into a per-element context and
 * accessible names accumulate in the same walk, so no candidate re-walks its ancestors or subtree.
 */
import { snapshotMain } from "./snapshot/main.ts";
import type { PageWindow, SnapshotOptions, SnapshotResult } from "./types.ts";

export function pageSnapshot(win: PageWindow, opts?: SnapshotOptions): SnapshotResult {
  return snapshotMain(win, opts);
}
