import type { CdpSession } from "../cdp/session.ts";

/**
 * Where our last pointer event left the mouse in a tab (by its session): a click at that very
 * point sends no move first, as a person clicking again without moving the mouse sends none
 * (the browser hit-tests the press itself, boundary events included when what lies under the
 * pointer changed). Forgotten when the tab's main frame commits a new document, when a move
 * carries a held button (a drag), and when anything else moves the pointer (human control).
 * Used only where nobody else can move this tab's mouse (see `onlyOursMoves`).
 */
const pointers = new WeakMap<CdpSession, { x: number; y: number }>();
const watching = new WeakSet<CdpSession>();
const onlyOurs = new WeakMap<CdpSession, () => boolean>();

/**
 * Tells whether only the broker moves this tab's mouse now. Asked at each click, as a tab's
 * origin can change (the launched browser's blank tab becomes the person's once they use it).
 * A session never told is treated as one a person may move the mouse in.
 */
export function onlyOursMoves(session: CdpSession, test: () => boolean): void {
  onlyOurs.set(session, test);
}

export function notePointer(session: CdpSession, x: number, y: number): void {
  if (!watching.has(session)) {
    watching.add(session);
    session.on("Page.frameNavigated", ({ frame }) => {
      if (frame.parentId === undefined) pointers.delete(session);
    });
  }
  pointers.set(session, { x, y });
}

/** Something other than a click or plain move of ours moved the pointer (or may have). */
export function forgetPointer(session: CdpSession): void {
  pointers.delete(session);
}

/**
 * Whether our last pointer event in the tab left the mouse at exactly this point, and nobody
 * else can have moved it since: a real mouse moves the page's pointer without telling us.
 */
export function pointerAt(session: CdpSession, x: number, y: number): boolean {
  const p = pointers.get(session);
  return p !== undefined && p.x === x && p.y === y && onlyOurs.get(session)?.() === true;
}
