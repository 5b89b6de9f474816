/**
 * Refs in document order, then runs of same-shaped siblings (period 1 to 4) fold into one entry after their first
 * period.
 */
import type { PageElement, SnapshotElement, SnapshotEntry, SnapshotFold, SnapshotFrame } from "../types.ts";
import type { Rec, Run } from "./types.ts";

export function refFor(run: Run, el: PageElement): number {
  const registry = run.registry;
  const known = registry.byEl.get(el);
  if (known !== undefined) {
    if (known >= run.renumberBelow) return known;
    // The old number is retired for good: it resolves to nothing, never to this element again.
    registry.byRef.delete(known);
  }
  const n = registry.next++;
  registry.byEl.set(el, n);
  registry.byRef.set(n, run.hasWeakRef ? new WeakRef(el) : el);
  return n;
}

export function assignRefs(run: Run): { candidateRefs: number[]; totalCandidates: number } {
  const recs = run.recs;
  const registry = run.registry;
  const candidateRefs: number[] = [];
  let totalCandidates = 0;
  for (let i = 0; i < recs.length; i++) {
    const r = recs[i] as Rec;
    r.ref = refFor(run, r.el);
    candidateRefs.push(r.ref);
    if (r.kind === "element") totalCandidates++;
  }
  // A long-lived document (infinite scroll) accumulates dead numbers: drop collected ones (unknown_ref, never rebound).
  if (run.hasWeakRef && registry.byRef.size > 50000) {
    registry.byRef.forEach((held, n) => {
      if (held instanceof WeakRef && held.deref() === undefined) registry.byRef.delete(n);
    });
  }
  return { candidateRefs, totalCandidates };
}

export function toElement(r: Rec): SnapshotElement {
  const e: SnapshotElement = {
    kind: "element",
    ref: r.ref,
    role: r.role,
    name: r.name,
    box: r.box,
    inViewport: r.inVp,
  };
  if (r.sensitive) {
    e.sensitive = true;
    e.valueLength = r.valueLength;
  } else if (r.value) e.value = r.value;
  if (r.checked !== null) e.checked = r.checked;
  if (r.selected !== null) e.selected = r.selected;
  if (r.pressed !== null) e.pressed = r.pressed;
  if (r.expanded !== null) e.expanded = r.expanded;
  if (r.disabled) e.disabled = true;
  if (r.required) e.required = true;
  if (r.readonly) e.readonly = true;
  if (r.focused) e.focused = true;
  if (r.frame) e.frame = r.frame;
  if (r.via) e.via = r.via;
  if (r.dom) e.source = "dom";
  if (r.desc) e.desc = r.desc;
  return e;
}

export function toFrame(r: Rec): SnapshotFrame {
  return {
    kind: "frame",
    ref: r.ref,
    role: "iframe",
    name: r.name,
    src: r.src,
    frame: r.frame,
    reason: r.reason,
    box: r.box,
    offset: r.offset,
    inViewport: r.inVp,
  };
}

export function sameShape(a: Rec | undefined, b: Rec | undefined): boolean {
  return !!a && !!b && a.kind === "element" && b.kind === "element" && a.key === b.key && !a.focused && !b.focused;
}

/** Whether an output limit (not a walk limit) cut the entries. */
export function overBudget(reasons: readonly string[]): boolean {
  for (let i = 0; i < reasons.length; i++) {
    const r = reasons[i];
    if (r === "element_limit" || r === "text_limit" || r === "byte_limit") return true;
  }
  return false;
}

/** --find: the name, or a value that is not a secret, contains the text. */
export function matchesFind(run: Run, r: Rec): boolean {
  if (r.name && r.name.toLowerCase().indexOf(run.FIND) >= 0) return true;
  return !r.sensitive && !!r.value && r.value.toLowerCase().indexOf(run.FIND) >= 0;
}

export function foldEntries(run: Run, fold: boolean): SnapshotEntry[] {
  const recs = run.recs;
  const FOLD_MIN = fold ? run.FOLD_MIN : 0;
  const expand = run.expand;
  const entries: SnapshotEntry[] = [];
  const n = recs.length;
  for (let i = 0; i < n; ) {
    const r = recs[i] as Rec;
    if (r.kind === "frame") {
      entries.push(toFrame(r));
      i++;
      continue;
    }
    let bestP = 0;
    let bestLen = 0;
    if (FOLD_MIN > 0) {
      for (let p = 1; p <= 4; p++) {
        if (i + p * FOLD_MIN > n) break;
        let j = i + p;
        while (j < n && sameShape(recs[j], recs[j - p])) j++;
        const reps = Math.floor((j - i) / p);
        if (reps >= FOLD_MIN && reps * p > bestLen) {
          bestP = p;
          bestLen = reps * p;
        }
      }
    }
    if (bestP > 0) {
      let at = -1;
      for (let k = i; k < i + bestLen && expand.size && at < 0; k++) if (expand.has((recs[k] as Rec).ref)) at = k;
      if (at >= 0) {
        // Expanded on request: a window around that ref; the rest of the run stays folded on both sides.
        const end = i + bestLen;
        const ws = Math.max(i + bestP, at - 10);
        const we = Math.min(end, Math.max(at + 11, ws));
        for (let k = i; k < i + bestP; k++) entries.push(toElement(recs[k] as Rec));
        if (ws > i + bestP) entries.push(foldRun(recs, i, bestP, ws - i));
        for (let k = ws; k < we; k++) entries.push(toElement(recs[k] as Rec));
        if (we < end) entries.push(foldRun(recs, we - bestP, bestP, end - we + bestP));
        i = end;
        continue;
      }
      for (let k = i; k < i + bestP; k++) entries.push(toElement(recs[k] as Rec));
      entries.push(foldRun(recs, i, bestP, bestLen));
      i += bestLen;
      continue;
    }
    entries.push(toElement(r));
    i++;
  }
  return entries;
}

/** The fold entry for recs[i + period .. i + len): the first period stays listed before it. */
export function foldRun(recs: Rec[], i: number, period: number, len: number): SnapshotFold {
  const refs: number[] = [];
  const samples: string[] = [];
  const roles: string[] = [];
  for (let k = i; k < i + period; k++) roles.push((recs[k] as Rec).role);
  const lastK = i + len - 1;
  for (let k = i + period; k < i + len; k++) {
    const fr = recs[k] as Rec;
    refs.push(fr.ref);
    if ((k === i + period || k === i + period + 1 || k === lastK) && fr.name && samples.indexOf(fr.name) < 0) {
      samples.push(fr.name);
    }
  }
  const first = recs[i + period] as Rec;
  const fold: SnapshotFold = {
    kind: "fold",
    count: refs.length,
    firstRef: refs[0] as number,
    lastRef: refs[refs.length - 1] as number,
    refs,
    role: first.role,
    roles,
    period,
    samples,
  };
  if (first.frame) fold.frame = first.frame;
  return fold;
}
