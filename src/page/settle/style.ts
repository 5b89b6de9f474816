/**
 * Style rewrites no snapshot reads: a JS fade (jQuery's fadeIn, an opacity tween) rewrites an
 * element's style attribute every frame, and a settle that counted each one would wait out the
 * whole animation although the element's content and visibility were decided at its first frame.
 * A rewrite counts unless it changes only repaint properties, or raises an opacity already above
 * zero (the snapshot reads opacity only as zero or not, and a rising one never gets there).
 * Anything else (display, size, position, a transform, an opacity leaving zero or falling, as a
 * fade-out's does on its way to zero) still counts.
 */
import type { ActWindow } from "../act/dom.ts";
import { PAINT } from "./paint.ts";

/** Longhands as a style declaration lists them: the repaint-only keyframe names, kebab-cased. */
const PAINT_CSS = new Set<string>();
for (const p of PAINT) PAINT_CSS.add(p.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`));

interface Decl {
  cssText: string;
  length: number;
  [i: number]: string;
  getPropertyValue(name: string): string;
  getPropertyPriority(name: string): string;
}
interface Styled {
  getAttribute?(name: string): string | null;
}
interface StyleRecord {
  type?: string;
  attributeName?: string | null;
  oldValue?: string | null;
  target?: object;
}

const scratch = new WeakMap<object, { style: Decl } | null>();

/** A detached element of the page's own, to parse declarations with the browser's parser. */
function parser(win: ActWindow): { style: Decl } | null {
  let el = scratch.get(win);
  if (el === undefined) {
    try {
      const doc = win.document as unknown as { createElement(tag: string): { style?: Decl } };
      const made = doc.createElement("div");
      el = made.style ? (made as { style: Decl }) : null;
    } catch {
      el = null;
    }
    scratch.set(win, el);
  }
  return el;
}

function declarations(p: { style: Decl }, text: string): Map<string, string> {
  p.style.cssText = text;
  const out = new Map<string, string>();
  for (let i = 0; i < p.style.length; i++) {
    const name = p.style[i];
    if (name) out.set(name, `${p.style.getPropertyValue(name)}!${p.style.getPropertyPriority(name)}`);
  }
  return out;
}

/** An opacity as a number (a percentage's number will do: only zero and the direction matter); NaN when unreadable. */
const level = (v: string): number => Number.parseFloat(v);

/** What a style rewrite changes, as the settle reads it: both declarations parsed once. */
interface StyleChange {
  /** Nothing the snapshot reads (unreadChange). */
  unread: boolean;
  /** An opacity that went up, whatever else changed (opacityRose). */
  rose: boolean;
  /** Only an opacity taken from zero to above it (fadeStart). */
  start: boolean;
}

const READ: StyleChange = { unread: false, rose: false, start: false };

function styleChange(win: ActWindow, before: string, after: string): StyleChange {
  if (before === after) return { unread: true, rose: false, start: false };
  const p = parser(win);
  if (!p) return READ;
  try {
    const a = declarations(p, before);
    const b = declarations(p, after);
    const ox = a.get("opacity"),
      oy = b.get("opacity");
    const rose = ox !== undefined && oy !== undefined && level(oy) > level(ox);
    let other = false;
    for (const name of new Set([...a.keys(), ...b.keys()])) {
      if (name !== "opacity" && a.get(name) !== b.get(name) && !PAINT_CSS.has(name)) other = true;
    }
    if (other || ox === oy) return { unread: !other, rose, start: false };
    const both = ox !== undefined && oy !== undefined;
    return {
      // A rising opacity above zero never reaches zero; a falling one is a fade-out that may.
      unread: both && level(ox) > 0 && level(oy) >= level(ox),
      rose,
      start: both && level(ox) === 0 && level(oy) > 0,
    };
  } catch {
    return READ;
  }
}

/** Whether going from `before` to `after` changes nothing the snapshot reads. */
export function unreadChange(win: ActWindow, before: string, after: string): boolean {
  return styleChange(win, before, after).unread;
}

/** Whether an opacity went up from `before` to `after`: a fade-in's frame. */
export function opacityRose(win: ActWindow, before: string, after: string): boolean {
  return styleChange(win, before, after).rose;
}

/**
 * Whether going from `before` to `after` only takes an opacity from zero to above it (beside
 * repaint properties): a fade-in's first visible frame, which shows what the rewrite before it put
 * in place.
 */
export function fadeStart(win: ActWindow, before: string, after: string): boolean {
  return styleChange(win, before, after).start;
}

/**
 * The records of one batch that only rewrote styles no snapshot reads (the same set, by index).
 * Each record's new value is the next record's old value for its node, or the attribute now.
 * A node's first rewrite since the watcher armed (`seen`) counts: a tween's first frame may
 * rewrite what was there, before its direction shows. Not for a node `tweening` says the page was
 * rewriting just before the arm (a fade an earlier action started, still under way): its
 * direction showed before, and its next frame is judged as any later one. `starts` gets the
 * records, not a node's first since the arm, that are a fade-in's first visible frame (fadeStart);
 * `rises`, the unread records that raised an opacity (a fade-in's later frames).
 */
export function unreadStyles(
  win: ActWindow,
  list: ArrayLike<unknown>,
  seen: WeakMap<object, true>,
  skip?: (target: object) => boolean,
  tweening?: (target: object) => boolean,
  starts?: Set<number>,
  rises?: Set<number>,
): Set<number> {
  const out = new Set<number>();
  let after: Map<object, string | null> | null = null;
  const next: (string | null)[] = [];
  for (let i = list.length - 1; i >= 0; i--) {
    const r = list[i] as StyleRecord;
    if (r.type !== "attributes" || r.attributeName !== "style" || !r.target) continue;
    after ??= new Map();
    next[i] = after.has(r.target)
      ? (after.get(r.target) ?? null)
      : ((r.target as Styled).getAttribute?.("style") ?? null);
    after.set(r.target, r.oldValue ?? null);
  }
  if (!after) return out;
  for (let i = 0; i < list.length; i++) {
    const r = list[i] as StyleRecord;
    if (r.type !== "attributes" || r.attributeName !== "style" || !r.target || skip?.(r.target)) continue;
    if (!seen.has(r.target)) {
      seen.set(r.target, true);
      if (!tweening?.(r.target)) continue;
    }
    const old = r.oldValue ?? null,
      now = next[i] ?? null;
    if (old === null || now === null) continue;
    const change = styleChange(win, old, now);
    if (change.unread) {
      out.add(i);
      if (change.rose) rises?.add(i);
    } else if (change.start) starts?.add(i);
  }
  return out;
}
