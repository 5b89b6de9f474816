/**
 * Computed styles kept across a world's snapshots: a getComputedStyle declaration is live, and making one per element
 * per snapshot cost more than a small page's reads (a fifth of the walk on large pages). Each costs renderer memory
 * while its element lives, so only the first MAX_KEPT elements keep theirs.
 */
import type { PageElement, PageStyle } from "../types.ts";

const MAX_KEPT = 10_000;

const kept = new WeakMap<PageElement, PageStyle>();
let count = 0;

export function styleOf(view: { getComputedStyle(element: PageElement): PageStyle }, el: PageElement): PageStyle {
  const known = kept.get(el);
  if (known) return known;
  const st = view.getComputedStyle(el);
  if (count < MAX_KEPT) {
    kept.set(el, st);
    count++;
  }
  return st;
}
