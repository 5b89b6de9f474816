import type { CdpSession } from "../cdp/session.ts";
import { PageSession } from "./page-session.ts";

/**
 * Where our last pointer event left the mouse in a tab: a click at that very point sends no
 * move first, as a person clicking again without moving sends none. Forgotten when the main
 * frame commits a new document, on a drag's move, and when anything else may move the pointer.
 * Used only where nobody else can move this tab's mouse (see `onlyOursMoves`).
 */

/**
 * Tells whether only the broker moves this tab's mouse now, asked at each click (a tab's origin
 * can change). A session never told is treated as one a person may move the mouse in.
 */
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
