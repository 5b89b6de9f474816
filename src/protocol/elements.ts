/**
 * How a listed element travels in JSON: `[ref, role, name, {more}]`, the name and the object only when there is
 * something in them (`[4,"textbox"]`, `[9,"radio","Free",{"s":"checked"}]`). Keys as objects spell them cost about
 * 12 characters an element, a third of a small page's snapshot. A text block (snapshot --text) is a bare string, a
 * heading `{h, x}`; a fold (`{fold, …}`) and a churn run (`{replaced, …}`) stay objects, being rare and unlike the rest.
 * The broker writes entries with `wireEntry`; the CLI's text and anyone scripting against the JSON read them back with
 * `readEntry`.
 */

export type Json = string | number | boolean | Json[] | { [key: string]: Json };
/** An entry as its object: `{r, t, n, v, s, …}`, `{x}` for a text block. */
export type EntryObject = { [key: string]: Json };
/** An entry as it travels. */
export type WireEntry = Json[] | string | EntryObject;

const POSITIONAL = new Set(["r", "t", "n"]);

/** An element's object form to its wire form; text blocks, headings, folds and churn runs as they go. */
export function wireEntry(e: EntryObject): WireEntry {
  if (typeof e.r !== "number" || typeof e.t !== "string" || "fold" in e || "replaced" in e) {
    const keys = Object.keys(e);
    return keys.length === 1 && keys[0] === "x" && typeof e.x === "string" ? e.x : e;
  }
  const more: EntryObject = {};
  for (const [k, v] of Object.entries(e)) if (!POSITIONAL.has(k)) more[k] = v;
  const hasMore = Object.keys(more).length > 0;
  const out: Json[] = [e.r, e.t];
  if (e.n !== undefined || hasMore) out.push(e.n ?? "");
  if (hasMore) out.push(more);
  return out;
}

/** A wire entry back to its object form (`{r, t, n?, …more}`, `{x}` for a text block); objects as they are. */
export function readEntry(x: unknown): EntryObject {
  if (typeof x === "string") return { x };
  if (!Array.isArray(x)) return (x ?? {}) as EntryObject;
  const [r, t, n, more] = x as [number, string, string | undefined, EntryObject | undefined];
  return { r, t, ...(n ? { n } : {}), ...(more ?? {}) };
}

type Listing = { elements?: unknown[]; diff?: { added?: unknown[]; changed?: unknown[] } };

/**
 * A snapshot's or an action's reply with every listed element in object form: its `elements` and its diff's `added`
 * and `changed`. For scripts and tests that look elements up by field.
 */
export function readListing<T extends object>(reply: T): T {
  const r = reply as T & Listing;
  const out: Listing = { ...r };
  if (Array.isArray(r.elements)) out.elements = r.elements.map(readEntry);
  if (r.diff && typeof r.diff === "object") {
    const d = { ...r.diff };
    if (Array.isArray(d.added)) d.added = d.added.map(readEntry);
    if (Array.isArray(d.changed)) d.changed = d.changed.map(readEntry);
    out.diff = d;
  }
  return out as T;
}
