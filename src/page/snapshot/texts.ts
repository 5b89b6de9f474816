/**
 * Headings and short text blocks of the top document (open shadow roots and same-origin frames included), each placed
 * after the listed control before it (`after`, 0: first). Candidates are not entered (their text is their name).
 * Bounded by MAX_BLOCKS, MAX_CHARS, MAX_TOTAL and MAX_VISITS. Read by `snapshot --text` and by action outcomes.
 */
import type { ActWindow } from "../act/dom.ts";
import { churningNodes } from "../settle/churn.ts";
import type { PageElement, TextBlock } from "../types.ts";
import type { Run } from "./types.ts";

const MAX_BLOCKS = 80;
const MAX_CHARS = 160;
const MAX_TOTAL = 6000;
const MAX_VISITS = 20000;
/** Visibility checks (the costly part): text blocks looked at, shown or not. */
const MAX_CHECKS = 400;
const SKIP: Record<string, 1> = {
  script: 1,
  style: 1,
  noscript: 1,
  template: 1,
  head: 1,
  svg: 1,
  select: 1,
  textarea: 1,
  object: 1,
  canvas: 1,
  video: 1,
  audio: 1,
  option: 1,
  datalist: 1,
};

type Walked = PageElement & {
  firstChild: Walked | null;
  nextSibling: Walked | null;
  nodeValue?: string | null;
  textContent?: string | null;
  checkVisibility?: (o: object) => boolean;
};

export function textBlocks(run: Run): TextBlock[] {
  const refOf = new Map<unknown, number>();
  for (const r of run.recs) if (r.ref) refOf.set(r.el, r.ref);
  const out: TextBlock[] = [];
  const body = (run.topDoc as unknown as { body: Walked | null }).body;
  if (!body) return out;
  let after = 0;
  let total = 0;
  let visits = 0;
  let checks = 0;
  // The page's own ticking (a clock, a countdown): its blocks carry where, so an outcome is not the clock's next tick.
  const churning = churningNodes(run.win as unknown as ActWindow, { text: true });
  const stack: Walked[] = [body];
  while (stack.length && out.length < MAX_BLOCKS && total < MAX_TOTAL && visits++ < MAX_VISITS) {
    const el = stack.pop() as Walked;
    const ref = refOf.get(el);
    if (ref !== undefined) {
      after = ref;
      continue;
    }
    try {
      if (visit(el)) break;
    } catch {
      // One hostile element costs its own text, not the rest.
    }
  }
  return out;

  /** True when the checks' budget is spent. */
  function visit(el: Walked): boolean {
    const tag = String(el.localName || "").toLowerCase();
    // As the walk: these subtrees are out, whatever the layout engine says.
    if (
      SKIP[tag] ||
      el.getAttribute("hidden") !== null ||
      el.getAttribute("aria-hidden") === "true" ||
      el.getAttribute("inert") !== null
    )
      return false;
    // A label's text is its control's name, listed with it.
    if (tag === "label") {
      after = lastRef(listedInside(el, refOf), refOf) ?? after;
      return false;
    }
    const level = /^h[1-6]$/.test(tag)
      ? Number(tag.charAt(1))
      : el.getAttribute("role") === "heading"
        ? Number(el.getAttribute("aria-level")) || 2
        : 0;
    if (level || ownText(el) || phrasing(el)) {
      if (++checks > MAX_CHECKS) return true;
      if (!shown(el)) return false;
      const x = clip(
        String(el.textContent || "")
          .replace(/\s+/g, " ")
          .trim(),
      );
      // A block of listed controls' text only (a row of links, "Home · Help") says nothing their names do not.
      const inside = listedInside(el, refOf);
      if (x && (level || !onlyControls(x, inside))) {
        const last = out[out.length - 1];
        if (!last || last.x !== x) {
          const block: TextBlock = level ? { after, h: level, x } : { after, x };
          let c: string[] | undefined;
          try {
            c = churning.size > 0 ? churnPieces(el, x, churning) : undefined;
          } catch {
            // A page that shadows `contains` keeps its block, unmarked.
          }
          if (c) block.c = c;
          out.push(block);
          total += x.length;
        }
      }
      // Controls inside a text block (a link in a paragraph) still count for the order.
      after = lastRef(inside, refOf) ?? after;
      return false;
    }
    if (tag === "iframe" || tag === "frame") {
      // A same-origin frame's text is read in place, as the walk lists its controls.
      let body: Walked | null = null;
      try {
        body = (Reflect.get(el, "contentDocument") as { body: Walked | null } | null)?.body ?? null;
      } catch {
        // Cross-origin: its own session's observation.
      }
      if (body) stack.push(body);
      return false;
    }
    const kids: Walked[] = [];
    const root = (el as unknown as { shadowRoot?: Walked | null }).shadowRoot;
    for (let c = (root ?? el).firstChild; c; c = c.nextSibling) if (c.nodeType === 1) kids.push(c);
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i] as Walked);
    return false;
  }
}

/** Stands for a churning stretch while a block's text is put together (a page's text holding it is not marked). */
const MARK = "\u0000";

/**
 * The block's text around the parts of it the page keeps rewriting on its own ("Time left: ", " s"), read from its
 * text nodes in order so each part is cut where it stands; `["", ""]` when all of it churns (a clock, or a block a
 * churning ancestor redraws); undefined when none of it does, or when the block was clipped.
 */
function churnPieces(el: Walked, x: string, churning: Set<object>): string[] | undefined {
  if (x.endsWith("…") || x.includes(MARK)) return undefined;
  const contains = (a: Walked, b: Walked): boolean => (a as unknown as { contains(o: unknown): boolean }).contains(b);
  let related = false;
  for (const node of churning) {
    const n = node as Walked;
    if (n === el || contains(el, n)) related = true;
    else if (contains(n, el)) return ["", ""];
  }
  if (!related) return undefined;
  let masked = "";
  let cut = false;
  // Depth-first over the block's nodes, as textContent reads them; `hot`: inside a churning node.
  const walk = (node: Walked, hot: boolean, depth: number): void => {
    const inHot = hot || churning.has(node);
    if (node.nodeType === 3) {
      if (!inHot) masked += String(node.nodeValue || "");
      else if (!masked.endsWith(MARK)) {
        masked += MARK;
        cut = true;
      }
      return;
    }
    if (depth > 64) return;
    for (let k = node.firstChild; k; k = k.nextSibling) walk(k, inHot, depth + 1);
  };
  walk(el, false, 0);
  if (!cut) return undefined;
  return masked.replace(/\s+/g, " ").trim().split(MARK);
}

function ownText(el: Walked): boolean {
  for (let c = el.firstChild; c; c = c.nextSibling)
    if (c.nodeType === 3 && /\S/.test(String(c.nodeValue || ""))) return true;
  return false;
}

/** Inline parts only (`<span>December</span>&nbsp;<span>2026</span>`, jQuery UI's month title): one block, not one per part. */
const PHRASING: Record<string, 1> = {
  span: 1,
  b: 1,
  i: 1,
  em: 1,
  strong: 1,
  small: 1,
  abbr: 1,
  time: 1,
  mark: 1,
  sub: 1,
  sup: 1,
  code: 1,
  kbd: 1,
  s: 1,
  u: 1,
  q: 1,
  cite: 1,
  data: 1,
  bdi: 1,
};

function phrasing(el: Walked): boolean {
  let parts = 0;
  for (let c = el.firstChild; c; c = c.nextSibling) {
    if (c.nodeType !== 1) continue;
    if (++parts > 8 || !PHRASING[String(c.localName || "").toLowerCase()] || c.firstElementChild) return false;
  }
  return parts > 1;
}

function shown(el: Walked): boolean {
  try {
    if (typeof el.checkVisibility === "function")
      return el.checkVisibility({ visibilityProperty: true, opacityProperty: true, contentVisibilityAuto: false });
    return (el as unknown as { getClientRects(): ArrayLike<unknown> }).getClientRects().length > 0;
  } catch {
    return false;
  }
}

/** The listed controls inside a text block (of its first 500 descendants), in document order. */
function listedInside(el: Walked, refOf: Map<unknown, number>): Walked[] {
  const out: Walked[] = [];
  if (refOf.size === 0) return out;
  try {
    const all = (el as unknown as { querySelectorAll(s: string): ArrayLike<Walked> }).querySelectorAll("*");
    for (let i = 0; i < all.length && i < 500; i++) if (refOf.has(all[i])) out.push(all[i] as Walked);
  } catch {
    // Order stays as it was.
  }
  return out;
}

/** The last of them, so text after the block comes after it. */
const lastRef = (inside: Walked[], refOf: Map<unknown, number>): number | undefined =>
  inside.length > 0 ? refOf.get(inside[inside.length - 1]) : undefined;

/** Whether the block's text is its listed controls' text and nothing but spaces and punctuation. */
function onlyControls(x: string, inside: Walked[]): boolean {
  let rest = x;
  let any = false;
  for (const d of inside) {
    const t = String(d.textContent || "")
      .replace(/\s+/g, " ")
      .trim();
    const at = t ? rest.indexOf(t) : -1;
    if (at < 0) continue;
    rest = rest.slice(0, at) + rest.slice(at + t.length);
    any = true;
  }
  return any && !/[\p{L}\p{N}]/u.test(rest);
}

function clip(s: string): string {
  if (s.length <= MAX_CHARS) return s;
  return `${s.slice(0, MAX_CHARS - 1)}…`;
}
