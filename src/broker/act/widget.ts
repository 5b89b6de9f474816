import type { CdpSession } from "../../cdp/session.ts";
import { pageObject } from "../world.ts";

/** Listeners on the field itself that run page code on each keystroke. */
const KEY_EVENTS = new Set(["input", "keyup", "keydown", "keypress", "beforeinput"]);

const GROUP = "bp-widget";

/** The focused element in the page's own world, through open shadow roots. */
const DEEP_ACTIVE = "(() => { let a = document.activeElement; while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement; return a; })()";

/**
 * Whether the page runs its own code on each keystroke in this field (key or input listeners
 * on the field): typing that changed nothing at once may still make something appear after a
 * debounce. Fields that say they offer suggestions are told by the edit step itself
 * (`Prepared.suggests`). Listeners are read through the page's wrapper of the node (through
 * our world's, Chromium stalls that world's next script run).
 *
 * Two round trips when the field is in its session's top frame (`top`) and still has focus:
 * the field as our world keeps it and the page world's focused element are asked together,
 * then both are described and the focused one's listeners read together; when they are the
 * same node, those listeners are the field's. Otherwise the field is resolved into the page's
 * world first (two more).
 */
export async function listensToKeys(frame: { session: CdpSession; frameId: string }, top: boolean): Promise<boolean> {
  const session = frame.session;
  // The field being typed into, as the edit step keeps it in our world.
  const ours = pageObject(session, frame.frameId, "editedElement").catch(() => undefined);
  // In a session's top frame the default context is the page's own world. Native getters only:
  // a getter the page replaced with its own code fails the side-effect check (the slow path
  // then asks), and the time bound holds against one that never returns.
  const focused = top
    ? session
        .send("Runtime.evaluate", { expression: DEEP_ACTIVE, objectGroup: GROUP, returnByValue: false, throwOnSideEffect: true, timeout: 500 }, { timeoutMs: 2_000 })
        .then((r) => (!r.exceptionDetails && r.result.subtype === "node" ? r.result.objectId : undefined))
        .catch(() => undefined)
    : Promise.resolve(undefined);
  const [objectId, pageId] = await Promise.all([ours, focused]);
  try {
    if (!objectId) return false;
    const [mine, theirs, heard] = await Promise.all([
      session.send("DOM.describeNode", { objectId }),
      pageId ? session.send("DOM.describeNode", { objectId: pageId }).catch(() => undefined) : undefined,
      pageId ? listenersOf(session, pageId).catch(() => undefined) : undefined,
    ]);
    if (theirs && heard !== undefined && theirs.node.backendNodeId === mine.node.backendNodeId) return heard;
    const page = await session.send("DOM.resolveNode", { backendNodeId: mine.node.backendNodeId, objectGroup: GROUP });
    return page.object.objectId ? await listenersOf(session, page.object.objectId) : false;
  } catch {
    return false;
  } finally {
    if (objectId) void session.send("Runtime.releaseObject", { objectId }).catch(() => undefined);
    void session.send("Runtime.releaseObjectGroup", { objectGroup: GROUP }).catch(() => undefined);
  }
}

async function listenersOf(session: CdpSession, objectId: string): Promise<boolean> {
  const { listeners } = await session.send("DOMDebugger.getEventListeners", { objectId, depth: 0 }, { timeoutMs: 2_000 });
  return listeners.some((l) => KEY_EVENTS.has(l.type));
}
