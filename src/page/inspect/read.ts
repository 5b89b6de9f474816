/**
 * Page-side readable text for `bp read` (page bundle, our isolated world). DOM members are read through prototype
 * accessors (`inspectDom`: a page can clobber instance members) and each element inside try/catch. One linear walk of
 * the composed tree streams collapsed text into a bounded buffer while counting the full length; a cross-origin iframe
 * leaves a placeholder the broker fills from the frame's own session.
 */
import { cutText, inspectDom, str, tagOf } from "./dom.ts";
import { enterFrame, finishFrames, frameState, type FramePlaceholder, pushKids } from "./tree.ts";
import type { PageElement, PageNode, PageStyle, PageWindow } from "../types.ts";

export interface ReadOptions {
  /** CSS selector of the root; default main → article → [role=main] → body. */
  selector?: string;
  /** Characters returned (default 3000, max 100,000). */
  limit?: number;
  /** false: no layout engine (happy-dom); the `hidden` attribute is honoured directly. */
  layout?: boolean;
  /** Visited nodes before the walk stops (truncated). Default 400,000. */
  maxNodes?: number;
  /** Read the whole document (body), as inside an iframe; no selector, no main-content guess. */
  whole?: boolean;
}

export interface ReadResult {
  title: string;
  url: string;
  text: string;
  /** Characters of readable text found (a lower bound when the walk hit its work limit). */
  length: number;
  truncated: boolean;
  /** Cross-origin iframes; `at` counts characters of `text`'s full stream before each. */
  frames: FramePlaceholder[];
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

  const dom = inspectDom(win);
  const fs = frameState();
  const doc = win.document;
  let title = "";
  let url = "";
  try {
    title = cutText(str(dom.title(doc)), 500);
    url = cutText(str(dom.url(doc)), 2048);
  } catch {
    /* keep empty */
  }

  // ---- root ----
  let root: PageElement | null = null;
  if (opts.whole) root = dom.body(doc) || dom.root(doc);
  else if (opts.selector) {
    try {
      root = dom.qs(doc, opts.selector);
    } catch {
      return { error: "invalid_selector", message: "Invalid CSS selector." };
    }
    if (!root) return { error: "no_match", message: "Selector did not match." };
  } else {
    for (const s of ["main", "article", "[role=main]"]) {
      root = root || dom.qs(doc, s);
    }
    root = root || dom.body(doc) || dom.root(doc);
  }
  if (!root) return { title, url, text: "", length: 0, truncated: false, frames: finishFrames(dom, fs, win, false) };

  // ---- bounded text sink ----
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
    script: 1,
    style: 1,
    noscript: 1,
    nav: 1,
    footer: 1,
    aside: 1,
    svg: 1,
    template: 1,
    head: 1,
    title: 1,
    meta: 1,
    link: 1,
    select: 1,
    datalist: 1,
    textarea: 1,
    input: 1,
    object: 1,
    embed: 1,
    canvas: 1,
    audio: 1,
    video: 1,
  };
  const SKIP_ROLES: Record<string, 1> = { navigation: 1, banner: 1, contentinfo: 1 };
  // ---- the walk (explicit stack; flags: 1 visible, 2 pre, 4 exit-block, 8 exit-cell, 16 root) ----
  const sN: PageNode[] = [root];
  const sF: number[] = [opts.whole ? 1 : 1 | 16];
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
      const t = dom.nodeType(n);
      if (t === 3) {
        if (!(f & 1)) continue;
        const data = str(dom.textData(n));
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
      let flags = f & 3;
      let tag = "";
      if (t === 1) {
        const el = n as PageElement;
        tag = tagOf(dom, el);
        if (!(f & 16)) {
          if (SKIP[tag]) continue;
          const role = str(dom.getAttr(el, "role")).trim().toLowerCase().split(/\s+/)[0] || "";
          if (SKIP_ROLES[role]) continue;
        }
        if (dom.getAttr(el, "aria-hidden") === "true") continue;
        if (!LAYOUT && dom.getAttr(el, "hidden") !== null) continue;
        const st = dom.styleOf(el) as (PageStyle & { whiteSpace?: string }) | null;
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
          const listed = fs.found.length;
          const cd = enterFrame(fs, el, total);
          // A cross-origin frame's text is spliced in here by the broker, on lines of its own.
          if (fs.found.length > listed) sep(2);
          const inner = cd ? dom.body(cd) || dom.root(cd) : null;
          if (inner) {
            sN.push(inner);
            sF.push(flags | 1);
          }
          continue;
        }
      }
      pushKids(dom, n, t, tag, sN, sF, flags);
    } catch {
      /* a hostile node loses only its own text */
    }
  }
  const text = cutText(out, LIMIT);
  return {
    title,
    url,
    text,
    length: total,
    truncated: workHit || total > LIMIT,
    frames: finishFrames(dom, fs, win, false),
  };
}
