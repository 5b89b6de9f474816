/**
 * Clobber-proof DOM access for the inspect page scripts: the page cannot touch our world's built-ins but can clobber
 * DOM members by named properties (`<img name=querySelector>`), so they are read through the prototypes' own accessors.
 */
import type { PageDocument, PageElement, PageNode, PageRect, PageStyle, PageWindow } from "../types.ts";

export interface PageRange {
  setStart(node: PageNode, offset: number): void;
  setEnd(node: PageNode, offset: number): void;
  getBoundingClientRect(): PageRect;
}

/** DOM members read through the prototypes; every function takes the node or document first. */
export interface InspectDom {
  nodeType(n: unknown): number;
  firstChild(n: unknown): PageNode | null;
  nextSibling(n: unknown): PageNode | null;
  parentNode(n: unknown): PageNode | null;
  ownerDoc(n: unknown): PageDocument;
  rootNode(n: unknown): PageNode;
  localName(n: unknown): string;
  shadowRoot(n: unknown): PageNode | null;
  getAttr(n: unknown, name: string): string | null;
  matches(n: unknown, selector: string): boolean;
  rect(n: unknown): PageRect;
  scrollIntoView(n: unknown, opts: object): void;
  textData(n: unknown): string;
  qs(d: unknown, selector: string): PageElement | null;
  docById(d: unknown, id: string): PageElement | null;
  fragById(f: unknown, id: string): PageElement | null;
  createRange(d: unknown): PageRange;
  title(d: unknown): string;
  url(d: unknown): string;
  body(d: unknown): PageElement | null;
  root(d: unknown): PageElement | null;
  view(d: unknown): PageWindow | null;
  /** Computed style through the element's own document's window (cached per document). */
  styleOf(el: PageElement): PageStyle | null;
}

export function inspectDom(win: PageWindow): InspectDom {
  type Fn = (...a: unknown[]) => unknown;
  const P = (name: string): object | null =>
    (win as unknown as Record<string, { prototype?: object } | undefined>)[name]?.prototype ?? null;
  // A getter from the prototype chain (never the instance), or plain property access as a fallback.
  const acc = <T>(proto: object | null, name: string): ((o: unknown) => T) => {
    let d: PropertyDescriptor | undefined;
    for (let p = proto; p && !d; p = Object.getPrototypeOf(p) as object | null)
      d = Object.getOwnPropertyDescriptor(p, name);
    const g = d && d.get;
    return g ? (o) => g.call(o) as T : (o) => (o as Record<string, T>)[name] as T;
  };
  const meth = <T>(proto: object | null, name: string): ((o: unknown, ...a: unknown[]) => T) => {
    const f = proto ? (proto as Record<string, unknown>)[name] : undefined;
    return typeof f === "function"
      ? (o, ...a) => (f as Fn).apply(o, a) as T
      : (o, ...a) => ((o as Record<string, Fn>)[name] as Fn)(...a) as T;
  };
  const NodeP = P("Node");
  const ElP = P("Element");
  const DocP = P("Document");
  const ownerDoc = acc<PageDocument>(NodeP, "ownerDocument");
  const view = acc<PageWindow | null>(DocP, "defaultView");
  const views = new Map<PageDocument, PageWindow | null>();
  return {
    nodeType: acc<number>(NodeP, "nodeType"),
    firstChild: acc<PageNode | null>(NodeP, "firstChild"),
    nextSibling: acc<PageNode | null>(NodeP, "nextSibling"),
    parentNode: acc<PageNode | null>(NodeP, "parentNode"),
    ownerDoc,
    rootNode: meth<PageNode>(NodeP, "getRootNode"),
    localName: acc<string>(ElP, "localName"),
    shadowRoot: acc<PageNode | null>(ElP, "shadowRoot"),
    getAttr: meth<string | null>(ElP, "getAttribute"),
    matches: meth<boolean>(ElP, "matches"),
    rect: meth<PageRect>(ElP, "getBoundingClientRect"),
    scrollIntoView: meth<void>(ElP, "scrollIntoView"),
    textData: acc<string>(P("CharacterData"), "data"),
    qs: meth<PageElement | null>(DocP, "querySelector"),
    docById: meth<PageElement | null>(DocP, "getElementById"),
    fragById: meth<PageElement | null>(P("DocumentFragment"), "getElementById"),
    createRange: meth<PageRange>(DocP, "createRange"),
    title: acc<string>(DocP, "title"),
    url: acc<string>(DocP, "URL"),
    body: acc<PageElement | null>(DocP, "body"),
    root: acc<PageElement | null>(DocP, "documentElement"),
    view,
    styleOf(el: PageElement): PageStyle | null {
      const d = ownerDoc(el);
      let v = views.get(d);
      if (v === undefined) {
        v = view(d);
        views.set(d, v);
      }
      return v ? v.getComputedStyle(el) : null;
    },
  };
}

/** Lower-case local name; a form whose `localName` is clobbered still reads as a form. */
export function tagOf(dom: InspectDom, el: unknown): string {
  return str(dom.localName(el)).toLowerCase() || "form";
}

export function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}

export function num(v: unknown): number {
  return typeof v === "number" && Number.isFinite(v) ? v : 0;
}

export function px(v: unknown): number {
  return num(parseFloat(str(v)));
}

export function cut(s: string, n: number): string {
  return s.length <= n ? s : s.slice(0, n);
}

/** Like `cut`, but never leaves half a surrogate pair at the end. */
export function cutText(s: string, n: number): string {
  if (s.length <= n) return s;
  const c = s.charCodeAt(n - 1);
  return s.slice(0, c >= 0xd800 && c <= 0xdbff ? n - 1 : n);
}

export function safe<T>(f: () => T, d: T): T {
  try {
    return f();
  } catch {
    return d;
  }
}
