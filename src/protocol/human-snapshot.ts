/**
 * A snapshot, a diff and an action's reply as human lines, from their compact JSON. Page-derived strings are escaped
 * and capped (src/shared/escape.ts), so a page can never start a new line or forge a `[n]` entry.
 */
import { escapeLine, quote } from "../shared/escape.ts";
import { cutString } from "../shared/page-strings.ts";
import { readEntry } from "./elements.ts";
import { wantsLook } from "./look-args.ts";
import { type Formatter, openLine, withNotices } from "./human.ts";

type R = Record<string, unknown>;
const list = (r: R | undefined, key: string) => (r?.[key] as R[] | undefined) ?? [];
const str = (x: unknown) => String(x);
/** A list of elements in object form (they travel as arrays: src/protocol/elements.ts). */
const entriesOf = (r: R | undefined, key: string): R[] => ((r?.[key] as unknown[] | undefined) ?? []).map(readEntry);

/** A frame entry as JSON: `{r, t: "iframe", n, src, f, s: reason}` (an element's `s` is its state words). */
const isFrame = (e: R) => e.t === "iframe" && (e.s === "cross_origin" || e.s === "unreachable");
/** A text block as JSON (snapshot --text): `{x}`, a heading `{h, x}`. */
const isText = (e: R) => e.x !== undefined && e.r === undefined;

function elementLine(e: R): string {
  let line = `[${str(e.r)}] ${str(e.t)}`;
  if (e.n) line += ` ${quote(str(e.n))}`;
  else if (e.d) line += ` (${escapeLine(str(e.d), 40)})`;
  if (e.vl) line += ` value=(hidden, ${str(e.vl)} chars)`;
  else if (e.v) line += ` value=${quote(str(e.v), 200)}`;
  if (e.s) line += ` ${str(e.s)}`;
  if (e.f) line += ` frame=${str(e.f)}`;
  return line;
}

function entryLine(e: R): string {
  if (isText(e))
    return e.h ? `${"#".repeat(Number(e.h))} ${escapeLine(str(e.x), 160)}` : `| ${escapeLine(str(e.x), 160)}`;
  if (e.fold !== undefined) {
    const samples = ((e.ex as string[] | undefined) ?? []).map((s) => quote(s, 60)).join(", ");
    return (
      `[${str(e.r)}…${str(e.to)}] ${str(e.fold)} more ${str(e.t)}${samples ? ` e.g. ${samples}` : ""}${e.f ? ` frame=${str(e.f)}` : ""}` +
      " (folded, same shape as above; --expand <ref> or --find <text>)"
    );
  }
  if (isFrame(e)) {
    let line = `[${str(e.r)}] iframe`;
    if (e.n) line += ` ${quote(str(e.n))}`;
    if (e.src) line += ` src=${quote(str(e.src), 160)}`;
    return `${line} ${e.s === "cross_origin" ? "cross-origin" : "unreachable"} frame=${str(e.f)}`;
  }
  return elementLine(e);
}

/** The page's own hints (the watchdogs' carry a message and come after the text). */
function hintLines(r: R): string[] {
  return list(r, "hints")
    .filter((h) => h.message === undefined)
    .map((h) => {
      const refs = Array.isArray(h.refs) && h.refs.length ? ` refs=${h.refs.join(",")}` : "";
      return `[hint] ${str(h.type)} (${str(h.confidence ?? "strong")}${h.blocking ? ", blocking" : ""}): ${str(h.recommendedAction)}${refs}`;
    });
}

/** A whole snapshot: header, entries (text blocks among them with --text), truncation and hints. */
export function snapshotLines(r: R): string {
  const lines = [`[page] ${escapeLine(str(r.title), 200)} | ${escapeLine(str(r.url), 300)}`];
  // In human mode a page that scrolls carries its whole geometry (the JSON only the axes that scroll).
  const g = r.page as Record<string, number> | undefined;
  if (g) {
    const [vw, vh, dw, dh, sx, sy] = [g.vw, g.vh, g.dw, g.dh, g.sx ?? 0, g.sy ?? 0].map(Number) as number[];
    const below = Math.max(0, (dh as number) - (vh as number) - (sy as number));
    lines.push(`[viewport] ${vw}x${vh} at ${sx},${sy} of ${dw}x${dh}${below > 0 ? ` | ${below}px below` : ""}`);
  }
  const entries = entriesOf(r, "elements");
  if (!entries.some((e) => !isText(e))) lines.push("(no interactive elements)");
  lines.push(...entries.map(entryLine));
  if (r.truncated) {
    const shown = entries.reduce(
      (n, e) => n + (e.fold !== undefined ? Number(e.fold) : isText(e) || isFrame(e) ? 0 : 1),
      0,
    );
    lines.push(
      `[truncated: ${((r.truncationReasons as string[] | undefined) ?? []).join(", ")}] ${shown} of ${str(r.total)} elements shown;` +
        " raise --limit or narrow with find/search",
    );
  }
  lines.push(...hintLines(r));
  return lines.join("\n");
}

/** `[1,"3-5"]` back to `[1,3,4,5]`. */
function expandRuns(runs: unknown): number[] {
  return ((runs as (number | string)[] | undefined) ?? []).flatMap((x) => {
    if (typeof x === "number") return [x];
    const [a, b] = x.split("-").map(Number) as [number, number];
    return Array.from({ length: b - a + 1 }, (_, i) => a + i);
  });
}

/** "3,5-9,12" from a list of refs. */
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

/** A diff: `+` added (churn runs after), `~` changed, `-` removed, `|` text, `»` announced. */
export function diffLines(d: R): string {
  const lines: string[] = [];
  if (d.title !== undefined) lines.push(`[page] title now ${quote(str(d.title), 200)}`);
  if (d.url !== undefined) lines.push(`[page] url now ${quote(str(d.url), 300)}`);
  const added = entriesOf(d, "added");
  for (const e of added.filter((x) => x.replaced === undefined)) lines.push(`+ ${entryLine(e)}`);
  for (const c of added.filter((x) => x.replaced !== undefined)) {
    const was = c.was !== undefined ? ` replacing ${refRanges(expandRuns(c.was))}` : "";
    const [first, last] = (c.ex as string[] | undefined) ?? ["", ""];
    lines.push(
      `+ [${str(c.r)}…${str(c.to)}] ${str(c.replaced)} ${str(c.t)} ${quote(str(first), 60)}..${quote(str(last), 60)}${was}${c.f ? ` frame=${str(c.f)}` : ""}`,
    );
  }
  if (d.more) lines.push(`+ ${str(d.more)} more new elements beyond the limit`);
  for (const c of entriesOf(d, "changed"))
    lines.push(`~ ${elementLine(c)} (${((c.fields as string[]) ?? []).join(",")})`);
  if (d.removed !== undefined) lines.push(`- removed ${refRanges(expandRuns(d.removed))}`);
  if (d.order) lines.push(`~ order now ${(d.order as string[]).map((n) => quote(n, 60)).join(", ")}`);
  for (const t of (d.text as string[] | undefined) ?? []) lines.push(`| ${quote(t, 160)}`);
  for (const a of (d.announced as string[] | undefined) ?? []) lines.push(`» ${quote(a, 300)}`);
  if (!lines.length) lines.push("(no changes)");
  return lines.join("\n");
}

/** A snapshot reply: its diff when it has one, else the whole page. */
export function observationLines(r: R): string {
  return r.diff !== undefined ? diffLines(r.diff as R) : snapshotLines(r);
}

/** `bp snapshot` */
export const snapshotText = withNotices((r) => observationLines(r));

/** ✓ only for verified: an agent skimming the text must not read "unavailable" as success. */
function statusMark(status: unknown): string {
  return status === "verified" ? "✓" : status === "mismatch" ? "✗" : "?";
}

/**
 * An action's reply: its evidence in a line, then the page as the action left it. In human mode the reply carries
 * `view`: the action's name, its effects before the lean reply dropped any, and its observation before it was trimmed.
 */
export const actionText = withNotices((r) => {
  const view = (r.view as R | undefined) ?? {};
  const ev = (r.evidence as R | undefined) ?? {};
  const action = str(view.action);
  const dialog = ev.dialog as R | undefined;
  if (dialog)
    return `✓ ${action}: dialog ${str(dialog.id)} (${str(dialog.type)}) "${cutString(str(dialog.message), 200).replace(/[\r\n]+/g, " ")}" is open; answer with 'bp dialog ${str(dialog.id)} --accept|--dismiss'.`;
  const observed = view.observation as R | undefined;
  if (!observed) return undefined;
  const fx = (view.effects as string[] | undefined) ?? [];
  const popups = (ev.popups as string[] | undefined) ?? [];
  const downloads = list(ev, "downloads");
  const head = `${statusMark(ev.status)} ${action} ${str(ev.status)}${fx.length ? ` (${fx.join(", ")})` : ""}${popups.length ? `; popup ${popups.join(", ")}` : ""}${downloads.map((d) => `; download ${str(d.id)} ${str(d.fileName)} (${str(d.state)})`).join("")}`;
  return `${head}\n${observationLines(observed)}`;
});

/**
 * A navigation's line (open, back, forward, reload); with --snapshot, --text or --limit then the page's entries, hints
 * and cut as 'bp snapshot' lists them.
 */
export const withLook =
  (navLine: Formatter): Formatter =>
  (r, a) => {
    const line = navLine(r, a) ?? "";
    if (!wantsLook(a) || r.dialog !== undefined) return line;
    // The navigation's line stands for the snapshot's [page] header.
    return [line, ...snapshotLines(r).split("\n").slice(1)].join("\n");
  };

/** `bp open` */
export const openText = withLook(openLine);
