/**
 * Page-side scrolling for `bp scroll`, run in our isolated world through the page runtime
 * (`scroll`, an element step; `el`: the ref's element, or null for the page / `arg.selector`).
 * Scrolls are instant, so the positions read afterwards are final; the page still gets its
 * scroll events.
 *
 * arg: { mode: "relative", direction, amount, unit } | { mode: "position", to: "start"|"end" }
 *    | { mode: "text", text, exact }, plus optional selector.
 * A page whose document does not scroll (an app shell with its own scrolling pane) scrolls
 * the pane under the viewport's centre, else the largest visible scrollable element.
 */
import { composedParent, type ActElement, type ActNode, type ActWindow } from "./dom.ts";

export interface ScrollArg {
  mode?: string;
  direction?: string;
  amount?: number;
  unit?: string;
  to?: string;
  text?: string;
  exact?: boolean;
  selector?: string;
}

/** What scrolled: the page, an element, or (--to-text) whatever held the text. */
export type ScrollTarget = "page" | "element" | "text";

export interface ScrollResult {
  ok: boolean;
  reason?: string;
  target?: ScrollTarget;
  beforeX?: number;
  beforeY?: number;
  afterX?: number;
  afterY?: number;
  deltaX?: number;
  deltaY?: number;
  moved?: boolean;
  matchedText?: string;
}

type Axis = "x" | "y";
interface Point {
  x: number;
  y: number;
}

const MAX_NODES = 200000;
const SKIPPED = /^(script|style|noscript|template|head)$/;

function norm(s: unknown): string {
  return String(s).replace(/\s+/g, " ").trim();
}

/** The scrolling facts of one document, asked for by the functions below. */
class Scroller {
  readonly doc;
  readonly root: ActElement | null;
  constructor(readonly win: ActWindow) {
    this.doc = win.document;
    this.root = this.doc.scrollingElement || this.doc.documentElement;
  }

  isPage(n: ActNode | null): boolean {
    return n === this.root || n === this.doc.body;
  }

  pageCanScroll(axis: Axis): boolean {
    const root = this.root;
    if (!root) return false;
    const max = axis === "y" ? root.scrollHeight - this.win.innerHeight : root.scrollWidth - this.win.innerWidth;
    if (max < 1) return false;
    const cs = this.win.getComputedStyle(root),
      ov = axis === "y" ? cs.overflowY : cs.overflowX;
    return ov !== "hidden" && ov !== "clip";
  }

  canScroll(n: ActNode | null, axis: Axis): n is ActElement {
    if (!n || n.nodeType !== 1) return false;
    if (this.isPage(n)) return this.pageCanScroll(axis);
    const e = n as ActElement;
    const cs = this.win.getComputedStyle(e),
      ov = axis === "y" ? cs.overflowY : cs.overflowX;
    if (!/(auto|scroll|overlay)/.test(ov)) return false;
    return axis === "y" ? e.scrollHeight > e.clientHeight + 1 : e.scrollWidth > e.clientWidth + 1;
  }

  ancestorScroller(n: ActNode, axis: Axis): ActElement | null {
    for (let c: ActNode | null = n, i = 0; c && c.nodeType === 1 && i < 4096; c = composedParent(c), i++) {
      if (this.isPage(c)) return null;
      if (this.canScroll(c, axis)) return c;
    }
    return null;
  }

  fallbackScroller(axis: Axis): ActElement | null {
    const win = this.win;
    const hit = this.doc.elementFromPoint(win.innerWidth / 2, win.innerHeight / 2);
    const c = hit ? this.ancestorScroller(hit, axis) : null;
    if (c) return c;
    let best: ActElement | null = null,
      area = 0;
    const all = this.doc.querySelectorAll("*");
    for (let i = 0; i < all.length && i < MAX_NODES; i++) {
      const e = all[i] ?? null;
      if (!this.canScroll(e, axis)) continue;
      const r = e.getBoundingClientRect();
      const a =
        Math.max(0, Math.min(r.right, win.innerWidth) - Math.max(r.left, 0)) *
        Math.max(0, Math.min(r.bottom, win.innerHeight) - Math.max(r.top, 0));
      if (a > area) {
        area = a;
        best = e;
      }
    }
    return best;
  }

  pos(c: ActElement | null): Point {
    return c ? { x: c.scrollLeft, y: c.scrollTop } : { x: this.win.scrollX, y: this.win.scrollY };
  }

  moveTo(c: ActElement | null, left: number, top: number): void {
    const o = { left, top, behavior: "instant" };
    if (c) c.scrollTo(o);
    else this.win.scrollTo(o);
  }

  visible(e: ActElement): boolean {
    const r = e.getBoundingClientRect();
    if (!(r.width > 0 && r.height > 0)) return false;
    const cs = this.win.getComputedStyle(e);
    return cs.visibility !== "hidden" && cs.visibility !== "collapse";
  }

  inView(e: ActElement): boolean {
    if (!this.visible(e)) return false;
    const r = e.getBoundingClientRect();
    return r.bottom > 0 && r.right > 0 && r.top < this.win.innerHeight && r.left < this.win.innerWidth;
  }

  findText(arg: ScrollArg): ActElement | null {
    const q = norm(arg.text),
      ql = q.toLowerCase(),
      found: ActElement[] = [];
    let count = 0;
    const matches = (t: string): boolean => (arg.exact ? t === q : t.toLowerCase().indexOf(ql) >= 0);
    const visit = (n: ActNode): void => {
      if (++count > MAX_NODES || found.length >= 50) return;
      if (n.nodeType === 3) {
        if (matches(norm(n.data)) && n.parentElement) found.push(n.parentElement);
        return;
      }
      const e = n as ActElement;
      if (n.nodeType === 1 && SKIPPED.test(e.localName)) return;
      if (e.shadowRoot) visit(e.shadowRoot);
      for (let c = n.firstChild; c; c = c.nextSibling) visit(c);
    };
    const start = this.doc.body || this.doc.documentElement;
    if (start) visit(start);
    if (!found.length) {
      // Text split across elements ("Total <b>42</b>"): the smallest element holding all of it.
      const all = this.doc.body ? this.doc.body.querySelectorAll("*") : [];
      let best: ActElement | null = null;
      for (let i = 0; i < all.length && i < MAX_NODES; i++) {
        const e = all[i];
        if (!e || /^(script|style|noscript|template)$/.test(e.localName)) continue;
        const t = norm(e.textContent || "");
        if (matches(t) && (!best || t.length < norm(best.textContent || "").length)) best = e;
      }
      if (best) found.push(best);
    }
    for (const e of found) if (this.visible(e)) return e;
    return found[0] || null;
  }
}

function result(target: ScrollTarget, before: Point, after: Point): ScrollResult {
  const beforeX = Math.round(before.x),
    beforeY = Math.round(before.y),
    afterX = Math.round(after.x),
    afterY = Math.round(after.y);
  const deltaX = afterX - beforeX,
    deltaY = afterY - beforeY;
  return { ok: true, target, beforeX, beforeY, afterX, afterY, deltaX, deltaY, moved: deltaX !== 0 || deltaY !== 0 };
}

function scrollToText(s: Scroller, arg: ScrollArg): ScrollResult {
  const hit = s.findText(arg);
  if (!hit) {
    const p0 = s.pos(null);
    return { ...result("text", p0, p0), reason: "text_not_found" };
  }
  const pb = s.pos(null),
    rb = hit.getBoundingClientRect();
  try {
    hit.scrollIntoView({ block: "center", inline: "nearest", behavior: "instant" });
  } catch {}
  const pa = s.pos(null),
    ra = hit.getBoundingClientRect();
  // The content moved by (rb - ra): that is the scroll, whichever container made it.
  const deltaX = Math.round(rb.left - ra.left),
    deltaY = Math.round(rb.top - ra.top);
  const res: ScrollResult = {
    ok: true,
    target: "text",
    beforeX: Math.round(pb.x),
    beforeY: Math.round(pb.y),
    afterX: Math.round(pa.x),
    afterY: Math.round(pa.y),
    deltaX,
    deltaY,
    matchedText: norm(hit.textContent || "").slice(0, 200),
    moved: deltaX !== 0 || deltaY !== 0,
  };
  if (!s.inView(hit)) res.reason = "text_not_revealed";
  return res;
}

export function pageScroll(win: ActWindow, el: ActElement | null, arg: ScrollArg): ScrollResult {
  const s = new Scroller(win);
  if (!el && arg.selector) {
    try {
      el = s.doc.querySelector(arg.selector);
    } catch {
      return { ok: false, reason: "selector_invalid" };
    }
    if (!el) return { ok: false, reason: "selector_no_match" };
  }
  if (arg.mode === "text") return scrollToText(s, arg);
  const axis: Axis = arg.mode === "relative" && (arg.direction === "left" || arg.direction === "right") ? "x" : "y";
  let c: ActElement | null = null,
    target: ScrollTarget = "page";
  if (el) {
    if (!el.isConnected) return { ok: false, reason: "detached" };
    c = s.canScroll(el, axis) ? el : s.ancestorScroller(el, axis);
    if (s.isPage(c)) c = null;
    target = c ? "element" : "page";
  } else if (!s.pageCanScroll(axis)) {
    c = s.fallbackScroller(axis);
    if (c) target = "element";
  }
  const before = s.pos(c);
  const box = c || s.root;
  if (arg.mode === "position") {
    const end = box ? (axis === "y" ? box.scrollHeight : box.scrollWidth) : 0;
    s.moveTo(
      c,
      axis === "x" ? (arg.to === "end" ? end : 0) : before.x,
      axis === "y" ? (arg.to === "end" ? end : 0) : before.y,
    );
  } else {
    const size = axis === "y" ? (c ? c.clientHeight : win.innerHeight) : c ? c.clientWidth : win.innerWidth;
    const amount = Number(arg.amount);
    const d =
      (arg.unit === "pixels" ? amount : amount * size) * (arg.direction === "up" || arg.direction === "left" ? -1 : 1);
    s.moveTo(c, before.x + (axis === "x" ? d : 0), before.y + (axis === "y" ? d : 0));
  }
  return result(target, before, s.pos(c));
}
