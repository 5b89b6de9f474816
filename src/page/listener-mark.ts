/**
 * Page-side half of listener-only clickables (see broker/observe/listeners.ts): records, for
 * the snapshot walk, the elements a script listens on for clicks. Part of the page bundle
 * (`markListened`); the symbol is repeated in snapshot/setup.ts.
 *
 * Only leaf-like elements count. A listener on a wrapper that holds real controls is event
 * delegation, not a control of its own; one on a list (ul, ol, listbox, menu) stands for its
 * items, which is how autocomplete menus are built; one covering most of the viewport is a
 * backdrop, not a control.
 */
import type { PageElement, PageWindow } from "./types.ts";

export function markListened(win: PageWindow, els: PageElement[]): number {
  const KEY = Symbol.for("browser-pilot.listened.v1");
  const CONTROLS = "a[href],button,input,select,textarea,summary,[tabindex],[contenteditable],[role=button],[role=link],[role=option],[role=menuitem],[role=checkbox],[role=tab]";
  const LISTS: Record<string, number> = { ul: 1, ol: 1, menu: 1, listbox: 1, tree: 1 };
  const set = new WeakSet<PageElement>();
  Object.defineProperty(win, KEY, { value: { doc: win.document, set }, configurable: true, enumerable: false, writable: true });
  const area = Math.max(1, win.innerWidth * win.innerHeight);
  let marked = 0;
  const leafy = (el: PageElement): boolean => {
    try {
      if (el.querySelector(CONTROLS)) return false;
      const r = el.getBoundingClientRect();
      return r.width * r.height < area * 0.5;
    } catch {
      return false;
    }
  };
  for (let i = 0; i < els.length; i++) {
    const el = els[i];
    if (!el || el.nodeType !== 1) continue;
    const tag = String(el.localName || "").toLowerCase();
    if (tag === "html" || tag === "body") continue;
    const role = String(el.getAttribute("role") || "").toLowerCase();
    if (LISTS[tag] || LISTS[role]) {
      for (let c = el.firstElementChild, n = 0; c && n < 200; c = (c as PageElement & { nextElementSibling: PageElement | null }).nextElementSibling, n++) {
        if (leafy(c)) {
          set.add(c);
          marked++;
        }
      }
      continue;
    }
    if (leafy(el)) {
      set.add(el);
      marked++;
    }
  }
  return marked;
}
