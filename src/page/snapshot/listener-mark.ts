/**
 * Page-side half of listener-only clickables (broker/observe/listeners.ts). Only leaf-like elements count: a listener
 * on a wrapper of controls is delegation, on a list it stands for its items, covering most of the viewport it is a
 * backdrop.
 */
import type { PageDocument, PageElement, PageNode, PageWindow } from "../types.ts";

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
interface Marks {
  doc: PageDocument;
  set: WeakSet<PageElement>;
  dirty: boolean;
  watch: Observer | null;
  sources: (WeakRef<PageElement> | PageElement)[];
  /** Index in `sources` from which they are drop zones (drop/dragover listeners), not clickables. */
  dropAt: number;
  /**
   * Delegating containers (a list, a jQuery `.on(type, selector)` root): their items are found again at every snapshot.
   */
  delegates: Delegate[];
}

interface Delegate {
  el: WeakRef<PageElement> | PageElement | PageDocument;
  sels: string[];
  own?: true;
}

/**
 * The page world's delegation facts (broker/observe/delegation.ts): `n` elements by document-order index with tags; `d`
 * delegating containers (-1: document) with selectors; `h` framework-clickable elements (React's onClick).
 */
export interface DelegationScan {
  n: number;
  d: [number, string[], string?, 1?][];
  h: [number, string][];
}

export interface MarkExtra {
  dropAt?: number;
  scan?: DelegationScan;
  /** Add the scan's elements to this document's marks (an action's observation), instead of marking afresh. */
  merge?: true;
}

/** Past this many elements the watch is not set up: such a page is marked afresh every time. */
const MAX_WATCHED = 200_000;

/**
 * A listened element holding one of these is a wrapper; a negative tabindex is no control (jQuery UI's menu wrappers).
 */
const CONTROLS =
  "a[href],button,input,select,textarea,summary,[tabindex]:not([tabindex^='-']),[contenteditable],[role=button],[role=link],[role=option],[role=menuitem],[role=checkbox],[role=tab]";
const LISTS: Record<string, number> = {
  ul: 1,
  ol: 1,
  menu: 1,
  listbox: 1,
  tree: 1,
  menubar: 1,
  toolbar: 1,
  tablist: 1,
  radiogroup: 1,
};
const MAX_DELEGATES = 50;
const MAX_ITEMS = 200;

export function markListened(win: PageWindow, els: PageElement[], extra?: MarkExtra): number {
  if (extra?.merge) return mergeScan(win, extra.scan);
  const set = new WeakSet<PageElement>();
  const old = Reflect.get(win, KEY) as Marks | undefined;
  old?.watch?.disconnect();
  const weak = typeof WeakRef === "function";
  const hold = <T extends object>(el: T): WeakRef<T> | T => (weak ? new WeakRef(el) : el);
  const dropAt = typeof extra?.dropAt === "number" ? extra.dropAt : els.length;
  const delegates: Delegate[] = [];
  const all = [...els];
  const scan = extra?.scan;
  if (scan) scanned(win, scan, all, delegates, hold);
  const marks: Marks = {
    doc: win.document,
    set,
    dirty: false,
    watch: null,
    sources: els.map((el) => (el ? hold(el) : el)),
    dropAt,
    delegates,
  };
  marks.watch = watchForElements(win, marks);
  Object.defineProperty(win, KEY, { value: marks, configurable: true, enumerable: false, writable: true });
  // A delegating container, or one holding a framework-clickable element, is the handlers' host, not a control.
  const hosts = new Set<unknown>();
  for (const d of delegates)
    if (!d.own) hosts.add(typeof WeakRef === "function" && d.el instanceof WeakRef ? d.el.deref() : d.el);
  for (let i = els.length; i < all.length; i++) {
    let up = (all[i] as PageElement & { parentElement: PageElement | null }).parentElement;
    for (
      let n = 0;
      up && n < 100 && !hosts.has(up);
      n++, up = (up as PageElement & { parentElement: PageElement | null }).parentElement
    )
      hosts.add(up);
  }
  let marked = 0;
  for (let i = 0; i < all.length; i++) {
    const el = all[i];
    if (!el || el.nodeType !== 1 || (i < els.length && hosts.has(el))) continue;
    const tag = String(el.localName || "").toLowerCase();
    if (tag === "html" || tag === "body") continue;
    // A drop zone is one whatever it holds (a list of draggable items, usually).
    if (i >= dropAt && i < els.length) {
      set.add(el);
      marked++;
      continue;
    }
    const role = String(el.getAttribute("role") || "").toLowerCase();
    if (LISTS[tag] || LISTS[role]) {
      if (delegates.length < MAX_DELEGATES) delegates.push({ el: hold(el), sels: [] });
      continue;
    }
    if (leafy(win, el)) {
      set.add(el);
      marked++;
    }
  }
  return marked + markDelegated(win, marks);
}

function mergeScan(win: PageWindow, scan: DelegationScan | undefined): number {
  const m = Reflect.get(win, KEY) as Marks | undefined;
  if (!m || m.doc !== win.document || !scan || !Array.isArray(m.delegates)) return 0;
  const found: PageElement[] = [];
  const ignored: Delegate[] = [];
  scanned(win, { n: scan.n, d: [], h: scan.h }, found, ignored, (el) => el);
  let marked = 0;
  for (const el of found) {
    if (!m.set.has(el) && leafy(win, el)) {
      m.set.add(el);
      marked++;
    }
  }
  return marked;
}

function leafy(win: PageWindow, el: PageElement): boolean {
  try {
    if (el.querySelector(CONTROLS)) return false;
    const r = el.getBoundingClientRect();
    return r.width * r.height < Math.max(1, win.innerWidth * win.innerHeight) * 0.5;
  } catch {
    return false;
  }
}

function scanned(
  win: PageWindow,
  scan: DelegationScan,
  out: PageElement[],
  delegates: Delegate[],
  hold: <T extends object>(el: T) => WeakRef<T> | T,
): void {
  const doc = win.document;
  let list: ArrayLike<PageElement>;
  try {
    list = doc.getElementsByTagName("*") as unknown as ArrayLike<PageElement>;
    if (list.length !== scan.n) return;
  } catch {
    return;
  }
  const at = (i: unknown, tag: unknown): PageElement | null => {
    if (typeof i !== "number" || i < 0 || i >= list.length) return null;
    const el = list[i];
    return el && (tag === undefined || String(el.localName) === tag) ? el : null;
  };
  for (const d of Array.isArray(scan.d) ? scan.d.slice(0, MAX_DELEGATES) : []) {
    if (!Array.isArray(d) || !Array.isArray(d[1])) continue;
    const sels = d[1].filter((s): s is string => typeof s === "string" && s.length > 0 && s.length <= 300).slice(0, 20);
    const el = d[0] === -1 ? doc : at(d[0], d[2]);
    if (el && sels.length)
      delegates.push({ el: hold(el as object) as Delegate["el"], sels, ...(d[3] === 1 ? { own: true as const } : {}) });
  }
  for (const h of Array.isArray(scan.h) ? scan.h.slice(0, 300) : []) {
    const el = Array.isArray(h) ? at(h[0], h[1]) : null;
    if (el) out.push(el);
  }
}

/**
 * Marks the delegating containers' items as they are now, at every marking and snapshot (items rendered anew get marks
 * without asking the browser). Bounded.
 */
export function markDelegated(win: PageWindow, marks?: Marks): number {
  const m = marks ?? (Reflect.get(win, KEY) as Marks | undefined);
  if (!m || m.doc !== win.document || !Array.isArray(m.delegates)) return 0;
  let marked = 0;
  for (const d of m.delegates) {
    const c =
      typeof WeakRef === "function" && d.el instanceof WeakRef ? d.el.deref() : (d.el as PageElement | PageDocument);
    if (!c) continue;
    try {
      if (d.sels.length === 0) {
        const el = c as PageElement;
        for (
          let k = el.firstElementChild, n = 0;
          k && n < MAX_ITEMS;
          k = (k as PageElement & { nextElementSibling: PageElement | null }).nextElementSibling, n++
        ) {
          if (!m.set.has(k) && leafy(win, k)) {
            m.set.add(k);
            marked++;
          }
        }
        continue;
      }
      let n = 0;
      for (const sel of d.sels) {
        let found: ArrayLike<PageElement>;
        try {
          found = (c as unknown as { querySelectorAll(s: string): ArrayLike<PageElement> }).querySelectorAll(sel);
        } catch {
          // jQuery's own selector extensions (":visible") are no CSS.
          continue;
        }
        for (let i = 0; i < found.length && n < MAX_ITEMS; i++, n++) {
          const el = found[i];
          if (el && !m.set.has(el) && leafy(win, el)) {
            m.set.add(el);
            marked++;
          }
        }
      }
    } catch {
      // A container gone strange: its items stay unmarked.
    }
  }
  return marked;
}

const addsElement = (records: Added[]): boolean => {
  for (const r of records)
    for (let i = 0; i < r.addedNodes.length; i++) if (r.addedNodes[i]?.nodeType === 1) return true;
  return false;
};

/** While no element is added anywhere in the document the marks hold; null where it cannot watch. */
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
          } catch {}
        }
        stack.push(c);
      }
    }
  }
  return watch;
}

/**
 * After elements were added: re-marks from the elements handed over last time; the broker keeps it only if the listener
 * list still holds.
 */
export function remarkListened(win: PageWindow): boolean {
  const marks = Reflect.get(win, KEY) as Marks | undefined;
  // No sources: marks an older build left (a document outlives a bp upgrade).
  if (!marks || marks.doc !== win.document || !Array.isArray(marks.sources)) return false;
  const weak = typeof WeakRef === "function";
  const els: PageElement[] = [];
  let dropAt = -1;
  marks.sources.forEach((s, i) => {
    if (i === marks.dropAt) dropAt = els.length;
    const el = weak && s instanceof WeakRef ? s.deref() : (s as PageElement);
    if (el) els.push(el);
  });
  const delegates = Array.isArray(marks.delegates) ? marks.delegates.filter((d) => d.sels.length > 0) : [];
  markListened(win, els, { dropAt: dropAt < 0 ? els.length : dropAt });
  const now = Reflect.get(win, KEY) as Marks;
  now.delegates.push(...delegates);
  markDelegated(win, now);
  return true;
}

export function listenedFresh(win: PageWindow): boolean {
  const marks = Reflect.get(win, KEY) as Marks | undefined;
  if (!marks || marks.doc !== win.document || marks.dirty || !marks.watch) return false;
  if (addsElement(marks.watch.takeRecords())) {
    marks.dirty = true;
    marks.watch.disconnect();
    return false;
  }
  return true;
}
