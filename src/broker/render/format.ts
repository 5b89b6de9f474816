/**
 * Broker-side rendering of a page snapshot: compact human lines and compact JSON.
 *
 * Human output is read by a language model, so page-derived strings are hostile input: every one
 * is escaped with JSON-string rules (quotes, backslashes, control characters, line and paragraph
 * separators, bidi controls) and capped, so a page can never start a new line or forge a `[n]`
 * entry. JSON output keeps raw values (JSON.stringify already escapes them).
 */
import type {
  SnapshotElement,
  SnapshotEntry,
  SnapshotFold,
  SnapshotFrame,
  SnapshotHint,
  SnapshotResult,
  PageGeometry,
  TextBlock,
} from "../../page/types.ts";
import { refRuns, type ChurnRun, type SnapshotDiff } from "./diff.ts";

const HEX = "0123456789abcdef";

/** Escape a page-derived string for a single human-output line (no surrounding quotes). */
export function escapeLine(value: string, max = 120): string {
  let s = value.length > max ? value.slice(0, max) : value;
  const last = s.charCodeAt(s.length - 1);
  if (s !== value && last >= 0xd800 && last <= 0xdbff) s = s.slice(0, -1);
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const ch = s.charAt(i);
    const c = s.charCodeAt(i);
    if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (
      c < 0x20 ||
      (c >= 0x7f && c <= 0x9f) ||
      c === 0x2028 ||
      c === 0x2029 ||
      (c >= 0x200b && c <= 0x200f) ||
      (c >= 0x202a && c <= 0x202e) ||
      (c >= 0x2066 && c <= 0x2069) ||
      c === 0xfeff
    ) {
      out +=
        "\\u" + HEX.charAt((c >> 12) & 15) + HEX.charAt((c >> 8) & 15) + HEX.charAt((c >> 4) & 15) + HEX.charAt(c & 15);
    } else out += ch;
  }
  return value.length > max ? out + "…" : out;
}

/** A quoted, escaped page string. */
export function quote(value: string, max = 120): string {
  return `"${escapeLine(value, max)}"`;
}

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

function valuePart(e: SnapshotElement): string {
  if (e.sensitive) return e.valueLength ? ` value=(hidden, ${e.valueLength} chars)` : "";
  if (e.value) return ` value=${quote(e.value, 200)}`;
  return "";
}

export function formatElementLine(e: SnapshotElement): string {
  let line = `[${e.ref}] ${e.role}`;
  if (e.name) line += ` ${quote(e.name)}`;
  else if (e.desc) line += ` (${escapeLine(e.desc, 40)})`;
  line += valuePart(e);
  const states = elementStates(e);
  if (states.length) line += ` ${states.join(" ")}`;
  if (e.frame) line += ` frame=${e.frame}`;
  return line;
}

export function formatFoldLine(f: SnapshotFold): string {
  const roles = f.period > 1 ? f.roles.join("+") : f.role;
  const samples = f.samples.map((s) => quote(s, 60)).join(", ");
  const frame = f.frame ? ` frame=${f.frame}` : "";
  return (
    `[${f.firstRef}…${f.lastRef}] ${f.count} more ${roles}${samples ? ` e.g. ${samples}` : ""}${frame}` +
    ` (folded, same shape as above; --expand <ref> or --find <text>)`
  );
}

export function formatFrameLine(f: SnapshotFrame): string {
  let line = `[${f.ref}] iframe`;
  if (f.name) line += ` ${quote(f.name)}`;
  if (f.src) line += ` src=${quote(f.src, 160)}`;
  line += ` ${f.reason === "cross_origin" ? "cross-origin" : "unreachable"} frame=${f.frame}`;
  return line;
}

export function formatEntryLine(e: SnapshotEntry): string {
  if (e.kind === "fold") return formatFoldLine(e);
  if (e.kind === "frame") return formatFrameLine(e);
  return formatElementLine(e);
}

export function formatHintLine(h: SnapshotHint): string {
  const refs = h.refs.length ? ` refs=${h.refs.join(",")}` : "";
  return `[hint] ${h.type} (${h.confidence}${h.blocking ? ", blocking" : ""}): ${h.recommendedAction}${refs}`;
}

export interface HumanFormatOptions {
  /** Omit the [page] and [viewport] header lines (e.g. when the caller prints its own). */
  header?: boolean;
  /** List the text blocks among the entries (snapshot --text). */
  text?: boolean;
}

export function formatSnapshotHuman(result: SnapshotResult, options: HumanFormatOptions = {}): string {
  const lines: string[] = [];
  if (options.header !== false) {
    lines.push(`[page] ${escapeLine(result.title, 200)} | ${escapeLine(result.url, 300)}`);
    // Only a page that scrolls has anything to say about its viewport.
    const g = result.page;
    if (scrolls(g)) {
      const below = g.pixelsBelow > 0 ? ` | ${g.pixelsBelow}px below` : "";
      lines.push(
        `[viewport] ${g.viewportWidth}x${g.viewportHeight} at ${g.scrollX},${g.scrollY} of ${g.documentWidth}x${g.documentHeight}${below}`,
      );
    }
  }
  if (result.elements.length === 0) lines.push("(no interactive elements)");
  const entries = result.elements.map(formatEntryLine);
  lines.push(...(options.text ? interleaveTexts(result, entries, formatTextLine) : entries));
  if (result.truncated) {
    const shown = countShown(result.elements);
    lines.push(
      `[truncated: ${result.truncationReasons.join(", ")}] ${shown} of ${result.totalCandidates} elements shown;` +
        " raise --limit or narrow with find/search",
    );
  }
  for (const h of result.hints) lines.push(formatHintLine(h));
  return lines.join("\n");
}

/** Elements represented by the emitted entries (a fold stands for `count` elements). */
function countShown(entries: SnapshotEntry[]): number {
  let n = 0;
  for (const e of entries) n += e.kind === "fold" ? e.count : e.kind === "element" ? 1 : 0;
  return n;
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

/** A text block as a human line: `## Heading`, `| text`. */
export const formatTextLine = (b: TextBlock): string =>
  b.h ? `${"#".repeat(b.h)} ${escapeLine(b.x, 160)}` : `| ${escapeLine(b.x, 160)}`;

type Json = string | number | boolean | Json[] | { [key: string]: Json };

/** A snapshot as JSON (compactSnapshotJson): each field only when it says something. */
export interface CompactSnapshot {
  title: string;
  url: string;
  page?: { [key: string]: number };
  elements?: { [key: string]: Json }[];
  total?: number;
  truncated?: true;
  truncationReasons?: string[];
  hints?: { [key: string]: Json }[];
}

/**
 * Short keys: r ref, t role, n name, v value, vl value length (sensitive fields), s states,
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

/** The document is larger than its viewport, or scrolled: content lies outside the view. */
function scrolls(g: PageGeometry): boolean {
  return g.documentHeight > g.viewportHeight || g.documentWidth > g.viewportWidth || g.scrollX > 0 || g.scrollY > 0;
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
  if (options.text && result.texts?.length) out.elements = interleaveTexts(result, entries, compactText);
  else if (entries.length) out.elements = entries;
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

export function formatDiffHuman(diff: SnapshotDiff): string {
  const lines: string[] = [];
  if (diff.title !== undefined) lines.push(`[page] title now ${quote(diff.title, 200)}`);
  if (diff.url !== undefined) lines.push(`[page] url now ${quote(diff.url, 300)}`);
  for (const e of diff.added) lines.push(`+ ${formatEntryLine(e)}`);
  for (const r of diff.replaced) {
    const was = r.was.length ? ` replacing ${refRanges(r.was)}` : "";
    lines.push(
      `+ [${r.first}…${r.last}] ${r.count} ${r.role} ${quote(r.names[0], 60)}..${quote(r.names[1], 60)}${was}${r.frame ? ` frame=${r.frame}` : ""}`,
    );
  }
  if (diff.addedUnlisted > 0) lines.push(`+ ${diff.addedUnlisted} more new elements beyond the limit`);
  for (const c of diff.changed) lines.push(`~ ${formatElementLine(c.element)} (${c.fields.join(",")})`);
  if (diff.removed.length) lines.push(`- removed ${refRanges(diff.removed)}`);
  if (diff.order) lines.push(`~ order now ${diff.order.map((n) => quote(n, 60)).join(", ")}`);
  for (const t of diff.text) lines.push(`| ${quote(t, 160)}`);
  for (const a of diff.announced) lines.push(`» ${quote(a, 300)}`);
  if (!lines.length) lines.push("(no changes)");
  return lines.join("\n");
}

/** "3,5-9,12" from a sorted list of refs. */
export function refRanges(refs: number[]): string {
  const sorted = [...refs].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === (sorted[j] as number) + 1) j++;
    parts.push(j > i ? `${sorted[i]}-${sorted[j]}` : String(sorted[i]));
    i = j + 1;
  }
  return parts.join(",");
}

/** A churn run as JSON: `{replaced: 31, t, r, to, ex: [first, last], was: ["53-83"]}`. */
export function compactChurn(r: ChurnRun): { [key: string]: Json } {
  const out: { [key: string]: Json } = { replaced: r.count, t: r.role, r: r.first, to: r.last, ex: [...r.names] };
  if (r.was.length) out.was = refRuns(r.was);
  if (r.frame) out.f = r.frame;
  return out;
}
