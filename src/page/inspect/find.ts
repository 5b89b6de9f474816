/**
 * Page-side element lookup for `bp find` and `bp locate` (page bundle). One walk of the composed tree in document order
 * tests each element with `matches`, counts every match and describes the first `limit`; no refs are made. Cross-origin
 * iframes become placeholders counting the matches before them. "locate" stops at this frame's first match, scrolls it
 * to the centre and returns its box.
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
} from "./tree.ts";
import type { InspectError } from "./read.ts";
import type { PageElement, PageNode, PageWindow } from "../types.ts";

export interface FindOptions {
  selector: string;
  limit?: number;
  attributes?: string[];
  shadow?: boolean;
  mode?: "find" | "locate";
  layout?: boolean;
  maxNodes?: number;
}

/** Boxes in the root frame's viewport px (same-origin iframe offsets added). */
export interface FoundElement {
  index: number;
  tagName: string;
  role: string;
  name: string;
  text: string;
  visible: boolean;
  enabled: boolean;
  x: number;
  y: number;
  width: number;
  height: number;
  attributes: { name: string; value: string }[];
  /** For the broker, which turns it into a frame number and a checked ref. */
  place?: MatchPlace;
  f?: string;
  r?: number;
  container?: number;
}

export interface FindResult {
  elements: FoundElement[];
  total: number;
  truncated: boolean;
  /** Cross-origin iframes; `at` counts the matches before each. */
  frames: FramePlaceholder[];
}

/** x, y: the centre, after scrolling the element to the centre of the viewport. */
export interface LocateResult {
  x: number;
  y: number;
  top: number;
  left: number;
  width: number;
  height: number;
}

export function pageFind(win: PageWindow, opts: FindOptions): FindResult | LocateResult | InspectError {
  const LOCATE = opts.mode === "locate";
  const LIMIT = LOCATE ? 1 : Math.max(1, Math.min(200, Math.floor(Number(opts.limit) || 20)));
  const LAYOUT = opts.layout !== false;
  const MAX_NODES = Math.max(1, Math.floor(Number(opts.maxNodes) || 500_000));
  const ATTRS = (opts.attributes || ["id", "class", "name", "type", "href", "placeholder", "data-testid"]).slice(0, 20);
  const BUDGET = 1_000_000;
  const dom = inspectDom(win);
  const fs = frameState();
  const doc = win.document;
  const sel = str(opts.selector);
  const selectorOk = safe(() => {
    dom.qs(doc, sel);
    return true;
  }, false);
  if (!selectorOk) return { error: "invalid_selector", message: "Invalid CSS selector." };

  // ---- the walk ----
  const hits: PageElement[] = [];
  let total = 0;
  let visited = 0;
  let workHit = false;
  const stack: PageNode[] = [];
  const top = dom.root(doc);
  if (top) stack.push(top);
  while (stack.length > 0) {
    const n = stack.pop() as PageNode;
    if (++visited > MAX_NODES) {
      workHit = true;
      break;
    }
    try {
      const t = dom.nodeType(n);
      const start = stack.length;
      if (t === 1) {
        const el = n as PageElement;
        if (dom.matches(el, sel)) {
          total++;
          if (hits.length < LIMIT) hits.push(el);
          if (LOCATE) break;
        }
        const tag = tagOf(dom, el);
        if (tag === "iframe" || tag === "frame") {
          const cd = enterFrame(fs, el, total);
          const inner = cd ? dom.root(cd) : null;
          if (inner) stack.push(inner);
          continue;
        }
        const sr = opts.shadow === false ? null : dom.shadowRoot(el);
        if (sr) for (let c = dom.firstChild(sr); c; c = dom.nextSibling(c)) stack.push(c);
      } else if (t !== 11) continue;
      for (let c = dom.firstChild(n); c; c = dom.nextSibling(c)) stack.push(c);
      for (let i = start, j = stack.length - 1; i < j; i++, j--) {
        const a = stack[i] as PageNode;
        stack[i] = stack[j] as PageNode;
        stack[j] = a;
      }
    } catch {
      /* skip a hostile subtree */
    }
  }

  // ---- geometry ----
  const box = (el: PageElement): { x: number; y: number; w: number; h: number } => {
    if (!LAYOUT) return { x: 0, y: 0, w: 0, h: 0 };
    const r = dom.rect(el);
    const o = docOffset(dom, fs, dom.ownerDoc(el), 0);
    return { x: num(r.left) + o.x, y: num(r.top) + o.y, w: num(r.width), h: num(r.height) };
  };

  if (LOCATE) {
    const el = hits[0];
    if (!el) return { error: "no_match", message: "Selector did not match." };
    safe(() => dom.scrollIntoView(el, { block: "center", inline: "center" }), undefined);
    const b = box(el);
    return {
      x: Math.round(b.x + b.w / 2),
      y: Math.round(b.y + b.h / 2),
      top: Math.round(b.y),
      left: Math.round(b.x),
      width: Math.round(b.w),
      height: Math.round(b.h),
    };
  }

  // ---- description: tag, role, accessible name, text, state ----
  const textOf = (root: PageNode, max: number): string => {
    let s = "";
    let n = 0;
    const st: PageNode[] = [root];
    while (st.length > 0 && s.length <= max && n++ < 5000) {
      const x = st.pop() as PageNode;
      const t = dom.nodeType(x);
      if (t === 3) s += `${str(dom.textData(x))} `;
      else if (t === 1) {
        const tag = tagOf(dom, x);
        if (tag === "script" || tag === "style" || tag === "template" || tag === "noscript") continue;
        const from = st.length;
        for (let c = dom.firstChild(x); c; c = dom.nextSibling(c)) st.push(c);
        for (let i = from, j = st.length - 1; i < j; i++, j--) {
          const a = st[i] as PageNode;
          st[i] = st[j] as PageNode;
          st[j] = a;
        }
      }
    }
    return cut(s.replace(/\s+/g, " ").trim(), max);
  };
  const ROLES: Record<string, string> = {
    button: "button",
    select: "combobox",
    textarea: "textbox",
    img: "img",
    h1: "heading",
    h2: "heading",
    h3: "heading",
    h4: "heading",
    h5: "heading",
    h6: "heading",
    ul: "list",
    ol: "list",
    li: "listitem",
    nav: "navigation",
    main: "main",
    header: "banner",
    footer: "contentinfo",
    aside: "complementary",
    form: "form",
    table: "table",
    tr: "row",
    td: "cell",
    th: "columnheader",
    dialog: "dialog",
    article: "article",
    option: "option",
    progress: "progressbar",
    fieldset: "group",
    p: "paragraph",
    hr: "separator",
    summary: "button",
    details: "group",
    iframe: "iframe",
    meter: "meter",
    output: "status",
  };
  const INPUTS: Record<string, string> = {
    // file and color as snapshot and Chrome's accessibility tree give them, so both commands agree
    button: "button",
    submit: "button",
    reset: "button",
    image: "button",
    file: "button",
    color: "button",
    checkbox: "checkbox",
    radio: "radio",
    range: "slider",
    number: "spinbutton",
    search: "searchbox",
    hidden: "",
  };
  const FROM_CONTENT: Record<string, 1> = {
    button: 1,
    link: 1,
    heading: 1,
    option: 1,
    tab: 1,
    menuitem: 1,
    cell: 1,
    columnheader: 1,
    rowheader: 1,
    checkbox: 1,
    radio: 1,
    switch: 1,
    treeitem: 1,
    menuitemcheckbox: 1,
    menuitemradio: 1,
    tooltip: 1,
  };
  const roleOf = (el: PageElement, tag: string): string => {
    const explicit = str(dom.getAttr(el, "role")).trim().toLowerCase().split(/\s+/)[0];
    if (explicit) return cut(explicit, 100);
    if (tag === "a" || tag === "area") return dom.getAttr(el, "href") !== null ? "link" : "generic";
    if (tag === "input") {
      const type = str(dom.getAttr(el, "type")).toLowerCase();
      const r = INPUTS[type];
      if (r !== undefined) return r;
      return dom.getAttr(el, "list") !== null ? "combobox" : "textbox";
    }
    if (tag === "select" && (dom.getAttr(el, "multiple") !== null || parseInt(str(dom.getAttr(el, "size")), 10) > 1))
      return "listbox";
    if (tag === "img" && dom.getAttr(el, "alt") === "") return "presentation";
    return ROLES[tag] || "generic";
  };
  const nameOf = (el: PageElement, tag: string, role: string): string => {
    const ids = str(dom.getAttr(el, "aria-labelledby")).trim();
    if (ids) {
      const r = dom.rootNode(el);
      const rt = dom.nodeType(r);
      const parts: string[] = [];
      for (const id of ids.split(/\s+/).slice(0, 10)) {
        const t = rt === 9 ? dom.docById(r, id) : rt === 11 ? dom.fragById(r, id) : null;
        if (t) parts.push(textOf(t, 200));
      }
      const s = parts.join(" ").trim();
      if (s) return cut(s, 200);
    }
    const label = str(dom.getAttr(el, "aria-label")).trim();
    if (label) return cut(label, 200);
    if (tag === "input" || tag === "select" || tag === "textarea" || tag === "meter" || tag === "progress") {
      const labels = (el as unknown as { labels?: ArrayLike<PageNode> | null }).labels;
      const parts: string[] = [];
      for (let i = 0; labels && i < labels.length && i < 5; i++) parts.push(textOf(labels[i] as PageNode, 200));
      const s = parts.join(" ").trim();
      if (s) return cut(s, 200);
      const type = str(dom.getAttr(el, "type")).toLowerCase();
      if (tag === "input" && (type === "submit" || type === "reset" || type === "button")) {
        const v = str(dom.getAttr(el, "value"));
        return cut(v || (type === "submit" ? "Submit" : type === "reset" ? "Reset" : ""), 200);
      }
      if (tag === "input" && type === "image") return cut(str(dom.getAttr(el, "alt")) || "Submit", 200);
    }
    if (tag === "img" || tag === "area") {
      const alt = str(dom.getAttr(el, "alt")).trim();
      if (alt) return cut(alt, 200);
    }
    if (FROM_CONTENT[role]) {
      const s = textOf(el, 200);
      if (s) return s;
    }
    return cut((str(dom.getAttr(el, "title")) || str(dom.getAttr(el, "placeholder"))).trim(), 200);
  };
  const visibleOf = (el: PageElement, b: { w: number; h: number }): boolean => {
    if (LAYOUT) {
      const cv = (el as unknown as { checkVisibility?: (o: object) => boolean }).checkVisibility;
      if (typeof cv === "function" && !cv.call(el, { opacityProperty: true, visibilityProperty: true })) return false;
      return b.w > 0 && b.h > 0;
    }
    for (let x: PageNode | null = el, i = 0; x && dom.nodeType(x) === 1 && i < 256; x = dom.parentNode(x), i++) {
      if (dom.getAttr(x, "hidden") !== null) return false;
      const st = dom.styleOf(x as PageElement);
      if (st && (st.display === "none" || st.visibility === "hidden")) return false;
    }
    return true;
  };

  let spent = 0;
  const elements: FoundElement[] = [];
  for (const el of hits) {
    const tag = cut(tagOf(dom, el), 100);
    const e: FoundElement = {
      index: elements.length + 1,
      tagName: tag,
      role: "",
      name: "",
      text: "",
      visible: false,
      enabled: true,
      x: 0,
      y: 0,
      width: 0,
      height: 0,
      attributes: [],
    };
    try {
      e.role = roleOf(el, tag);
      e.name = nameOf(el, tag, e.role);
      e.text = textOf(el, 500);
      const b = box(el);
      e.x = Math.round(b.x);
      e.y = Math.round(b.y);
      e.width = Math.round(b.w);
      e.height = Math.round(b.h);
      e.visible = visibleOf(el, b);
      e.enabled = !safe(() => dom.matches(el, ":disabled"), false) && dom.getAttr(el, "aria-disabled") !== "true";
      const place = matchPlace(dom, fs, win, el);
      if (place.host !== undefined || place.ref !== undefined) e.place = place;
      for (const a of ATTRS) {
        const v = dom.getAttr(el, a);
        if (typeof v === "string") e.attributes.push({ name: a, value: cut(v, 2048) });
      }
    } catch {
      /* keep what was read */
    }
    spent += e.name.length + e.text.length + e.attributes.reduce((n, a) => n + a.value.length, 0);
    if (spent > BUDGET && elements.length > 0) break;
    elements.push(e);
  }
  return { elements, total, truncated: workHit || total > elements.length, frames: finishFrames(dom, fs, win, LAYOUT) };
}
