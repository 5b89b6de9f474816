import type { CdpSession } from "../../cdp/session.ts";
import { pageObject } from "../world.ts";

/** Listeners on the field itself that run page code on each keystroke. */
const KEY_EVENTS = new Set(["input", "keyup", "keydown", "keypress", "beforeinput"]);

/**
 * Whether the page runs its own code on each keystroke in this field (key or input listeners
 * on the field): typing that changed nothing at once may still make something appear after a
 * debounce. Fields that say they offer suggestions are told by the edit step itself
 * (`Prepared.suggests`). Listeners are read through the page's wrapper of the node (through
 * our world's, Chromium stalls that world's next script run).
 */
export async function listensToKeys(frame: { session: CdpSession; frameId: string }): Promise<boolean> {
  const session = frame.session;
  // The field being typed into, as the edit step keeps it in our world.
  const objectId = await pageObject(session, frame.frameId, "editedElement").catch(() => undefined);
  if (!objectId) return false;
  try {
    const { node } = await session.send("DOM.describeNode", { objectId });
    const page = await session.send("DOM.resolveNode", { backendNodeId: node.backendNodeId, objectGroup: "bp-widget" });
    if (!page.object.objectId) return false;
    const { listeners } = await session.send("DOMDebugger.getEventListeners", { objectId: page.object.objectId, depth: 0 }, { timeoutMs: 2_000 });
    return listeners.some((l) => KEY_EVENTS.has(l.type));
  } catch {
    return false;
  } finally {
    void session.send("Runtime.releaseObject", { objectId }).catch(() => undefined);
    void session.send("Runtime.releaseObjectGroup", { objectGroup: "bp-widget" }).catch(() => undefined);
  }
}
