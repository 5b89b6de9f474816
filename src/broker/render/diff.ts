/**
 * `snapshot --diff`: what changed between two observations of the same document, by ref.
 *
 * Refs are stable within a document (a node keeps its number, new nodes get new numbers), so a
 * ref-keyed comparison is exact: no fuzzy matching, no renumbering artefacts. `candidateRefs`
 * covers every visible candidate, including those beyond the limit or folded, so a ref missing
 * from a truncated listing is never reported as removed.
 */
import type {
  LiveText,
  SnapshotElement,
  SnapshotEntry,
  SnapshotFold,
  SnapshotFrame,
  SnapshotResult,
} from "../../page/types.ts";

export interface SnapshotChange {
  ref: number;
  /** Names of the fields that differ (role, name, value, checked, …). */
  fields: string[];
  element: SnapshotElement;
}

export interface SnapshotDiff {
  /** Set only when the title or URL changed. */
  title?: string;
  url?: string;
  /** New entries as listed in `next` (a fold keeps only its new refs). */
  added: SnapshotEntry[];
  /** New candidates that `next` did not list (beyond its limit). */
  addedUnlisted: number;
  /** Refs present before and gone now, ascending. */
  removed: number[];
  changed: SnapshotChange[];
  /** Listed in both and identical. */
  unchanged: number;
  /** What the page's live regions say that they did not before (announced()). */
  announced: string[];
  /** Runs of same-shaped new elements (foldChurn), each one entry instead of one per element. */
  replaced: ChurnRun[];
  /** Text blocks (headings, short texts) that appeared or changed, nearest the change first (outcomeText). */
  text: string[];
  /** The new order of listed elements that moved among each other (names), when at most MAX_ORDER. */
  order?: string[];
}

/** At most this many outcome texts in one diff. */
const MAX_TEXT = 3;
/** A reorder of more elements than this is not spelled out. */
const MAX_ORDER = 20;

/** A run of at least CHURN_MIN new same-shaped elements, refs `first`..`last` (consecutive), and the refs of that role it replaced. */
export interface ChurnRun {
  role: string;
  count: number;
  first: number;
  last: number;
  /** The first and last names of the run. */
  names: [string, string];
  /** Removed refs of the same role (ascending), those the run stands in for; may be empty. */
  was: number[];
  frame?: string;
}

/** Shorter runs are listed element by element. */
const CHURN_MIN = 8;

/** At most this many announcements in one diff. */
const MAX_ANNOUNCED = 3;

/**
 * What the live regions (snapshot/live.ts) announce now that they did not before: a region's
 * new text, or what it added to its old text (a message that grew). A region emptied or gone
 * announces nothing.
 */
export function announced(prev: LiveText[] | undefined, next: LiveText[] | undefined): string[] {
  const before = new Map<string, string>();
  for (const l of prev ?? []) before.set(l.key, l.text);
  const out: string[] = [];
  for (const l of next ?? []) {
    const old = before.get(l.key);
    if (l.text === "" || l.text === old) continue;
    const text = old && l.text.startsWith(old) ? l.text.slice(old.length).trim() : l.text;
    if (text && !out.includes(text)) out.push(text);
    if (out.length === MAX_ANNOUNCED) break;
  }
  return out;
}

const COMPARED = [
  "role",
  "name",
  "value",
  "valueLength",
  "checked",
  "selected",
  "pressed",
  "expanded",
  "disabled",
  "required",
  "readonly",
  "focused",
  "frame",
] as const;

/** `near`: the action's target ref; outcome text nearest it comes first. */
export function diffSnapshots(prev: SnapshotResult, next: SnapshotResult, near?: number): SnapshotDiff {
  const before = new Set(prev.candidateRefs);
  const after = new Set(next.candidateRefs);
  const listedBefore = new Map<number, SnapshotElement | SnapshotFrame>();
  for (const e of prev.elements) if (e.kind !== "fold") listedBefore.set(e.ref, e);

  const diff: SnapshotDiff = {
    added: [],
    addedUnlisted: 0,
    removed: [],
    changed: [],
    unchanged: 0,
    announced: announced(prev.live, next.live),
    replaced: [],
    text: [],
  };
  if (prev.title !== next.title) diff.title = next.title;
  if (prev.url !== next.url) diff.url = next.url;

  const listedNew = new Set<number>();
  for (const e of next.elements) {
    if (e.kind === "fold") {
      const fresh = e.refs.filter((r) => !before.has(r));
      for (const r of fresh) listedNew.add(r);
      if (fresh.length) {
        const part: SnapshotFold = {
          ...e,
          refs: fresh,
          count: fresh.length,
          firstRef: fresh[0] as number,
          lastRef: fresh[fresh.length - 1] as number,
        };
        diff.added.push(part);
      }
      continue;
    }
    if (!before.has(e.ref)) {
      listedNew.add(e.ref);
      diff.added.push(e);
      continue;
    }
    const old = listedBefore.get(e.ref);
    if (!old || e.kind !== "element" || old.kind !== "element") continue;
    const fields = COMPARED.filter((k) => old[k] !== e[k]);
    if (fields.length) diff.changed.push({ ref: e.ref, fields: [...fields], element: e });
    else diff.unchanged++;
  }
  for (const r of after) if (!before.has(r) && !listedNew.has(r)) diff.addedUnlisted++;
  for (const r of before) if (!after.has(r)) diff.removed.push(r);
  diff.removed.sort((a, b) => a - b);
  foldChurn(diff, prev);
  diff.text = outcomeText(prev, next, diff, near);
  const order = newOrder(prev, next);
  if (order) diff.order = order;
  return diff;
}

/**
 * What the action said in text that is no control: the text blocks (snapshot/texts.ts) of
 * `next` that `prev` did not have (a status line, a result, a month title), without what the
 * live regions announced already or what only mirrors a changed field's new value; nearest (in document order) the action's
 * target first, else the first element that was added or changed, else in document order. None when `prev` read no texts.
 */
function outcomeText(prev: SnapshotResult, next: SnapshotResult, diff: SnapshotDiff, near?: number): string[] {
  if (!prev.texts || !next.texts) return [];
  const had = new Map<string, number>();
  for (const b of prev.texts) had.set(b.x, (had.get(b.x) ?? 0) + 1);
  const pos = new Map<number, number>();
  next.candidateRefs.forEach((r, i) => {
    pos.set(r, i);
  });
  const echoes = diff.changed.flatMap((c) => (c.element.value && c.element.value.length >= 3 ? [c.element.value] : []));
  const fresh: { x: string; at: number; i: number }[] = [];
  next.texts.forEach((b, i) => {
    const n = had.get(b.x) ?? 0;
    if (n > 0) {
      had.set(b.x, n - 1);
      return;
    }
    if (diff.announced.some((a) => a.includes(b.x) || b.x.includes(a))) return;
    // The page's own ticking ("Time left: 49.9 s" after "50.0 s") is no answer to the action.
    const pieces = b.c;
    if (pieces && prev.texts?.some((p) => ticked(p.x, b.x, pieces))) return;
    // A mirror of a field's new value says nothing `changed` does not; text around it may be the answer ("No match for Ada").
    if (echoes.some((v) => mirrors(b.x, v))) return;
    fresh.push({ x: b.x, at: b.after === 0 ? -0.5 : (pos.get(b.after) ?? next.candidateRefs.length) + 0.5, i });
  });
  const first =
    (near !== undefined && pos.has(near) ? near : undefined) ??
    diff.changed[0]?.ref ??
    (diff.added.find((e) => e.kind !== "fold") as { ref?: number } | undefined)?.ref ??
    diff.replaced[0]?.first;
  const anchor = first !== undefined ? pos.get(first) : undefined;
  if (anchor !== undefined) fresh.sort((a, b) => Math.abs(a.at - anchor) - Math.abs(b.at - anchor) || a.i - b.i);
  return fresh.slice(0, MAX_TEXT).map((f) => f.x);
}

/**
 * Whether `text` is `value` and nothing more but quotes, punctuation or spaces: a live preview of a field. A mark
 * beside it ("Ada ✓") is an answer. The value's spaces are collapsed as a text block's are.
 */
function mirrors(text: string, value: string): boolean {
  const v = value.replace(/\s+/g, " ").trim();
  const parts = v ? text.split(v) : [];
  return parts.length > 1 && /^[\p{P}\p{Z}]*$/u.test(parts.join(""));
}

/**
 * Whether `before` is the block `now` was before the page's own churn changed it: the same text around its churning
 * parts; for a block that churns as a whole (one text node holds a clock and maybe more), the same text but its digits.
 */
function ticked(before: string, now: string, pieces: string[]): boolean {
  if (pieces.join("").trim()) return fitsAround(before, pieces);
  return before.replace(/\d+/g, "#") === now.replace(/\d+/g, "#");
}

/** Whether `text` is `pieces` with anything between them: the same block before its churning parts changed. */
function fitsAround(text: string, pieces: string[]): boolean {
  const first = pieces[0] ?? "";
  const last = pieces[pieces.length - 1] ?? "";
  if (!text.startsWith(first)) return false;
  let at = first.length;
  for (let i = 1; i < pieces.length - 1; i++) {
    const found = text.indexOf(pieces[i] as string, at);
    if (found < 0) return false;
    at = found + (pieces[i] as string).length;
  }
  return pieces.length < 2 || (text.length - last.length >= at && text.endsWith(last));
}

/** Listed elements of both observations whose order among each other changed: the moved stretch's names in their new order. */
function newOrder(prev: SnapshotResult, next: SnapshotResult): string[] | undefined {
  const names = new Map<number, string>();
  for (const e of next.elements) if (e.kind === "element") names.set(e.ref, e.name);
  const listedBefore = new Set<number>();
  for (const e of prev.elements) if (e.kind === "element") listedBefore.add(e.ref);
  const inNext = new Set(next.candidateRefs);
  const a = prev.candidateRefs.filter((r) => listedBefore.has(r) && names.has(r) && inNext.has(r));
  const inA = new Set(a);
  const b = next.candidateRefs.filter((r) => inA.has(r));
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  if (i === a.length) return undefined;
  let j = a.length - 1;
  while (j > i && a[j] === b[j]) j--;
  if (j - i + 1 > MAX_ORDER) return undefined;
  return b.slice(i, j + 1).map((r) => names.get(r) ?? "");
}

/**
 * A widget that redraws a run of same-shaped elements (a calendar's 31 day links on a month
 * turn, a result list's rows) costs one entry, not one per element: each run of at least
 * CHURN_MIN new elements with consecutive refs, one role, no value or state, becomes a
 * `replaced` run, and the removed refs of the same role go with it.
 */
function foldChurn(diff: SnapshotDiff, prev: SnapshotResult): void {
  const roleOf = new Map<number, string>();
  for (const e of prev.elements) {
    if (e.kind === "element") roleOf.set(e.ref, `${e.role}|${e.frame ?? ""}`);
    else if (e.kind === "fold") for (const r of e.refs) roleOf.set(r, `${e.role}|${e.frame ?? ""}`);
  }
  const plain = (e: SnapshotEntry | undefined): e is SnapshotElement =>
    !!e &&
    e.kind === "element" &&
    !e.value &&
    !e.sensitive &&
    e.checked === undefined &&
    e.selected === undefined &&
    e.pressed === undefined &&
    e.expanded === undefined &&
    !e.disabled &&
    !e.focused;
  const out: SnapshotEntry[] = [];
  const gone = new Set(diff.removed);
  for (let i = 0; i < diff.added.length; ) {
    const a = diff.added[i];
    let j = i + 1;
    if (plain(a)) {
      while (j < diff.added.length) {
        const b = diff.added[j];
        const p = diff.added[j - 1] as SnapshotElement;
        if (!plain(b) || b.role !== a.role || b.frame !== a.frame || b.ref !== p.ref + 1) break;
        j++;
      }
    }
    if (!plain(a) || j - i < CHURN_MIN) {
      out.push(...diff.added.slice(i, j));
      i = j;
      continue;
    }
    const last = diff.added[j - 1] as SnapshotElement;
    const key = `${a.role}|${a.frame ?? ""}`;
    const was = [...gone].filter((r) => roleOf.get(r) === key).sort((x, y) => x - y);
    for (const r of was) gone.delete(r);
    const run: ChurnRun = { role: a.role, count: j - i, first: a.ref, last: last.ref, names: [a.name, last.name], was };
    if (a.frame) run.frame = a.frame;
    diff.replaced.push(run);
    i = j;
  }
  diff.added = out;
  if (diff.replaced.length) diff.removed = diff.removed.filter((r) => gone.has(r));
}

/** Refs as runs: 3 or more consecutive ones as "a-b" (the JSON form of `removed` and `was`). */
export function refRuns(refs: number[]): (number | string)[] {
  const out: (number | string)[] = [];
  for (let i = 0; i < refs.length; ) {
    let j = i;
    while (j + 1 < refs.length && refs[j + 1] === (refs[j] as number) + 1) j++;
    if (j - i >= 2) out.push(`${refs[i]}-${refs[j]}`);
    else for (let k = i; k <= j; k++) out.push(refs[k] as number);
    i = j + 1;
  }
  return out;
}
