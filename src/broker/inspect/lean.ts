/**
 * What `search` and `find` reply per match: only what carries information (no index; in-view and enabled only when
 * false; no text repeating the query or name; no empty name or attributes).
 */
import type { FoundElement } from "../../page/inspect/find.ts";
import type { SearchMatch } from "../../page/inspect/search.ts";

export interface LeanMatch {
  text?: string;
  context: string;
  tagName: string;
  visible?: false;
  x: number;
  y: number;
  width: number;
  height: number;
  f?: string;
  r?: number;
  container?: number;
}

export function leanMatch(m: SearchMatch, query: string): LeanMatch {
  return {
    ...(m.text !== query ? { text: m.text } : {}),
    context: m.context,
    tagName: m.tagName,
    ...(m.visible ? {} : { visible: false as const }),
    x: m.x,
    y: m.y,
    width: m.width,
    height: m.height,
    ...(m.f !== undefined ? { f: m.f } : {}),
    ...(m.r !== undefined ? { r: m.r } : {}),
    ...(m.container !== undefined ? { container: m.container } : {}),
  };
}

export interface LeanElement {
  tagName: string;
  role: string;
  name?: string;
  text?: string;
  visible?: false;
  enabled?: false;
  x: number;
  y: number;
  width: number;
  height: number;
  attributes?: { name: string; value: string }[];
  f?: string;
  r?: number;
  container?: number;
}

export function leanElement(e: FoundElement & { f?: string; r?: number; container?: number }): LeanElement {
  return {
    tagName: e.tagName,
    role: e.role,
    ...(e.name ? { name: e.name } : {}),
    ...(e.text && e.text !== e.name ? { text: e.text } : {}),
    ...(e.visible ? {} : { visible: false as const }),
    ...(e.enabled ? {} : { enabled: false as const }),
    x: e.x,
    y: e.y,
    width: e.width,
    height: e.height,
    ...(e.attributes.length > 0 ? { attributes: e.attributes } : {}),
    ...(e.f !== undefined ? { f: e.f } : {}),
    ...(e.r !== undefined ? { r: e.r } : {}),
    ...(e.container !== undefined ? { container: e.container } : {}),
  };
}
