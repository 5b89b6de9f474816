import type { CdpSession } from "../cdp/session.ts";
import { PageSession } from "./page-session.ts";

/**
 * A click where our last pointer event left the mouse sends no move first, as a person's
 * second click sends none; only where nobody else can move this tab's mouse.
 */

/** Asked at each click (a tab's origin can change); a session never told may have a person's mouse. */
export function onlyOursMoves(session: CdpSession, test: () => boolean): void {
  PageSession.of(session).onlyOurs = test;
}

export function notePointer(session: CdpSession, x: number, y: number): void {
  const ps = PageSession.of(session);
  if (!ps.pointerWatched) {
    ps.pointerWatched = true;
    session.on("Page.frameNavigated", ({ frame }) => {
      if (frame.parentId === undefined) ps.pointer = undefined;
    });
  }
  ps.pointer = { x, y };
}

/** Something other than a click or plain move of ours moved the pointer (or may have). */
export function forgetPointer(session: CdpSession): void {
  const ps = PageSession.peek(session);
  if (ps) ps.pointer = undefined;
}

/** Whether our last pointer event left the mouse at exactly this point, and nobody else can have moved it since. */
export function pointerAt(session: CdpSession, x: number, y: number): boolean {
  const ps = PageSession.peek(session);
  const p = ps?.pointer;
  return p !== undefined && p.x === x && p.y === y && ps?.onlyOurs?.() === true;
}
