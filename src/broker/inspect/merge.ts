/**
 * Merges an inspect result with the results of its cross-origin iframes (used by the broker;
 * never injected). Each frame's content goes where its iframe is, and limits stay global: frames
 * are visited in document order and each is asked only for what is still missing, so the work
 * is bounded by the limit and the number of frames, not by what the frames contain.
 */
import type { FindResult } from "../../page/inspect/find.ts";
import type { ReadResult } from "../../page/inspect/read.ts";
import type { SearchResult } from "../../page/inspect/search.ts";
import { cutText } from "../../page/inspect/dom.ts";
import type { FramePlaceholder } from "../../page/inspect/tree.ts";

/**
 * One frame's result, its own frames already merged, with at most `limit` matches or
 * characters; undefined when the frame cannot be read (gone, or nothing in scope).
 */
export type Descend<T> = (frame: FramePlaceholder, limit: number) => Promise<T | undefined>;

interface List<E> {
  items: E[];
  total: number;
  truncated: boolean;
}

/** Matches in document order: the frame's own before each iframe, then the iframe's. */
async function mergeList<E>(
  own: List<E>,
  frames: FramePlaceholder[],
  limit: number,
  descend: Descend<List<E>>,
): Promise<List<E>> {
  const items: E[] = [];
  let total = own.total;
  let truncated = own.truncated;
  let next = 0;
  const take = (upTo: number): void => {
    for (; next < own.items.length && next < upTo; next++) if (items.length < limit) items.push(own.items[next] as E);
  };
  for (const f of frames) {
    take(f.at);
    // A full list still asks for one match, to count the frame's matches in the total.
    const inner = await descend(f, Math.max(1, limit - items.length));
    if (!inner) continue;
    total += inner.total;
    truncated ||= inner.truncated;
    for (const e of inner.items) if (items.length < limit) items.push(e);
  }
  take(own.items.length);
  return { items, total, truncated: truncated || total > items.length };
}

export async function mergeSearch(
  top: SearchResult,
  limit: number,
  descend: Descend<SearchResult>,
): Promise<SearchResult> {
  if (top.frames.length === 0) return top;
  let scoped = top.scoped;
  const list = await mergeList(
    { items: top.matches, total: top.totalMatches, truncated: top.truncated },
    top.frames,
    limit,
    async (f, n) => {
      const r = await descend(f, n);
      if (!r) return undefined;
      scoped ||= r.scoped;
      return { items: r.matches, total: r.totalMatches, truncated: r.truncated };
    },
  );
  list.items.forEach((m, i) => {
    m.index = i + 1;
  });
  return { ...top, matches: list.items, totalMatches: list.total, truncated: list.truncated, frames: [], scoped };
}

export async function mergeFind(top: FindResult, limit: number, descend: Descend<FindResult>): Promise<FindResult> {
  if (top.frames.length === 0) return top;
  const list = await mergeList(
    { items: top.elements, total: top.total, truncated: top.truncated },
    top.frames,
    limit,
    async (f, n) => {
      const r = await descend(f, n);
      return r && { items: r.elements, total: r.total, truncated: r.truncated };
    },
  );
  list.items.forEach((e, i) => {
    e.index = i + 1;
  });
  return { elements: list.items, total: list.total, truncated: list.truncated, frames: [] };
}

/**
 * Splices each frame's text in after the text before its iframe, on lines of its own. The page
 * left a pending line break at each placeholder, so the frame's own text after `at` already
 * starts with one, except at the very start.
 */
export async function mergeRead(top: ReadResult, limit: number, descend: Descend<ReadResult>): Promise<ReadResult> {
  if (top.frames.length === 0) return top;
  let text = "";
  let length = top.length;
  let truncated = top.truncated;
  // Once a piece shows less than it has, anything after it would leave a gap: show no more.
  let gap = false;
  const put = (shown: string, has: number): void => {
    if (!gap && text.length <= limit) text += shown;
    if (shown.length < has) gap = true;
  };
  let cursor = 0;
  let before = false;
  const ownUpTo = (at: number): void => {
    if (at <= cursor) return;
    const lead = cursor === 0 && before ? "\n" : "";
    length += lead.length;
    put(lead + top.text.slice(cursor, at), lead.length + at - cursor);
    cursor = at;
    before = true;
  };
  for (const f of top.frames) {
    ownUpTo(f.at);
    const sep = before ? "\n" : "";
    const inner = await descend(f, Math.max(1, limit - text.length - sep.length));
    if (!inner) continue;
    truncated ||= inner.truncated;
    if (inner.length === 0) continue;
    length += sep.length + inner.length;
    put(sep + inner.text, sep.length + inner.length);
    before = true;
  }
  ownUpTo(top.length);
  return { ...top, text: cutText(text, limit), length, truncated: truncated || length > limit, frames: [] };
}
