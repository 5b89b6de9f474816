/**
 * Page-side text search for `bp search` (page bundle). One walk of the composed tree builds a whitespace-collapsed
 * string of the visible text; a KMP scan finds every match in O(text + query); only the first `limit` matches are
 * mapped back to nodes for boxes. Cross-origin iframes become placeholders counting the matches before them, so the
 * broker searches them through their sessions in document order under one limit.
 */
import { cut, inspectDom, num, safe, str, tagOf } from "./dom.ts";
import {
  docOffset,
  enterFrame,
  finishFrames,
  frameState,
  matchPlace,
  type FramePlaceholder,
  type MatchPlace,
  pushKids,
} from "./tree.ts";
import type { InspectError } from "./read.ts";
import type { PageElement, PageNode, PageWindow } from "../types.ts";

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
export interface SearchMatch {
  index: number;
  text: string;
  context: string;
  tagName: string;
  visible: boolean;
  x: number;
  y: number;
  width: number;
  height: number;
  place?: MatchPlace;
  f?: string;
  r?: number;
  container?: number;
}

export interface SearchResult {
  title: string;
  url: string;
  totalMatches: number;
  matches: SearchMatch[];
  truncated: boolean;
  /** Cross-origin iframes; `at` counts the matches before each. */
  frames: FramePlaceholder[];
  /** false: the selector matched nothing here, but it may still match inside `frames`. */
  scoped: boolean;
  /** This frame's viewport size, for judging whether matches inside child frames are in view. */
  viewport: { w: number; h: number };
}

export function pageSearch(win: PageWindow, opts: SearchOptions): SearchResult | InspectError {
  const LIMIT = Math.max(1, Math.min(200, Math.floor(Number(opts.limit) || 20)));
  const LAYOUT = opts.layout !== false;
  const MAX_NODES = Math.max(1, Math.floor(Number(opts.maxNodes) || 400_000));
  const dom = inspectDom(win);
  const fs = frameState();
  const doc = win.document;
  const title = safe(() => cut(str(dom.title(doc)), 500), "");
  const url = safe(() => cut(str(dom.url(doc)), 2048), "");
  const vw = num(win.innerWidth);
  const vh = num(win.innerHeight);
  const needleRaw = str(opts.query).replace(/\s+/g, " ").trim().slice(0, 500);
  if (!needleRaw)
    return {
      title,
      url,
      totalMatches: 0,
      matches: [],
      truncated: false,
      frames: finishFrames(dom, fs, win, false),
      scoped: true,
      viewport: { w: vw, h: vh },
    };
  const sel = opts.selector || "";
  const selectorOk =
    !sel ||
    safe(() => {
      dom.qs(doc, sel);
      return true;
    }, false);
  if (!selectorOk) return { error: "invalid_selector", message: "Invalid CSS selector." };

  // ---- collect visible text into one collapsed string ----
  const SKIP: Record<string, 1> = {
    script: 1,
    style: 1,
    noscript: 1,
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
  };
  // Built as parts: reading the last character of a growing string would flatten it every time.
  const parts: string[] = [];
  let len = 0;
  let endSpace = true;
  const segNode: PageNode[] = [];
  const segStart: number[] = [];
  const segLead: boolean[] = [];
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
  const top = dom.root(doc);
  if (top) {
    sN.push(top);
    sF.push(sel ? 1 : 3);
  }
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
      const t = dom.nodeType(n);
      if (t === 3) {
        if ((f & 3) !== 3) continue;
        let c = str(dom.textData(n)).replace(/\s+/g, " ");
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
      let tag = "";
      if (t === 1) {
        const el = n as PageElement;
        tag = tagOf(dom, el);
        if (SKIP[tag]) continue;
        if (!LAYOUT && dom.getAttr(el, "hidden") !== null) continue;
        const st = dom.styleOf(el);
        const display = st ? str(st.display) : "";
        if (display === "none") continue;
        const visibility = st ? str(st.visibility) : "";
        if (visibility) flags = visibility === "visible" ? flags | 1 : flags & ~1;
        if (!(flags & 2) && dom.matches(el, sel)) {
          flags |= 2;
          scoped = true;
        }
        if (display && display !== "inline" && display !== "contents" && !display.startsWith("ruby")) {
          space();
          sN.push(n);
          sF.push(4);
        }
        if (tag === "iframe" || tag === "frame") {
          const listed = fs.found.length;
          const cd = enterFrame(fs, el, len);
          const inner = cd ? dom.root(cd) : null;
          if (inner) {
            sN.push(inner);
            sF.push(flags | 1);
          } else if (fs.found.length > listed) {
            // A line break never occurs in collapsed text or a query, so no match spans the frame.
            parts.push("\n");
            len++;
            endSpace = true;
            const ph = fs.found[listed] as FramePlaceholder;
            ph.at = len;
            ph.scoped = (flags & 2) !== 0;
          }
          continue;
        }
      }
      pushKids(dom, n, t, tag, sN, sF, flags);
    } catch {
      /* a hostile node loses only its own text */
    }
  }
  if (!scoped && fs.found.length === 0) return { error: "no_match", message: "Selector did not match." };
  const hay = parts.join("");

  // ---- KMP scan ----
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
  // Placeholders hold their position in `hay` until here; from now on, the matches before them.
  const frames = fs.found;
  let nextFrame = 0;
  for (let i = 0, k = 0; i < H.length; i++) {
    while (k > 0 && H.charCodeAt(i) !== N.charCodeAt(k)) k = fail[k - 1] as number;
    if (H.charCodeAt(i) === N.charCodeAt(k)) k++;
    if (k < M) continue;
    const s = i - M + 1;
    // A rejected whole-word candidate may overlap the next match; an accepted one may not.
    if (opts.wholeWord && (isWord(s - 1) || isWord(i + 1))) k = fail[k - 1] as number;
    else {
      for (; nextFrame < frames.length && (frames[nextFrame] as FramePlaceholder).at <= s; nextFrame++)
        (frames[nextFrame] as FramePlaceholder).at = totalMatches;
      if (totalMatches++ < LIMIT) found.push(s);
      k = 0;
    }
  }
  for (; nextFrame < frames.length; nextFrame++) (frames[nextFrame] as FramePlaceholder).at = totalMatches;

  // ---- map the reported matches back to nodes and boxes ----
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
      const data = str(dom.textData(segNode[seg]));
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
  const side = Math.min(120, Math.floor((500 - M) / 2));
  const out: SearchMatch[] = [];
  for (const s of found) {
    const e = s + M;
    // Context stops at a cross-origin frame's line break: the text beyond it is not adjacent.
    const from = Math.max(0, s - side);
    const around = hay.slice(from, Math.min(hay.length, e + side));
    const after = around.indexOf("\n", e - from);
    const context = around.slice(around.lastIndexOf("\n", s - from) + 1, after < 0 ? around.length : after).trim();
    const m: SearchMatch = {
      index: out.length + 1,
      text: hay.slice(s, e),
      context,
      tagName: "",
      visible: !LAYOUT,
      x: 0,
      y: 0,
      width: 0,
      height: 0,
    };
    try {
      const a = segOf(s);
      const b = segOf(e - 1);
      const an = segNode[a] as PageNode;
      const bn = segNode[b] as PageNode;
      let parent = dom.parentNode(an);
      if (parent && dom.nodeType(parent) === 11) parent = (parent as unknown as { host: PageNode }).host;
      m.tagName = cut(str(parent ? dom.localName(parent) : "").toLowerCase(), 100);
      const place = matchPlace(dom, fs, win, parent);
      if (place.host !== undefined || place.ref !== undefined) m.place = place;
      if (LAYOUT) {
        const d = dom.ownerDoc(an);
        const r = dom.createRange(d);
        r.setStart(an, nodeOffset(a, s));
        if (dom.rootNode(an) === dom.rootNode(bn)) r.setEnd(bn, nodeOffset(b, e - 1) + 1);
        else r.setEnd(an, str(dom.textData(an)).length);
        const box = r.getBoundingClientRect();
        const o = docOffset(dom, fs, d, 0);
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
  const truncated = workHit || totalMatches > out.length;
  return {
    title,
    url,
    totalMatches,
    matches: out,
    truncated,
    frames: finishFrames(dom, fs, win, LAYOUT),
    scoped,
    viewport: { w: vw, h: vh },
  };
}
