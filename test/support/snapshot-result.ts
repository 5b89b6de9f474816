/** Snapshot results built by hand, for the broker's rendering and diff tests. */
import type { SnapshotElement, SnapshotResult } from "../../src/page/types.ts";

export function element(
  ref: number,
  role: string,
  name: string,
  extra: Partial<SnapshotElement> = {},
): SnapshotElement {
  return { kind: "element", ref, role, name, box: { x: 0, y: 0, w: 10, h: 10 }, inViewport: true, ...extra };
}
export function result(elements: SnapshotResult["elements"], extra: Partial<SnapshotResult> = {}): SnapshotResult {
  const candidateRefs: number[] = [];
  for (const e of elements) {
    if (e.kind === "fold") candidateRefs.push(...e.refs);
    else candidateRefs.push(e.ref);
  }
  return {
    title: "T",
    url: "https://fmt.example/",
    page: {
      viewportWidth: 800,
      viewportHeight: 600,
      documentWidth: 800,
      documentHeight: 1600,
      scrollX: 0,
      scrollY: 0,
      pixelsAbove: 0,
      pixelsBelow: 1000,
      pixelsLeft: 0,
      pixelsRight: 0,
      scrollPercentX: 0,
      scrollPercentY: 0,
    },
    elements,
    totalCandidates: candidateRefs.length,
    candidateRefs,
    truncated: false,
    truncationReasons: [],
    hints: [],
    layout: true,
    stats: { visitedNodes: 0, candidates: 0, frames: 0, errors: 0, nextRef: 1, ms: 0 },
    ...extra,
  };
}
