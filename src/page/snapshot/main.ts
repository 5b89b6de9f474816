/**
 * One snapshot, start to finish: set up the run, walk the composed tree once, number the
 * candidates, fold, apply the output limits, derive hints. Runs in the page (the bundle's
 * `snapshot`) or on a happy-dom window in unit tests.
 *
 * One linear walk (DESIGN.md §7): inherited facts (visibility, clipping, modal and label scope,
 * frame offsets) flow top-down in a per-element context and names from content accumulate in
 * the same walk, so no candidate walks its ancestors or re-walks its subtree.
 */
import type { PageWindow, SnapshotOptions, SnapshotResult } from "../types.ts";
import { assignRefs, foldEntries, matchesFind, overBudget } from "./fold.ts";
import { buildHints } from "./hints.ts";
import { liveTexts } from "./live.ts";
import { applyLimits } from "./limits.ts";
import { createRun } from "./setup.ts";
import { bound, cut } from "./text.ts";
import { textBlocks } from "./texts.ts";
import { walkDocument } from "./walk.ts";

export function snapshotMain(win: PageWindow, opts?: SnapshotOptions): SnapshotResult {
  const started = Date.now();
  const run = createRun(win, opts || {}, started);
  walkDocument(run);
  const refs = assignRefs(run);
  if (run.FIND) run.recs = run.recs.filter((r) => r.kind === "frame" || matchesFind(run, r));
  // Folding hides names, so it is only for snapshots that would not fit otherwise.
  let limited = applyLimits(run, foldEntries(run, false));
  if (!run.FIND && run.FOLD_MIN > 0 && overBudget(limited.truncationReasons))
    limited = applyLimits(run, foldEntries(run, true));
  const hints = buildHints(run);
  const live = liveTexts(run);
  // Read for every snapshot (an action's outcome compares them); listed only with --text.
  const texts = textBlocks(run);

  let title = "";
  let url = "";
  try {
    title = cut(
      bound(String(run.topDoc.title || ""), 8192)
        .replace(/\s+/g, " ")
        .trim(),
      4096,
    );
    url = cut(String(run.topDoc.URL || ""), 16384);
  } catch {
    run.errors++;
  }

  return {
    title,
    url,
    page: run.page,
    ...(live.length > 0 ? { live } : {}),
    texts,
    elements: limited.elements,
    totalCandidates: refs.totalCandidates,
    candidateRefs: refs.candidateRefs,
    truncated: limited.truncationReasons.length > 0,
    truncationReasons: limited.truncationReasons,
    hints,
    layout: run.LAYOUT,
    stats: {
      visitedNodes: run.visited,
      candidates: refs.totalCandidates,
      frames: run.frames,
      errors: run.errors,
      nextRef: run.registry.next,
      ms: Date.now() - run.started,
    },
  };
}
