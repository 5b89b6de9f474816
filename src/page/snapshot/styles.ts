/**
 * Computed styles kept across the snapshots of a world. A declaration from getComputedStyle is
 * live: every read gives the element's style as it is at that moment, so one made in an earlier
 * snapshot answers exactly as a new one would. Making a new one for every element in every
 * snapshot cost more than a small page's reads of it (and, on large pages, a fifth of the walk).
 * Each kept declaration costs the renderer memory for as long as its element lives, so only the
 * first MAX_KEPT elements a world looks at keep theirs; the rest get a new one each time.
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
