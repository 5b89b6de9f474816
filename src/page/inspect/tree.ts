/**
 * Composed-tree and frame helpers of the inspect scripts: same-origin iframes are walked in place, cross-origin ones
 * become placeholders the broker walks through their own sessions.
 */
import type { PageDocument, PageElement, PageNode, PageWindow } from "../types.ts";
import { type InspectDom, num, px, safe } from "./dom.ts";

export interface FramePlaceholder {
  slot: number;
  /** Where its content belongs: characters (read) or matches (search, find) before it. */
  at: number;
  /** Top-left of its content box in this frame's viewport px (0 without layout). */
  x: number;
  y: number;
  /** search: the iframe lies inside the selector's scope, so all of its text is searched. */
  scoped?: boolean;
}

export interface FrameState {
  hosts: Map<PageDocument, PageElement>;
  offsets: Map<PageDocument, { x: number; y: number }>;
  cross: PageElement[];
  found: FramePlaceholder[];
  /** Hosts of same-origin frames that hold a reported match (the broker names their frames). */
  same: PageElement[];
}

/**
 * Where a match sits: its same-origin frame (a slot in `fs.same`) and the ref of it or its nearest ancestor with one.
 */
export interface MatchPlace {
  host?: number;
  ref?: number;
  /** The ref is an ancestor's, the control the match is inside: never to be taken as the match's own. */
  container?: true;
}

export function frameState(): FrameState {
  return { hosts: new Map(), offsets: new Map(), cross: [], found: [], same: [] };
}

export function matchPlace(dom: InspectDom, fs: FrameState, win: PageWindow, el: PageNode | null): MatchPlace {
  const out: MatchPlace = {};
  if (!el) return out;
  const d = dom.ownerDoc(el as PageElement);
  if (d && d !== win.document) {
    const h = fs.hosts.get(d);
    if (h) {
      let i = fs.same.indexOf(h);
      if (i < 0) {
        i = fs.same.length;
        fs.same.push(h);
      }
      out.host = i;
    }
  }
  const reg = safe(
    () =>
      Reflect.get(win, Symbol.for("browser-pilot.ref-registry.v1")) as
        | { doc: PageDocument; byEl: WeakMap<PageNode, number> }
        | undefined,
    undefined,
  );
  if (reg && reg.doc === win.document) {
    let x: PageNode | null = el;
    for (let i = 0; x && i < 8; i++) {
      const r = reg.byEl.get(x);
      if (r !== undefined) {
        out.ref = r;
        if (i > 0) out.container = true;
        break;
      }
      x = dom.parentNode(x);
      if (x && dom.nodeType(x) === 11) x = (x as unknown as { host: PageNode }).host;
    }
  }
  return out;
}

/** The document of a same-origin frame, or null; an unreachable frame with a window becomes a placeholder at `at`. */
export function enterFrame(fs: FrameState, el: PageElement, at: number): PageDocument | null {
  const cd = safe(() => (el.contentDocument as PageDocument | null | undefined) || null, null);
  if (cd) {
    fs.hosts.set(cd, el);
    return cd;
  }
  if (safe(() => !!(el as unknown as { contentWindow?: unknown }).contentWindow, false)) {
    fs.found.push({ slot: fs.cross.length, at, x: 0, y: 0 });
    fs.cross.push(el);
  }
  return null;
}

export function contentOrigin(
  dom: InspectDom,
  el: PageElement,
  up: { x: number; y: number },
): { x: number; y: number } {
  const r = dom.rect(el);
  const st = dom.styleOf(el);
  return {
    x: up.x + num(r.left) + num(el.clientLeft) + (st ? px(st.paddingLeft) : 0),
    y: up.y + num(r.top) + num(el.clientTop) + (st ? px(st.paddingTop) : 0),
  };
}

export function docOffset(dom: InspectDom, fs: FrameState, d: PageDocument, depth: number): { x: number; y: number } {
  const host = fs.hosts.get(d);
  if (!host || depth > 32) return { x: 0, y: 0 };
  let o = fs.offsets.get(d);
  if (o) return o;
  o = contentOrigin(dom, host, docOffset(dom, fs, dom.ownerDoc(host), depth + 1));
  fs.offsets.set(d, o);
  return o;
}

/** Measures the placeholders and leaves the iframe elements on our window for the broker. */
export function finishFrames(dom: InspectDom, fs: FrameState, win: PageWindow, layout: boolean): FramePlaceholder[] {
  for (const f of fs.found) {
    if (!layout) break;
    const el = fs.cross[f.slot] as PageElement;
    const o = safe(() => contentOrigin(dom, el, docOffset(dom, fs, dom.ownerDoc(el), 0)), { x: 0, y: 0 });
    f.x = Math.round(o.x);
    f.y = Math.round(o.y);
  }
  const KEY = Symbol.for("browser-pilot.inspect-frames.v1");
  safe(
    () => Object.defineProperty(win, KEY, { value: fs.cross, configurable: true, enumerable: false, writable: true }),
    null,
  );
  const HOSTS = Symbol.for("browser-pilot.inspect-hosts.v1");
  safe(
    () => Object.defineProperty(win, HOSTS, { value: fs.same, configurable: true, enumerable: false, writable: true }),
    null,
  );
  return fs.found;
}

/** Pushes a node's composed-tree children in reverse, so they pop in document order. */
export function pushKids(
  dom: InspectDom,
  n: PageNode,
  t: number,
  tag: string,
  sN: PageNode[],
  sF: number[],
  flags: number,
): void {
  let children: ArrayLike<PageNode> | null = null;
  let first: PageNode | null = null;
  if (t === 11) first = dom.firstChild(n);
  else {
    const el = n as PageElement;
    const sr = dom.shadowRoot(el);
    if (sr) first = dom.firstChild(sr);
    else if (tag === "slot" && typeof el.assignedNodes === "function") {
      const assigned = el.assignedNodes({ flatten: true });
      if (assigned && assigned.length > 0) children = assigned;
      else first = dom.firstChild(el);
    } else first = dom.firstChild(el);
  }
  const kids: PageNode[] = [];
  if (children) for (let i = 0; i < children.length; i++) kids.push(children[i] as PageNode);
  else for (let c = first; c; c = dom.nextSibling(c)) kids.push(c);
  for (let i = kids.length - 1; i >= 0; i--) {
    sN.push(kids[i] as PageNode);
    sF.push(flags);
  }
}
