/**
 * Page-side readable text for `bp read`.
 *
 * Like `pageSnapshot`, `pageRead` is injected by its own source text (`READ_SOURCE`) into our
 * isolated world, so it must stay self-contained: no imports at run time (type imports are
 * erased), no module variables, every helper declared inside.
 *
 * The page cannot touch the isolated world's built-ins, but it can still clobber DOM members
 * through named properties (`<img name=querySelector>` on the document, `<input name=childNodes>`
 * on a form). So DOM members are read through the prototypes' own accessors, and every element is
 * read inside try/catch: a hostile node loses its own text, never the whole read.
 *
 * One linear walk of the composed tree (open shadow roots, slots, same-origin iframes in place),
 * streaming collapsed text into a bounded buffer while counting the full length.
 */
import type { PageDocument, PageElement, PageNode, PageStyle, PageWindow } from "./types.ts";

export interface ReadOptions {
  /** CSS selector of the root; default main → article → [role=main] → body. */
  selector?: string;
  /** Characters returned (default 3000, max 100,000). */
  limit?: number;
  /** false: no layout engine (happy-dom); the `hidden` attribute is honoured directly. */
  layout?: boolean;
  /** Visited nodes before the walk stops (truncated). Default 400,000. */
  maxNodes?: number;
}

export interface ReadResult {
  title: string;
  url: string;
  text: string;
  /** Characters of readable text found (a lower bound when the walk hit its work limit). */
  length: number;
  truncated: boolean;
}

/** A selector problem reported by any inspect script (the broker turns it into invalid_argument). */
export interface InspectError {
  error: "invalid_selector" | "no_match";
  message: string;
}

export function pageRead(win: PageWindow, opts: ReadOptions): ReadResult | InspectError {
  const LIMIT = Math.max(1, Math.min(100_000, Math.floor(Number(opts.limit) || 3000)));
  const LAYOUT = opts.layout !== false;
  const MAX_NODES = Math.max(1, Math.floor(Number(opts.maxNodes) || 400_000));

  // ---- clobber-proof DOM access ----------------------------------------------------------------
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
  const NodeP = P("Node");
  const ElP = P("Element");
  const DocP = P("Document");
  const nodeType = acc<number>(NodeP, "nodeType");
  const firstChild = acc<PageNode | null>(NodeP, "firstChild");
  const nextSibling = acc<PageNode | null>(NodeP, "nextSibling");
  const ownerDoc = acc<PageDocument>(NodeP, "ownerDocument");
  const localName = acc<string>(ElP, "localName");
  const shadowRootOf = acc<PageNode | null>(ElP, "shadowRoot");
  const getAttr = meth<string | null>(ElP, "getAttribute");
  const textData = acc<string>(P("CharacterData"), "data");
  const qs = meth<PageElement | null>(DocP, "querySelector");
  const docTitle = acc<string>(DocP, "title");
  const docUrl = acc<string>(DocP, "URL");
  const docBody = acc<PageElement | null>(DocP, "body");
  const docRoot = acc<PageElement | null>(DocP, "documentElement");
  const docView = acc<PageWindow | null>(DocP, "defaultView");
  const str = (v: unknown): string => (typeof v === "string" ? v : "");
  const cut = (s: string, n: number): string => {
    if (s.length <= n) return s;
    const c = s.charCodeAt(n - 1);
    return s.slice(0, c >= 0xd800 && c <= 0xdbff ? n - 1 : n);
  };

  const doc = win.document;
  let title = "";
  let url = "";
  try {
    title = cut(str(docTitle(doc)), 500);
    url = cut(str(docUrl(doc)), 2048);
  } catch {
    /* keep empty */
  }

  // ---- root -------------------------------------------------------------------------------------
  let root: PageElement | null = null;
  if (opts.selector) {
    try {
      root = qs(doc, opts.selector);
    } catch {
      return { error: "invalid_selector", message: "Invalid CSS selector." };
    }
    if (!root) return { error: "no_match", message: "Selector did not match." };
  } else {
    for (const s of ["main", "article", "[role=main]"]) {
      root = root || qs(doc, s);
    }
    root = root || docBody(doc) || docRoot(doc);
  }
  if (!root) return { title, url, text: "", length: 0, truncated: false };

  // ---- bounded text sink --------------------------------------------------------------------------
  let out = "";
  let total = 0;
  let pend = 0; // 0 nothing, 1 space, 2 newline before the next text
  const write = (s: string): void => {
    total += s.length;
    if (out.length <= LIMIT) out += s.length > LIMIT + 1 ? s.slice(0, LIMIT + 1) : s;
  };
  const emit = (s: string): void => {
    if (total > 0 && pend) write(pend === 2 ? "\n" : " ");
    pend = 0;
    write(s);
  };
  const sep = (k: number): void => {
    if (k > pend) pend = k;
  };

  const SKIP: Record<string, 1> = {
    script: 1, style: 1, noscript: 1, nav: 1, footer: 1, aside: 1, svg: 1, template: 1, head: 1,
    title: 1, meta: 1, link: 1, select: 1, datalist: 1, textarea: 1, input: 1, object: 1, embed: 1,
    canvas: 1, audio: 1, video: 1,
  };
  const SKIP_ROLES: Record<string, 1> = { navigation: 1, banner: 1, contentinfo: 1 };
  const views = new Map<PageDocument, PageWindow | null>();
  const styleOf = (el: PageElement): (PageStyle & { whiteSpace?: string }) | null => {
    const d = ownerDoc(el);
    let v = views.get(d);
    if (v === undefined) {
      v = docView(d);
      views.set(d, v);
    }
    return v ? v.getComputedStyle(el) : null;
  };

  // ---- the walk (explicit stack; flags: 1 visible, 2 pre, 4 exit-block, 8 exit-cell, 16 root) ----
  const sN: PageNode[] = [root];
  const sF: number[] = [1 | 16];
  let visited = 0;
  let workHit = false;
  while (sN.length > 0) {
    const n = sN.pop() as PageNode;
    const f = sF.pop() as number;
    if (f & 4) {
      sep(2);
      continue;
    }
    if (f & 8) {
      sep(1);
      continue;
    }
    if (++visited > MAX_NODES) {
      workHit = true;
      break;
    }
    try {
      const t = nodeType(n);
      if (t === 3) {
        if (!(f & 1)) continue;
        const data = str(textData(n));
        if (f & 2) {
          const lines = data.replace(/\r\n?/g, "\n").split("\n");
          for (let i = 0; i < lines.length; i++) {
            if (i > 0) sep(2);
            const line = lines[i] as string;
            if (line.trim()) emit(line.replace(/\s+$/, ""));
          }
          continue;
        }
        const c = data.replace(/\s+/g, " ");
        if (!c) continue;
        if (c.charCodeAt(0) === 32) sep(1);
        const core = c.trim();
        if (core) emit(core);
        if (c.length > 1 && c.charCodeAt(c.length - 1) === 32) sep(1);
        continue;
      }
      if (t !== 1 && t !== 11) continue;
      let children: ArrayLike<PageNode> | null = null;
      let first: PageNode | null = null;
      let flags = f & 3;
      if (t === 11) first = firstChild(n);
      else {
        const el = n as PageElement;
        const tag = str(localName(el)).toLowerCase() || "form";
        if (!(f & 16)) {
          if (SKIP[tag]) continue;
          const role = str(getAttr(el, "role")).trim().toLowerCase().split(/\s+/)[0] || "";
          if (SKIP_ROLES[role]) continue;
        }
        if (getAttr(el, "aria-hidden") === "true") continue;
        if (!LAYOUT && getAttr(el, "hidden") !== null) continue;
        const st = styleOf(el);
        const display = st ? str(st.display) : "";
        if (display === "none") continue;
        const visibility = st ? str(st.visibility) : "";
        if (visibility) flags = visibility === "visible" ? flags | 1 : flags & ~1;
        const ws = st ? str(st.whiteSpace) : "";
        if (ws) flags = ws.startsWith("pre") || ws === "break-spaces" ? flags | 2 : flags & ~2;
        else if (tag === "pre") flags |= 2;
        if (tag === "br") {
          if (flags & 1) sep(2);
          continue;
        }
        // Cells and inline boxes (inline-block buttons, badges) are words apart; blocks are lines apart.
        const cell = display === "table-cell" || display.startsWith("inline-") || tag === "td" || tag === "th";
        const inline = !display || display === "inline" || display === "contents" || display.startsWith("ruby");
        const exit = cell ? 8 : inline ? 0 : 4;
        if (exit) {
          sep(exit === 4 ? 2 : 1);
          sN.push(n);
          sF.push(exit);
        }
        if (tag === "iframe" || tag === "frame") {
          let cd: PageDocument | null = null;
          try {
            cd = (el.contentDocument as PageDocument | null | undefined) || null;
          } catch {
            cd = null;
          }
          const inner = cd ? docBody(cd) || docRoot(cd) : null;
          if (inner) {
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
  const text = cut(out, LIMIT);
  return { title, url, text, length: total, truncated: workHit || total > LIMIT };
}

export const READ_SOURCE = `(${pageRead.toString()})`;
