/**
 * Hints about the page's situation (modal overlay, authentication, autocomplete, filters),
 * bounded: at most 5, at most 8 refs each.
 */
import type { SnapshotHint } from "../types.ts";
import type { Modal, Rec, Run } from "./types.ts";

export function refsOf(list: Rec[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < list.length && out.length < 8; i++) {
    const r = list[i] as Rec;
    if (r.ref > 0 && out.indexOf(r.ref) < 0) out.push(r.ref);
  }
  return out;
}

export function buildHints(run: Run): SnapshotHint[] {
  const recs = run.recs;
  const modals = run.modals;
  const TEXTISH = run.T.TEXTISH;
  const hints: SnapshotHint[] = [];
  if (modals.length) {
    let chosen: Modal | null = null;
    for (let i = modals.length - 1; i >= 0; i--) {
      const m = modals[i] as Modal;
      if (!chosen || (m.blocking && !chosen.blocking)) chosen = m;
      if (chosen.blocking) break;
    }
    if (chosen) {
      hints.push({
        type: "modal_overlay",
        confidence: chosen.blocking ? "strong" : "possible",
        recommendedAction: "resolve_overlay_first",
        blocking: chosen.blocking,
        refs: refsOf(chosen.recs),
      });
    }
  }
  const authRecs: Rec[] = [];
  let authStrong = false;
  for (let i = 0; i < recs.length; i++) {
    const r = recs[i] as Rec;
    if (r.password) {
      authStrong = true;
      authRecs.push(r);
    } else if (r.loginForm && (TEXTISH[r.role] || r.role === "button")) authRecs.push(r);
  }
  if (authRecs.length && (authStrong || authRecs.some((r) => TEXTISH[r.role]))) {
    hints.push({
      type: "authentication_surface",
      confidence: authStrong ? "strong" : "possible",
      recommendedAction: "inspect_authentication_state",
      state: "present",
      refs: refsOf(authRecs),
    });
  }
  const acRecs: Rec[] = [];
  let acStrong = false;
  for (let i = 0; i < recs.length; i++) {
    const r = recs[i] as Rec;
    if (r.role === "combobox" && (r.expanded === true || r.autocomplete)) {
      if (r.expanded === true) acStrong = true;
      if (r.expanded === true || r.focused) acRecs.push(r);
    }
  }
  let anyCombobox = false;
  for (let i = 0; i < recs.length && !anyCombobox; i++) anyCombobox = (recs[i] as Rec).role === "combobox";
  for (let i = 0; i < run.listboxes.length && anyCombobox; i++) {
    const lb = run.listboxes[i] as Rec[];
    for (let k = 0; k < lb.length; k++) acRecs.push(lb[k] as Rec);
  }
  if (acRecs.length) {
    hints.push({
      type: "autocomplete",
      confidence: acStrong ? "strong" : "possible",
      recommendedAction: "observe_then_select",
      refs: refsOf(acRecs),
    });
  }
  const filterRecs: Rec[] = [];
  for (let i = 0; i < run.filters.length; i++) {
    const f = run.filters[i] as Rec[];
    if (f.length >= 3) for (let k = 0; k < f.length; k++) filterRecs.push(f[k] as Rec);
  }
  if (filterRecs.length) {
    hints.push({
      type: "filter_controls",
      confidence: "strong",
      recommendedAction: "review_refinement_controls",
      refs: refsOf(filterRecs),
    });
  }
  if (hints.length > 5) hints.length = 5;
  return hints;
}
