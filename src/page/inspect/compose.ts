/** The iframe elements the last inspect run left on the window, found again by slot for the broker. */
import type { PageElement, PageWindow } from "../types.ts";

export function pageFrameElement(win: PageWindow, slot: number): PageElement | null {
  const list = Reflect.get(win, Symbol.for("browser-pilot.inspect-frames.v1")) as PageElement[] | undefined;
  return (list && typeof slot === "number" && list[slot]) || null;
}

/** The iframe element hosting the same-origin frame of a match (slot `MatchPlace.host`). */
export function pageHostElement(win: PageWindow, slot: number): PageElement | null {
  const list = Reflect.get(win, Symbol.for("browser-pilot.inspect-hosts.v1")) as PageElement[] | undefined;
  return (list && typeof slot === "number" && list[slot]) || null;
}
