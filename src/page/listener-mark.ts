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
import type { PageDocument, PageElement, PageNode, PageWindow } from "./types.ts";

const KEY = Symbol.for("browser-pilot.listened.v1");

interface Observer {
  observe(target: PageNode, options: { childList: boolean; subtree: boolean }): void;
  disconnect(): void;
  takeRecords(): Added[];
}
interface Added {
  addedNodes: ArrayLike<PageNode>;
}
type ObserverClass = new (cb: (records: Added[]) => void) => Observer;
/** The marks of one document, and whether an element was added anywhere since they were made. */
interface Marks {
  doc: PageDocument;
  set: WeakSet<PageElement>;
  dirty: boolean;
  watch: Observer | null;
  /** The elements the broker handed over (held weakly where the world has WeakRef), to mark again from. */
  sources: (WeakRef<PageElement> | PageElement)[];
}

/** Past this many elements the watch is not set up: such a page is marked afresh every time. */
const MAX_WATCHED = 200_000;

export function markListened(win: PageWindow, els: PageElement[]): number {
  const CONTROLS = "a[href],button,input,select,textarea,summary,[tabindex],[contenteditable],[role=button],[role=link],[role=option],[role=menuitem],[role=checkbox],[role=tab]";
  const LISTS: Record<string, number> = { ul: 1, ol: 1, menu: 1, listbox: 1, tree: 1 };
  const set = new WeakSet<PageElement>();
  const old = Reflect.get(win, KEY) as Marks | undefined;
  old?.watch?.disconnect();
  const weak = typeof WeakRef === "function";
  const marks: Marks = { doc: win.document, set, dirty: false, watch: null, sources: els.map((el) => (weak && el ? new WeakRef(el) : el)) };
  marks.watch = watchForElements(win, marks);
  Object.defineProperty(win, KEY, { value: marks, configurable: true, enumerable: false, writable: true });
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

const addsElement = (records: Added[]): boolean => {
  for (const r of records) for (let i = 0; i < r.addedNodes.length; i++) if (r.addedNodes[i]?.nodeType === 1) return true;
  return false;
};

/**
 * Listeners come with the elements that carry them: while no element is added anywhere in the
 * document (its same-origin frames and open shadow roots included), the marks still hold and
 * the broker need not ask the browser again. The first added element ends the watch. Text and
 * attribute changes do not count. Null where it cannot watch (no MutationObserver, a huge page).
 */
function watchForElements(win: PageWindow, marks: Marks): Observer | null {
  const MO = Reflect.get(win, "MutationObserver") as ObserverClass | undefined;
  if (typeof MO !== "function") return null;
  const watch = new MO((records) => {
    if (!addsElement(records)) return;
    marks.dirty = true;
    watch.disconnect();
  });
  const opts = { childList: true, subtree: true };
  const roots: PageNode[] = [win.document];
  let seen = 0;
  for (let i = 0; i < roots.length; i++) {
    const root = roots[i] as PageNode;
    watch.observe(root, opts);
    // Shadow roots and frame documents are not part of a subtree watch: found and watched each.
    const stack: PageNode[] = [root];
    while (stack.length > 0) {
      const n = stack.pop() as PageNode;
      for (let c = n.firstChild; c; c = c.nextSibling) {
        if (c.nodeType !== 1) continue;
        if (++seen > MAX_WATCHED) {
          watch.disconnect();
          return null;
        }
        const el = c as PageElement;
        if (el.shadowRoot) roots.push(el.shadowRoot);
        const tag = el.localName;
        if (tag === "iframe" || tag === "frame") {
          try {
            const d = Reflect.get(el, "contentDocument") as PageDocument | null;
            if (d) roots.push(d);
          } catch {
            // A cross-origin frame is marked through its own session.
          }
        }
        stack.push(c);
      }
    }
  }
  return watch;
}

/**
 * After elements were added: marks this document again from the elements the broker handed
 * over last time, as a fresh marking with the same listener list would (the new elements may
 * be items of a listened list, or make a listened wrapper hold controls). The broker keeps the
 * result only if the browser's listener list is still that one. False when this document has
 * no marks to start from.
 */
export function remarkListened(win: PageWindow): boolean {
  const marks = Reflect.get(win, KEY) as Marks | undefined;
  // No sources: marks an older build left in this document (a document outlives a bp upgrade).
  if (!marks || marks.doc !== win.document || !Array.isArray(marks.sources)) return false;
  const weak = typeof WeakRef === "function";
  const els: PageElement[] = [];
  for (const s of marks.sources) {
    const el = weak && s instanceof WeakRef ? s.deref() : (s as PageElement);
    if (el) els.push(el);
  }
  markListened(win, els);
  return true;
}

/** True when this document's marks were made here and no element has been added since. */
export function listenedFresh(win: PageWindow): boolean {
  const marks = Reflect.get(win, KEY) as Marks | undefined;
  if (!marks || marks.doc !== win.document || marks.dirty || !marks.watch) return false;
  // Mutations whose callback has not run yet.
  if (addsElement(marks.watch.takeRecords())) {
    marks.dirty = true;
    marks.watch.disconnect();
    return false;
  }
  return true;
}
