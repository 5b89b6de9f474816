import type { CdpSession } from "../../cdp/session.ts";
import { objectInWorld } from "../world.ts";

/** Attributes that say a field opens a widget of suggestions as one types. */
const WIDGET_ATTRS = new Set(["aria-autocomplete", "aria-haspopup", "aria-controls", "aria-owns", "list"]);
/** Listeners on the field itself that run page code on each keystroke. */
const KEY_EVENTS = new Set(["input", "keyup", "keydown", "keypress", "beforeinput"]);

/**
 * Whether typing into this field may make something appear a little later (an autocomplete
 * list after a debounce): a combobox or suggestion attributes, or the page's own key or input
 * listeners on the field. Listeners are read through the page's wrapper of the node (through
 * our world's, Chromium stalls that world's next script run).
 */
export async function expectsLateWidget(frame: { session: CdpSession; frameId: string }): Promise<boolean> {
  const session = frame.session;
  // The field being typed into, as the edit step keeps it in our world.
  const objectId = await objectInWorld(session, frame.frameId, `function (win) { var s = win[Symbol.for("browser-pilot.edit.v1")]; return s && s.target ? s.target : null; }`, null).catch(() => undefined);
  if (!objectId) return false;
  try {
    const { node } = await session.send("DOM.describeNode", { objectId });
    const attrs = node.attributes ?? [];
    for (let i = 0; i + 1 < attrs.length; i += 2) {
      const name = (attrs[i] ?? "").toLowerCase();
      const value = (attrs[i + 1] ?? "").toLowerCase();
      if (WIDGET_ATTRS.has(name) && value !== "false" && value !== "none") return true;
      if (name === "role" && value === "combobox") return true;
      if (name === "type" && value === "search") return true;
    }
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
