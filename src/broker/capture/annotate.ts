/**
 * Which boxes `bp screenshot --annotate` draws: the refs of the agent's latest observation (all or those asked), in
 * top-level viewport CSS px, cross-origin frames included.
 */
import type { SnapshotResult } from "../../page/types.ts";
import { BpError, invalidArgument } from "../../shared/errors.ts";
import type { TabObservation } from "../refs.ts";
import { staleRef } from "../observe/resolve-ref.ts";
import type { AnnotationBox } from "./draw.ts";

export interface CssBox {
  ref: number;
  x: number;
  y: number;
  w: number;
  h: number;
}

/** `""` or `"all"`: every ref; `"3,5,8"`: those. */
export function parseRefList(value: string): number[] | "all" {
  const v = value.trim();
  if (v === "" || v === "all") return "all";
  const refs = v.split(",").map((p) => p.trim());
  if (v.startsWith("-")) {
    throw invalidArgument(
      "annotate",
      `'${value}' was read as the value of --annotate; --annotate cannot be combined with --full or --selector, and other options go before it.`,
    );
  }
  if (!refs.every((p) => /^[1-9][0-9]{0,8}$/.test(p))) {
    throw invalidArgument(
      "annotate",
      `--annotate takes no value or a comma list of refs such as 1,4,7 (got '${value}'). Put the file name before --annotate.`,
    );
  }
  return [...new Set(refs.map(Number))];
}

export function observedBoxes(last: SnapshotResult): CssBox[] {
  const out: CssBox[] = [];
  for (const e of last.elements) {
    if (e.kind === "fold") continue;
    out.push({ ref: e.ref, x: e.box.x, y: e.box.y, w: e.box.w, h: e.box.h });
  }
  return out;
}

/** A ref never shown is stale_ref unknown_ref as elsewhere; one without a box (folded) is listed as skipped. */
export function chooseBoxes(obs: TabObservation, wanted: number[] | "all"): { boxes: CssBox[]; skipped: number[] } {
  const last = obs.last;
  if (!last) throw boxesStale("no_observation");
  const all = observedBoxes(last);
  if (wanted === "all") return { boxes: all, skipped: [] };
  const byRef = new Map(all.map((b) => [b.ref, b]));
  const boxes: CssBox[] = [];
  const skipped: number[] = [];
  for (const ref of wanted) {
    const b = byRef.get(ref);
    if (b) boxes.push(b);
    else if (obs.refs.has(ref)) skipped.push(ref);
    else throw staleRef(ref, "unknown_ref");
  }
  return { boxes, skipped };
}

/** The latest observation cannot give boxes for the page as it is now. */
export function boxesStale(
  reason: "no_observation" | "navigation" | "document_replaced" | "browser_reconnected",
): BpError {
  const why =
    reason === "no_observation"
      ? "there is no snapshot of this tab yet"
      : `the page changed since the last snapshot (${reason.replace("_", " ")})`;
  return new BpError("stale_ref", `Cannot annotate: ${why}. Run 'bp snapshot', then 'bp screenshot --annotate'.`, {
    retryable: true,
    context: { reason },
  });
}

/** CSS px → image px, after shifting by how far the page scrolled since the snapshot. */
export function toImageBoxes(boxes: CssBox[], scale: number, shift: { x: number; y: number }): AnnotationBox[] {
  return boxes.map((b) => ({
    ref: b.ref,
    x: Math.round((b.x + shift.x) * scale),
    y: Math.round((b.y + shift.y) * scale),
    w: Math.round(b.w * scale),
    h: Math.round(b.h * scale),
  }));
}
