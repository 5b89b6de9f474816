/**
 * Small pure helpers of the snapshot engine. Modules here run in the page: built-ins and each other only, never the
 * page's globals.
 */
import type { Box, PageElement, PageRect } from "../types.ts";
import type { Attrs, Clip, Ctx, Words } from "./types.ts";

export function words(s: string): Words {
  const m: Words = Object.create(null);
  const parts = s.split(" ");
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i];
    if (p) m[p] = true;
  }
  return m;
}

// Page strings can be megabytes long: bound them before any whole-string work.
export function bound(s: string, max: number): string {
  return s.length > max ? s.slice(0, max) : s;
}

export function collapse(s: string): string {
  return bound(s, 8192).replace(/\s+/g, " ").trim();
}

export function cut(s: string, max: number): string {
  if (s.length <= max) return s;
  let end = max - 1;
  const c = s.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--;
  return `${s.slice(0, end)}…`;
}

export function attr(el: PageElement, n: string): string | null {
  const v = el.getAttribute(n);
  return typeof v === "string" ? v : null;
}

export function lower(s: unknown): string {
  return typeof s === "string" ? s.toLowerCase() : "";
}

// Attributes are read once per element: most have none (one cheap hasAttributes), and one pass beats many getAttribute
// calls.
export function readAttrs(el: PageElement, none: Attrs): Attrs {
  if (!el.hasAttributes()) return none;
  // getAttributeNames, unlike `attributes`, does not make Blink create Attr nodes on the page.
  const list = el.getAttributeNames();
  const m: Attrs = Object.create(null);
  for (let i = 0; i < list.length && i < 64; i++) {
    const a = list[i];
    if (a) m[lower(a)] = String(el.getAttribute(a));
  }
  return m;
}

export function px(s: string): number {
  const n = parseFloat(s);
  return n === n ? n : 0;
}

export function num0(v: unknown): number {
  return typeof v === "number" && v === v ? v : 0;
}

export function clampInt(v: unknown, d: number, lo: number, hi: number): number {
  const n = typeof v === "number" && v === v ? Math.floor(v) : d;
  return n < lo ? lo : n > hi ? hi : n;
}

export function inter(a: Clip, b: Clip): Clip {
  return {
    l: a.l > b.l ? a.l : b.l,
    t: a.t > b.t ? a.t : b.t,
    r: a.r < b.r ? a.r : b.r,
    b: a.b < b.b ? a.b : b.b,
  };
}

export function boxOf(r: PageRect, ctx: Ctx): Box {
  return {
    x: Math.round(r.left + ctx.fx),
    y: Math.round(r.top + ctx.fy),
    w: Math.round(r.width),
    h: Math.round(r.height),
  };
}
