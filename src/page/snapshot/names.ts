/** Accessible names: label lookups, bounded subtree text, name-from-content, a candidate's final name and value. */
import type { PageElement, PageNode, PageQueryRoot, PageText } from "../types.ts";
import { attr, bound, collapse, cut, lower } from "./text.ts";
import type { Ctx, Rec, Roots, Run } from "./types.ts";

/** label[for] lookup, built lazily once per tree scope. */
export function labelsFor(run: Run, root: PageQueryRoot, id: string): PageElement[] {
  let m = run.labelMaps.get(root);
  if (!m) {
    m = new Map();
    const all = root.querySelectorAll("label[for]");
    for (let i = 0; i < all.length; i++) {
      const l = all[i];
      if (!l) continue;
      const f = attr(l, "for");
      if (!f) continue;
      const list = m.get(f);
      if (list) list.push(l);
      else m.set(f, [l]);
    }
    run.labelMaps.set(root, m);
  }
  return m.get(id) || [];
}

export function byId(roots: Roots, id: string): PageElement | null {
  const r = roots.root;
  if (typeof r.getElementById === "function") return r.getElementById(id);
  return null;
}

// Bounded text of a subtree without computed styles: at most 200 nodes and BUF_CAP characters a call.
export function textOf(run: Run, start: PageElement, exclude: PageElement | null): string {
  const T = run.T;
  const BUF_CAP = run.BUF_CAP;
  let out = "";
  let budget = 200;
  const stack: PageNode[] = [];
  const kids = (n: PageNode): void => {
    const el = n as PageElement;
    const src = el.shadowRoot ? el.shadowRoot.childNodes : n.childNodes;
    for (let i = src.length - 1; i >= 0; i--) {
      const c = src[i];
      if (c) stack.push(c);
    }
  };
  kids(start);
  while (stack.length && budget-- > 0 && out.length < BUF_CAP) {
    const n = stack.pop() as PageNode;
    if (n.nodeType === 3) {
      out += bound((n as PageText).data, 8192).replace(/\s+/g, " ");
      continue;
    }
    if (n.nodeType !== 1 || n === exclude) continue;
    const el = n as PageElement;
    const tag = lower(el.localName);
    if (T.SKIP_TAGS[tag] || T.NO_CHILDREN[tag]) {
      if (tag === "img") out += ` ${attr(el, "alt") || ""} `;
      continue;
    }
    if (el.hasAttribute("hidden") || attr(el, "aria-hidden") === "true") continue;
    const al = attr(el, "aria-label");
    if (al && al.trim()) {
      out += ` ${bound(al, BUF_CAP)} `;
      continue;
    }
    const block = !T.INLINE_TAGS[tag];
    if (block) out += " ";
    kids(el);
  }
  return collapse(out);
}

export function labelledBy(run: Run, el: PageElement, roots: Roots): string | null {
  const ids = attr(el, "aria-labelledby");
  if (!ids) return null;
  const parts = ids.split(/\s+/);
  let out = "";
  for (let i = 0; i < parts.length && i < 8; i++) {
    const id = parts[i];
    if (!id) continue;
    const t = byId(roots, id);
    if (!t) continue;
    const al = attr(t, "aria-label");
    out += ` ${al && al.trim() ? al : textOf(run, t, null)}`;
  }
  const s = collapse(out);
  return s ? s : null;
}

// Name-from-content text goes to the innermost open candidates (at most 3: nesting cannot make it quadratic).
export function appendText(run: Run, ctx: Ctx, raw: string): void {
  const candStack = run.candStack;
  const BUF_CAP = run.BUF_CAP;
  let s: string | null = null;
  for (let i = candStack.length - 1, k = 0; i >= ctx.mute && k < 3; i--, k++) {
    const r = candStack[i];
    if (!r || r.buf.length >= BUF_CAP) continue;
    if (s === null) {
      // Collapse within a generous window first: indentation must not push words out.
      s = bound(bound(raw, 8192).replace(/\s+/g, " "), BUF_CAP);
      if (!s) return;
    }
    const b = r.buf;
    const piece = s.charCodeAt(0) === 32 && (b === "" || b.charCodeAt(b.length - 1) === 32) ? s.slice(1) : s;
    r.buf = b + bound(piece, BUF_CAP - b.length);
  }
}

/** Settles a closed candidate's name and value from its sources and gathered text. */
export function finishRec(run: Run, rec: Rec): void {
  const content = rec.contentName || rec.contentValue ? collapse(rec.buf) : "";
  let name = rec.fixedName !== null ? collapse(rec.fixedName) : "";
  if (!name && rec.contentName) name = content;
  if (!name) name = collapse(rec.fallbackName);
  rec.name = cut(name, run.NAME_MAX);
  if (!rec.name && rec.kind === "element") rec.desc = iconWords(rec.el);
  if (rec.contentValue && content) rec.value = content;
  if (rec.value !== null) rec.value = cut(bound(rec.value, run.VALUE_MAX + 64).replace(/\s+/g, " "), run.VALUE_MAX);
  rec.buf = "";
}

/** Words that say nothing about what an icon does. */
const NOISE: Record<string, 1> = {
  ui: 1,
  fa: 1,
  fas: 1,
  far: 1,
  fab: 1,
  js: 1,
  is: 1,
  has: 1,
  the: 1,
  svg: 1,
  png: 1,
  gif: 1,
  jpg: 1,
  jpeg: 1,
  webp: 1,
  img: 1,
  image: 1,
  corner: 1,
  all: 1,
  state: 1,
  default: 1,
  widget: 1,
  glyphicon: 1,
  material: 1,
  icons: 1,
  sm: 1,
  lg: 1,
  xs: 1,
  md: 1,
  xl: 1,
  css: 1,
  sc: 1,
  jsx: 1,
  tw: 1,
  text: 1,
  bg: 1,
  flex: 1,
  grid: 1,
  px: 1,
  py: 1,
  mx: 1,
  my: 1,
  mt: 1,
  mb: 1,
  ml: 1,
  mr: 1,
  pt: 1,
  pb: 1,
  pl: 1,
  pr: 1,
  rounded: 1,
  border: 1,
  hover: 1,
  focus: 1,
  inline: 1,
  block: 1,
  hidden: 1,
  relative: 1,
  absolute: 1,
  items: 1,
  center: 1,
  justify: 1,
  gap: 1,
  cursor: 1,
  pointer: 1,
  active: 1,
  white: 1,
  black: 1,
  gray: 1,
  grey: 1,
};

/**
 * A short description of an unnamed control from its class, id and image file name ("icon star" for `<span class="icon
 * icon-star">`); hash-like and utility words left out, at most 4 words.
 */
export function iconWords(el: PageElement): string {
  let raw = "";
  try {
    raw = `${el.getAttribute("class") || ""} ${el.getAttribute("id") || ""}`;
    const img = lowerTag(el) === "img" ? el : el.querySelector("img,svg use,[class*=icon]");
    if (img) {
      const src = img.getAttribute("src") || img.getAttribute("href") || img.getAttribute("xlink:href") || "";
      const file = src.split(/[?#]/)[0]?.split("/").pop() || src.split("#")[1] || "";
      raw += ` ${file.replace(/\.[a-z0-9]+$/i, "")} ${img === el ? "" : img.getAttribute("class") || ""}`;
    }
  } catch {
    return "";
  }
  const out: string[] = [];
  for (const w of raw
    .slice(0, 400)
    .toLowerCase()
    .split(/[^a-z0-9]+/)) {
    if (w.length < 2 || w.length > 16 || NOISE[w] || /\d/.test(w) || out.includes(w)) continue;
    out.push(w);
    if (out.length === 4) break;
  }
  return out.join(" ").slice(0, 40);
}

const lowerTag = (el: PageElement): string => String(el.localName || "").toLowerCase();
