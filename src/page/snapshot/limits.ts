/**
 * Output limits: entries are emitted until the element, text or byte budget runs out; reasons come back in canonical
 * order.
 */
import type { SnapshotEntry, TruncationReason } from "../types.ts";
import type { Run } from "./types.ts";

export function applyLimits(
  run: Run,
  entries: SnapshotEntry[],
): { elements: SnapshotEntry[]; truncationReasons: TruncationReason[] } {
  const reasons: Record<string, boolean> = Object.create(null);
  const elements: SnapshotEntry[] = [];
  let bytes = 64;
  let text = 0;
  // An expanded ref far down the page: start a third of the limit above it, not at the top.
  let start = 0;
  if (run.expand.size) {
    for (let i = 0; i < entries.length; i++) {
      const e = entries[i] as SnapshotEntry;
      if (e.kind !== "fold" && run.expand.has(e.ref)) {
        if (i >= run.LIMIT - Math.floor(run.LIMIT / 3)) start = i - Math.floor(run.LIMIT / 3);
        break;
      }
    }
    if (start > 0) reasons.element_limit = true;
  }
  for (let i = start; i < entries.length; i++) {
    const e = entries[i] as SnapshotEntry;
    if (elements.length >= run.LIMIT) {
      reasons.element_limit = true;
      break;
    }
    let t = 0;
    if (e.kind === "fold") {
      for (let k = 0; k < e.samples.length; k++) t += (e.samples[k] as string).length;
    } else {
      t = e.name.length + (e.kind === "element" && e.value ? e.value.length : 0);
    }
    if (text + t > run.MAX_TEXT) {
      reasons.text_limit = true;
      break;
    }
    const b = 80 + t * 1.2 + (e.kind === "fold" ? 8 * e.refs.length : 0) + (e.kind === "frame" ? e.src.length : 0);
    if (bytes + b > run.MAX_BYTES) {
      reasons.byte_limit = true;
      break;
    }
    text += t;
    bytes += b;
    elements.push(e);
  }
  if (run.depthHit) reasons.depth_limit = true;
  if (run.workHit) reasons.work_limit = true;
  // The same order as TRUNCATION_ORDER in ../types.ts, repeated: the page has no imports.
  const order: TruncationReason[] = ["element_limit", "text_limit", "depth_limit", "byte_limit", "work_limit"];
  const truncationReasons: TruncationReason[] = [];
  for (let i = 0; i < order.length; i++) {
    const k = order[i] as TruncationReason;
    if (reasons[k]) truncationReasons.push(k);
  }
  return { elements, truncationReasons };
}
