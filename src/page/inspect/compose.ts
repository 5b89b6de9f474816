/**
 * Builds the injectable source of an inspect page script: the text of every shared helper and
 * of the script's entry function, stitched into one function expression (as `SNAPSHOT_SOURCE`
 * is). The helpers are plain function declarations, so the entry function finds them by the
 * names its call sites use, also after the bundler's minifier renamed them (one symbol, one
 * name). `source.test.ts` checks the list is complete and that the stitched text runs alone.
 */
import type { PageElement, PageWindow } from "../types.ts";
import { cut, cutText, inspectDom, num, px, safe, str, tagOf } from "./dom.ts";
import { contentOrigin, docOffset, enterFrame, finishFrames, frameState, matchPlace, pushKids } from "./tree.ts";

/** Every helper the inspect scripts share. */
export const INSPECT_HELPERS: readonly ((...args: never[]) => unknown)[] = [
  inspectDom,
  tagOf,
  str,
  num,
  px,
  cut,
  cutText,
  safe,
  frameState,
  enterFrame,
  contentOrigin,
  docOffset,
  finishFrames,
  matchPlace,
  pushKids,
];

/** An expression evaluating to `main`, with every shared helper declared beside it. */
export function inspectSource(main: (...args: never[]) => unknown): string {
  return `(function () {\n${INSPECT_HELPERS.map(String).join("\n")}\n${String(main)}\nreturn ${main.name};\n})()`;
}

/** The iframe element at `slot` of the list the last inspect run left on this window. */
export function pageFrameElement(win: PageWindow, slot: number): PageElement | null {
  const list = Reflect.get(win, Symbol.for("browser-pilot.inspect-frames.v1")) as PageElement[] | undefined;
  return (list && typeof slot === "number" && list[slot]) || null;
}

export const FRAME_ELEMENT_SOURCE = `(${pageFrameElement.toString()})`;

/** The iframe element hosting the same-origin frame of a match (slot `MatchPlace.host`). */
export function pageHostElement(win: PageWindow, slot: number): PageElement | null {
  const list = Reflect.get(win, Symbol.for("browser-pilot.inspect-hosts.v1")) as PageElement[] | undefined;
  return (list && typeof slot === "number" && list[slot]) || null;
}

export const HOST_ELEMENT_SOURCE = `(${pageHostElement.toString()})`;
