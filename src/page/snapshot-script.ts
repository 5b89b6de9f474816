/**
 * The page-side observation engine.
 *
 * `pageSnapshot` runs inside the page (a CDP isolated world in Chromium, a happy-dom window in
 * unit tests). The page gets it through the page bundle (`entry.ts` exports `snapshotMain` of
 * `./snapshot/main.ts` as `snapshot`), bundled with the helpers it imports at build time.
 *
 * Design (DESIGN.md §7): one linear walk of the composed tree. Inherited facts (visibility,
 * transparency, disabled fieldsets, clipping, modal scope, label scope, frame offsets) are
 * computed top-down into a per-element context, so no candidate ever walks its ancestors, and
 * accessible names from content are accumulated from the same walk (bounded per candidate), so no
 * candidate re-walks its subtree either. Refs live in a per-document registry on the window.
 */
import { snapshotMain } from "./snapshot/main.ts";
import type { PageWindow, SnapshotOptions, SnapshotResult } from "./types.ts";

export function pageSnapshot(win: PageWindow, opts?: SnapshotOptions): SnapshotResult {
  return snapshotMain(win, opts);
}
