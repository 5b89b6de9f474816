/**
 * The page-side observation engine.
 *
 * `pageSnapshot` runs inside the page (a CDP isolated world in Chromium, a happy-dom window in
 * unit tests). The page gets it as `SNAPSHOT_SOURCE`: the source text of every helper under
 * `./snapshot/`, stitched into one function expression. So each helper must stay
 * self-contained: no module variables, only its parameters, built-ins and other helpers called
 * by their plain name. The helpers are plain function declarations, so inside the stitched text
 * they find each other by the same names their call sites use, including after the bundler's
 * minifier has renamed them (one symbol, one name, declaration and calls alike).
 * `snapshot-script.test.ts` checks the list below is complete and that the stitched text runs on
 * its own, also from a minified build.
 *
 * Design (DESIGN.md §7): one linear walk of the composed tree. Inherited facts (visibility,
 * transparency, disabled fieldsets, clipping, modal scope, label scope, frame offsets) are
 * computed top-down into a per-element context, so no candidate ever walks its ancestors, and
 * accessible names from content are accumulated from the same walk (bounded per candidate), so no
 * candidate re-walks its subtree either. Refs live in a per-document registry on the window.
 */
import { seeCandidacy } from "./snapshot/candidacy.ts";
import { descend, pushKids } from "./snapshot/descend.ts";
import { describe } from "./snapshot/describe.ts";
import { assignRefs, foldEntries, foldRun, matchesFind, overBudget, refFor, sameShape, toElement, toFrame } from "./snapshot/fold.ts";
import { frameRoot } from "./snapshot/frame.ts";
import { buildHints, refsOf } from "./snapshot/hints.ts";
import { applyLimits } from "./snapshot/limits.ts";
import { snapshotMain } from "./snapshot/main.ts";
import { appendText, byId, finishRec, labelledBy, labelsFor, textOf } from "./snapshot/names.ts";
import { deepFocus, findOverlay, modalDialog, pageGeometry, scrollPercent } from "./snapshot/page-scan.ts";
import { placeBox, seePlacement } from "./snapshot/placement.ts";
import { isLoginForm, labelControl, newRec, parentTag, renderedControl, shape } from "./snapshot/record.ts";
import { explicitRole, implicitRole, inputRole, inputType, isButtonType } from "./snapshot/roles.ts";
import { createRun, openRegistry, snapshotTables } from "./snapshot/setup.ts";
import { attr, bound, boxOf, clampInt, collapse, cut, inter, lower, num0, px, readAttrs, words } from "./snapshot/text.ts";
import { contributeText, openCandidate, openScopes, visitElement } from "./snapshot/visit.ts";
import { pushChildren, pushList, pushNode } from "./snapshot/stack.ts";
import { rootContext, walkDocument } from "./snapshot/walk.ts";
import type { PageWindow, SnapshotOptions, SnapshotResult } from "./types.ts";

export function pageSnapshot(win: PageWindow, opts?: SnapshotOptions): SnapshotResult {
  return snapshotMain(win, opts);
}

/** Every helper the injected source needs; the entry point is `snapshotMain`. */
export const SNAPSHOT_HELPERS: readonly ((...args: never[]) => unknown)[] = [
  snapshotMain,
  // setup and page-wide facts
  createRun,
  snapshotTables,
  openRegistry,
  pageGeometry,
  scrollPercent,
  deepFocus,
  modalDialog,
  findOverlay,
  // strings, attributes, rectangles
  words,
  bound,
  collapse,
  cut,
  attr,
  lower,
  readAttrs,
  px,
  num0,
  clampInt,
  inter,
  boxOf,
  // roles, names, records
  inputType,
  inputRole,
  implicitRole,
  explicitRole,
  isButtonType,
  labelsFor,
  byId,
  textOf,
  labelledBy,
  appendText,
  finishRec,
  parentTag,
  shape,
  newRec,
  isLoginForm,
  renderedControl,
  labelControl,
  describe,
  // the walk
  walkDocument,
  rootContext,
  pushNode,
  pushChildren,
  pushList,
  visitElement,
  seeCandidacy,
  seePlacement,
  placeBox,
  openScopes,
  contributeText,
  openCandidate,
  descend,
  pushKids,
  frameRoot,
  // output
  refFor,
  assignRefs,
  toElement,
  toFrame,
  sameShape,
  foldEntries,
  foldRun,
  overBudget,
  matchesFind,
  applyLimits,
  refsOf,
  buildHints,
];

/**
 * The injectable source: an expression evaluating to the snapshot function `(win, opts)`. The
 * entry point is named by `.name`, which is whatever the minifier made of `snapshotMain`.
 */
export const SNAPSHOT_SOURCE = `(function () {\n${SNAPSHOT_HELPERS.map(String).join("\n")}\nreturn ${snapshotMain.name};\n})()`;

/**
 * A complete expression for `Runtime.evaluate` in an isolated world: runs the snapshot with the
 * given options (JSON) and returns the result by value.
 */
export function snapshotExpression(options: SnapshotOptions): string {
  return `${SNAPSHOT_SOURCE}(window, ${JSON.stringify(options)})`;
}
