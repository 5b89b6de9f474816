/**
 * Page-side text search for `bp search`.
 *
 * Injected by its own source text (`SEARCH_SOURCE`), so it is self-contained like
 * `pageSnapshot`; DOM members are read through prototype accessors (see read-script.ts).
 *
 * Linear time: one walk of the composed tree (open shadow roots, slots, same-origin iframes)
 * builds one whitespace-collapsed string of the visible text, with element boundaries as spaces;
 * a KMP scan finds every match (O(text + query)); only the first `limit` matches are mapped back
 * to text nodes for a Range box in top-level viewport px (iframe offsets added).
 */
import type { PageDocument, PageElement, PageNode, PageRect, PageStyle, PageWindow } from "./types.ts";
import type { InspectError } from "./read-script.ts";

export interface SearchOptions {
  query: string;
  selector?: string;
  caseSensitive?: boolean;
  wholeWord?: boolean;
  /** Matches returned (default 20, max 200); all are counted. */
  limit?: number;
  /** false: no layout engine (happy-dom): no boxes, the `hidden` attribute is honoured directly. */
  layout?: boolean;
  maxNodes?: number;
}

/** `visible`: the match has a non-empty box that intersects the viewport. Boxes in viewport px. */
export interface SearchMatch { index: number; text: string; context: string; tagName: string; visible: boolean; x: number; y: number; width: number; height: number }

export interface SearchResult { title: string; url: string; totalMatches: number; matches: SearchMatch[]; truncated: boolean }

export function pageSearch(win: PageWindow, opts: SearchOptions): SearchResult | InspectError {
  const LIMIT = Math.max(1, Math.min(200, Math.floor(Number(opts.limit) || 20)));
  const LAYOUT = opts.layout !== false;
  const MAX_NODES = Math.max(1, Math.floor(Number(opts.maxNodes) || 400_000));
  type Fn = (...a: unknown[]) => unknown;
  const P = (name: string): object | null => (win as unknown as Record<string, { prototype?: object } | undefined>)[name]?.prototype ?? null;
  // A getter from the prototype chain (never the instance), or plain property access as a fallback.
  const acc = <T>(proto: object | null, name: string): ((o: unknown) => T) => {
    let d: PropertyDescriptor | undefined;
    for (let p = proto; p && !d; p = Object.getPrototypeOf(p) as object | null) d = Object.getOwnPropertyDescriptor(p, name);
    const g = d && d.get;
    return g ? (o) => g.call(o) as T : (o) => (o as Record<string, T>)[name] as T;
  };
  const meth = <T>(proto: object | null, name: string): ((o: unknown, ...a: unknown[]) => T) => {
    const f = proto ? (proto as Record<string, unknown>)[name] : undefined;
    return typeof f === "function" ? (o, ...a) => (f as Fn).apply(o, a) as T : (o, ...a) => ((o as Record<string, Fn>)[name] as Fn)(...a) as T;
  };
  const [NodeP, ElP, DocP] = [P("Node"), P("Element"), P("Document")];
  const nodeType = acc<number>(NodeP, "nodeType");
  const firstChild = acc<PageNode | null>(NodeP, "firstChild");
  const nextSibling = acc<PageNode | null>(NodeP, "nextSibling");
  const parentNode = acc<PageNode | null>(NodeP, "parentNode");
  const ownerDoc = acc<PageDocument>(NodeP, "ownerDocument");
  const rootNode = meth<PageNode>(NodeP, "getRootNode");
  const localName = acc<string>(ElP, "localName");
  const shadowRootOf = acc<PageNode | null>(ElP, "shadowRoot");
  const getAttr = meth<string | null>(ElP, "getAttribute");
  const matches = meth<boolean>(ElP, "matches");
  const rectOf = meth<PageRect>(ElP, "getBoundingClientRect");
  const textData = acc<string>(P("CharacterData"), "data");
  const qs = meth<PageElement | null>(DocP, "querySelector");
  const newRange = meth<{ setStart: Fn; setEnd: Fn; getBoundingClientRect: () => PageRect }>(DocP, "createRange");
  const docTitle = acc<string>(DocP, "title");
  const docUrl = acc<string>(DocP, "URL");
  const docRoot = acc<PageElement | null>(DocP, "documentElement");
  const docView = acc<PageWindow | null>(DocP, "defaultView");
  const str = (v: unknown): string => (typeof v === "string" ? v : "");
  const cut = (s: string, n: number): string => (s.length <= n ? s : s.slice(0, n));
  const num = (v: unknown): number => (typeof v === "number" && isFinite(v) ? v : 0);
  const px = (v: unknown): number => num(parseFloat(str(v)));

  const doc = win.document;
  const safe = <T>(f: () => T, d: T): T => {
    try {
      return f();
    } catch {
      return d;
    }
  };
  const title = safe(() => cut(str(docTitle(doc)), 500), "");
  const url = safe(() => cut(str(docUrl(doc)), 2048), "");
  const needleRaw = str(opts.query).replace(/\s+/g, " ").trim().slice(0, 500);
  if (!needleRaw) return { title, url, totalMatches: 0, matches: [], truncated: false };
  const sel = opts.selector || "";
  if (sel && !safe(() => (qs(doc, sel), true), false)) return { error: "invalid_selector", message: "Invalid CSS selector." };

  // ---- collect visible text into one collapsed string --------------------------------------------
  const SKIP: Record<string, 1> = {
    script: 1, style: 1, noscript: 1, template: 1, head: 1, title: 1, meta: 1, link: 1, select: 1,
    datalist: 1, textarea: 1, input: 1, object: 1, embed: 1,
  };
  // Built as parts: reading the last character of a growing string would flatten it every time.
  const parts: string[] = [];
  let len = 0;
  let endSpace = true;
  const segNode: PageNode[] = [];
  const segStart: number[] = [];
  const segLead: boolean[] = [];
  const frameHost = new Map<PageDocument, PageElement>();
  const views = new Map<PageDocument, PageWindow | null>();
  const viewOf = (d: PageDocument): PageWindow | null => {
    if (!views.has(d)) views.set(d, docView(d));
    return views.get(d) ?? null;
  };
  const space = (): void => {
    if (len > 0 && !endSpace) {
      parts.push(" ");
      len++;
      endSpace = true;
    }
  };
  // flags: 1 visible, 2 in scope, 4 exit (boundary)
  const sN: PageNode[] = [];
  const sF: number[] = [];
  const top = docRoot(doc);
  if (top) sN.push(top), sF.push(sel ? 1 : 3);
  let visited = 0;
  let workHit = false;
  let scoped = !sel;
  while (sN.length > 0) {
    const n = sN.pop() as PageNode;
    const f = sF.pop() as number;
    if (f & 4) {
      space();
      continue;
    }
    if (++visited > MAX_NODES) {
      workHit = true;
      break;
    }
    try {
      const t = nodeType(n);
      if (t === 3) {
        if ((f & 3) !== 3) continue;
        let c = str(textData(n)).replace(/\s+/g, " ");
        const lead = endSpace;
        if (lead && c.charCodeAt(0) === 32) c = c.slice(1);
        if (!c) continue;
        segNode.push(n);
        segStart.push(len);
        segLead.push(lead);
        parts.push(c);
        len += c.length;
        endSpace = c.charCodeAt(c.length - 1) === 32;
        continue;
      }
      if (t !== 1 && t !== 11) continue;
      let flags = f;
      let children: ArrayLike<PageNode> | null = null;
      let first: PageNode | null = null;
      if (t === 11) first = firstChild(n);
      else {
        const el = n as PageElement;
        const tag = str(localName(el)).toLowerCase() || "form";
        if (SKIP[tag]) continue;
        if (!LAYOUT && getAttr(el, "hidden") !== null) continue;
        const v = viewOf(ownerDoc(el));
        const st: PageStyle | null = v ? v.getComputedStyle(el) : null;
        const display = st ? str(st.display) : "";
        if (display === "none") continue;
        const visibility = st ? str(st.visibility) : "";
        if (visibility) flags = visibility === "visible" ? flags | 1 : flags & ~1;
        if (!(flags & 2) && matches(el, sel)) {
          flags |= 2;
          scoped = true;
        }
        if (display && display !== "inline" && display !== "contents" && !display.startsWith("ruby")) {
          space();
          sN.push(n);
          sF.push(4);
        }
        if (tag === "iframe" || tag === "frame") {
          const cd = safe(() => (el.contentDocument as PageDocument | null | undefined) || null, null);
          const inner = cd ? docRoot(cd) : null;
          if (cd && inner) {
            frameHost.set(cd, el);
            sN.push(inner);
            sF.push(flags | 1);
          }
          continue;
        }
        const sr = shadowRootOf(el);
        if (sr) first = firstChild(sr);
        else if (tag === "slot" && typeof el.assignedNodes === "function") {
          const assigned = el.assignedNodes({ flatten: true });
          if (assigned && assigned.length > 0) children = assigned;
          else first = firstChild(el);
        } else first = firstChild(el);
      }
      const kids: PageNode[] = [];
      if (children) for (let i = 0; i < children.length; i++) kids.push(children[i] as PageNode);
      else for (let c = first; c; c = nextSibling(c)) kids.push(c);
      for (let i = kids.length - 1; i >= 0; i--) {
        sN.push(kids[i] as PageNode);
        sF.push(flags);
      }
    } catch {
      /* a hostile node loses only its own text */
    }
  }
  if (!scoped) return { error: "no_match", message: "Selector did not match." };
  const hay = parts.join("");

  // ---- KMP scan -----------------------------------------------------------------------------------
  const fold = (s: string): string => {
    if (opts.caseSensitive) return s;
    const l = s.toLowerCase();
    if (l.length === s.length) return l;
    let o = "";
    for (let i = 0; i < s.length; i++) {
      const ch = s.charAt(i);
      const lc = ch.toLowerCase();
      o += lc.length === 1 ? lc : ch;
    }
    return o;
  };
  const H = fold(hay);
  const N = fold(needleRaw);
  const M = N.length;
  const fail = new Int32Array(M);
  for (let i = 1, k = 0; i < M; i++) {
    while (k > 0 && N.charCodeAt(i) !== N.charCodeAt(k)) k = fail[k - 1] as number;
    if (N.charCodeAt(i) === N.charCodeAt(k)) k++;
    fail[i] = k;
  }
  const WORD = /[\p{L}\p{N}_]/u;
  const isWord = (i: number): boolean => i >= 0 && i < hay.length && WORD.test(hay.charAt(i));
  const found: number[] = [];
  let totalMatches = 0;
  for (let i = 0, k = 0; i < H.length; i++) {
    while (k > 0 && H.charCodeAt(i) !== N.charCodeAt(k)) k = fail[k - 1] as number;
    if (H.charCodeAt(i) === N.charCodeAt(k)) k++;
    if (k < M) continue;
    const s = i - M + 1;
    // A rejected whole-word candidate may overlap the next match; an accepted one may not.
    if (opts.wholeWord && (isWord(s - 1) || isWord(i + 1))) k = fail[k - 1] as number;
    else {
      if (totalMatches++ < LIMIT) found.push(s);
      k = 0;
    }
  }

  // ---- map the reported matches back to nodes and boxes -------------------------------------------
  const segOf = (pos: number): number => {
    let lo = 0;
    let hi = segStart.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((segStart[mid] as number) <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  const maps = new Map<number, Int32Array>();
  const nodeOffset = (seg: number, pos: number): number => {
    let m = maps.get(seg);
    if (!m) {
      const data = str(textData(segNode[seg]));
      m = new Int32Array(data.length + 1);
      let j = 0;
      let prevSpace = segLead[seg] as boolean;
      for (let i = 0; i < data.length; i++) {
        const ws = /\s/.test(data.charAt(i));
        if (ws && prevSpace) continue;
        m[j++] = i;
        prevSpace = ws;
      }
      m[j] = data.length;
      maps.set(seg, m);
    }
    return m[Math.min(pos - (segStart[seg] as number), m.length - 1)] as number;
  };
  const offsets = new Map<PageDocument, { x: number; y: number }>();
  const offsetOf = (d: PageDocument, depth: number): { x: number; y: number } => {
    const host = frameHost.get(d);
    if (!host || depth > 32) return { x: 0, y: 0 };
    let o = offsets.get(d);
    if (o) return o;
    const up = offsetOf(ownerDoc(host), depth + 1);
    const r = rectOf(host);
    const v = viewOf(ownerDoc(host));
    const st = v ? v.getComputedStyle(host) : null;
    o = { x: up.x + num(r.left) + num(host.clientLeft) + (st ? px(st.paddingLeft) : 0), y: up.y + num(r.top) + num(host.clientTop) + (st ? px(st.paddingTop) : 0) };
    offsets.set(d, o);
    return o;
  };
  const vw = num(win.innerWidth);
  const vh = num(win.innerHeight);
  const side = Math.min(120, Math.floor((500 - M) / 2));
  const out: SearchMatch[] = [];
  for (const s of found) {
    const e = s + M;
    const context = hay.slice(Math.max(0, s - side), Math.min(hay.length, e + side)).trim();
    const m: SearchMatch = { index: out.length + 1, text: hay.slice(s, e), context, tagName: "", visible: !LAYOUT, x: 0, y: 0, width: 0, height: 0 };
    try {
      const a = segOf(s);
      const b = segOf(e - 1);
      const an = segNode[a] as PageNode;
      const bn = segNode[b] as PageNode;
      let parent = parentNode(an);
      if (parent && nodeType(parent) === 11) parent = (parent as unknown as { host: PageNode }).host;
      m.tagName = cut(str(parent ? localName(parent) : "").toLowerCase(), 100);
      if (LAYOUT) {
        const d = ownerDoc(an);
        const r = newRange(d);
        r.setStart(an, nodeOffset(a, s));
        if (rootNode(an) === rootNode(bn)) r.setEnd(bn, nodeOffset(b, e - 1) + 1);
        else r.setEnd(an, str(textData(an)).length);
        const box = r.getBoundingClientRect();
        const o = offsetOf(d, 0);
        m.x = Math.round(num(box.left) + o.x);
        m.y = Math.round(num(box.top) + o.y);
        m.width = Math.round(num(box.width));
        m.height = Math.round(num(box.height));
        m.visible = m.width > 0 && m.height > 0 && m.x + m.width > 0 && m.y + m.height > 0 && m.x < vw && m.y < vh;
      }
    } catch {
      /* keep the match without a box */
    }
    out.push(m);
  }
  return { title, url, totalMatches, matches: out, truncated: workHit || totalMatches > out.length };
}

export const SEARCH_SOURCE = `(${pageSearch.toString()})`;
