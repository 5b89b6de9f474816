/**
 * A page snapshot and its diff as compact JSON, with raw values (JSON.stringify escapes them). The CLI renders a
 * person's lines from this JSON (src/protocol/human-snapshot.ts).
 */
import type {
  SnapshotElement,
  SnapshotEntry,
  SnapshotHint,
  SnapshotResult,
  PageGeometry,
  TextBlock,
} from "../../page/types.ts";
import { type Json, type WireEntry, wireEntry } from "../../protocol/elements.ts";
import { refRuns, type ChurnRun, type SnapshotDiff } from "./diff.ts";
/** State words shared by human and compact JSON output, in a fixed order. */
export function elementStates(e: SnapshotElement): string[] {
  const s: string[] = [];
  if (e.checked === true) s.push("checked");
  else if (e.checked === "mixed") s.push("mixed");
  if (e.selected) s.push("selected");
  if (e.pressed === true) s.push("pressed");
  else if (e.pressed === "mixed") s.push("pressed=mixed");
  if (e.expanded === true) s.push("expanded");
  else if (e.expanded === false) s.push("collapsed");
  if (e.disabled) s.push("disabled");
  if (e.required) s.push("required");
  if (e.readonly) s.push("readonly");
  if (e.focused) s.push("focused");
  return s;
}

// ---------------------------------------------------------------------------------------------
// Compact JSON
// ---------------------------------------------------------------------------------------------

export interface CompactJsonOptions {
  /** Include boxes ([x,y,w,h] in viewport CSS px) and an off-viewport marker. */
  boxes?: boolean;
  /** List the text blocks among the entries (snapshot --text). */
  text?: boolean;
}

/**
 * The snapshot's entries with its text blocks (snapshot --text) among them in document order:
 * a block goes before the first top-document entry that comes after it (by the candidates'
 * document order); blocks after the last listed entry close the list.
 */
export function interleaveTexts<T>(result: SnapshotResult, entries: T[], text: (b: TextBlock) => T): T[] {
  const blocks = result.texts ?? [];
  if (blocks.length === 0) return entries;
  const pos = new Map<number, number>();
  result.candidateRefs.forEach((r, i) => {
    pos.set(r, i);
  });
  const out: T[] = [];
  let k = 0;
  const placeOf = (b: TextBlock) => (b.after === 0 ? -0.5 : (pos.get(b.after) ?? Infinity) + 0.5);
  result.elements.forEach((e, i) => {
    const at =
      e.kind === "frame" || (e.kind === "element" && e.frame)
        ? undefined
        : pos.get(e.kind === "fold" ? e.firstRef : e.ref);
    if (at !== undefined)
      while (k < blocks.length && placeOf(blocks[k] as TextBlock) < at) out.push(text(blocks[k++] as TextBlock));
    out.push(entries[i] as T);
  });
  while (k < blocks.length) out.push(text(blocks[k++] as TextBlock));
  return out;
}

/** A text block as JSON: `{x}`, a heading `{h, x}`. */
export const compactText = (b: TextBlock): { [key: string]: Json } => (b.h ? { h: b.h, x: b.x } : { x: b.x });

/** A snapshot as JSON (compactSnapshotJson): each field only when it says something. */
export interface CompactSnapshot {
  title: string;
  url: string;
  page?: { [key: string]: number };
  elements?: WireEntry[];
  total?: number;
  truncated?: true;
  truncationReasons?: string[];
  hints?: { [key: string]: Json }[];
}

/**
 * An entry's object form, sent as `[r, t, n, {rest}]` (src/protocol/elements.ts). Short keys: r ref, t role, n name, v value, vl value length (sensitive fields), s states,
 * f frame path, b box, o 1 when outside the viewport, via "label". Folds: {fold: count, r: first
 * ref, to: last ref, t: role, ex: sample names}. Frames: {r, t: "iframe", n, src, f, s: reason}.
 */
export function compactEntry(e: SnapshotEntry, options: CompactJsonOptions = {}): { [key: string]: Json } {
  const out: { [key: string]: Json } = {};
  if (e.kind === "fold") {
    out.fold = e.count;
    out.r = e.firstRef;
    out.to = e.lastRef;
    out.t = e.period > 1 ? e.roles.join("+") : e.role;
    if (e.samples.length) out.ex = e.samples;
    if (e.frame) out.f = e.frame;
    return out;
  }
  out.r = e.ref;
  out.t = e.role;
  if (e.name) out.n = e.name;
  if (e.kind === "frame") {
    if (e.src) out.src = e.src;
    out.f = e.frame;
    out.s = e.reason;
  } else {
    // A sensitive field shows only its length, and only when something was typed.
    if (e.sensitive) {
      if (e.valueLength) out.vl = e.valueLength;
    } else if (e.value) out.v = e.value;
    const states = elementStates(e);
    if (states.length) out.s = states.join(" ");
    if (e.frame) out.f = e.frame;
    if (e.via) out.via = e.via;
    if (e.desc && !e.name) out.d = e.desc;
  }
  if (options.boxes) {
    out.b = [e.box.x, e.box.y, e.box.w, e.box.h];
    if (!e.inViewport) out.o = 1;
  }
  return out;
}

/**
 * Page geometry only where it tells the agent something: per axis that scrolls, viewport and
 * document size and the scroll offset when not 0. A page that fits its viewport has none.
 */
export function compactPage(g: PageGeometry): { [key: string]: number } | undefined {
  const out: { [key: string]: number } = {};
  if (g.documentWidth > g.viewportWidth || g.scrollX > 0) {
    out.vw = g.viewportWidth;
    out.dw = g.documentWidth;
    if (g.scrollX > 0) out.sx = g.scrollX;
  }
  if (g.documentHeight > g.viewportHeight || g.scrollY > 0) {
    out.vh = g.viewportHeight;
    out.dh = g.documentHeight;
    if (g.scrollY > 0) out.sy = g.scrollY;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * Lean: no empty lists, no defaults. The count of candidates and the truncation fields appear
 * only when the list was cut short (otherwise the list itself is the count).
 */
export function compactSnapshotJson(result: SnapshotResult, options: CompactJsonOptions = {}): CompactSnapshot {
  const out: CompactSnapshot = { title: result.title, url: result.url };
  const page = compactPage(result.page);
  if (page) out.page = page;
  const entries = result.elements.map((e) => compactEntry(e, options));
  const listed = options.text && result.texts?.length ? interleaveTexts(result, entries, compactText) : entries;
  if (listed.length) out.elements = listed.map(wireEntry);
  return addTail(out, result);
}

/** The snapshot's fields besides its title, url and list, as compactSnapshotJson gives them (for a diff, which stands in for those three). */
export function compactSnapshotMeta(result: SnapshotResult): Omit<CompactSnapshot, "title" | "url" | "elements"> {
  const out: Omit<CompactSnapshot, "title" | "url" | "elements"> = {};
  const page = compactPage(result.page);
  if (page) out.page = page;
  return addTail(out, result);
}

function addTail<T extends Omit<CompactSnapshot, "title" | "url" | "elements">>(out: T, result: SnapshotResult): T {
  if (result.truncated) {
    out.total = result.totalCandidates;
    out.truncated = true;
    if (result.truncationReasons.length) out.truncationReasons = [...result.truncationReasons];
  }
  if (result.hints.length) out.hints = result.hints.map(compactHint);
  return out;
}

/** `confidence` only when "possible" (strong is the rule), `state` only for a transition (entered, left). */
function compactHint(h: SnapshotHint): { [key: string]: Json } {
  const out: { [key: string]: Json } = { type: h.type };
  if (h.confidence !== "strong") out.confidence = h.confidence;
  out.recommendedAction = h.recommendedAction;
  if (h.blocking) out.blocking = true;
  if (h.state && h.state !== "present") out.state = h.state;
  if (h.refs.length) out.refs = [...h.refs];
  return out;
}

// ---------------------------------------------------------------------------------------------
// Diff rendering
// ---------------------------------------------------------------------------------------------

/** The diff as JSON: each field only when it says something; `more` (new elements beyond the limit) for a person's text. */
export function compactDiff(d: SnapshotDiff, options: { boxes?: boolean; human?: boolean } = {}) {
  return {
    ...(d.added.length || d.replaced.length
      ? {
          added: [
            ...d.added.map((e) => wireEntry(compactEntry(e, { boxes: options.boxes === true }))),
            ...d.replaced.map(compactChurn),
          ],
        }
      : {}),
    ...(d.removed.length ? { removed: refRuns(d.removed) } : {}),
    ...(d.changed.length
      ? { changed: d.changed.map((c) => wireEntry({ ...compactEntry(c.element), fields: c.fields })) }
      : {}),
    ...(d.announced.length ? { announced: d.announced } : {}),
    ...(d.text.length ? { text: d.text } : {}),
    ...(d.order ? { order: d.order } : {}),
    unchanged: d.unchanged,
    ...(options.human && d.addedUnlisted > 0 ? { more: d.addedUnlisted } : {}),
    ...(d.title !== undefined ? { title: d.title } : {}),
    ...(d.url !== undefined ? { url: d.url } : {}),
  };
}

/** A scrolling page's whole geometry, for a person's `[viewport]` line (the JSON has only the axes that scroll). */
export function humanPage(g: PageGeometry): { [key: string]: number } {
  return {
    vw: g.viewportWidth,
    vh: g.viewportHeight,
    dw: g.documentWidth,
    dh: g.documentHeight,
    sx: g.scrollX,
    sy: g.scrollY,
  };
}

/** A churn run as JSON: `{replaced: 31, t, r, to, ex: [first, last], was: ["53-83"]}`. */
export function compactChurn(r: ChurnRun): { [key: string]: Json } {
  const out: { [key: string]: Json } = { replaced: r.count, t: r.role, r: r.first, to: r.last, ex: [...r.names] };
  if (r.was.length) out.was = refRuns(r.was);
  if (r.frame) out.f = r.frame;
  return out;
}
