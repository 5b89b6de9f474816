import type { Protocol } from "devtools-protocol";
import type { CdpSession } from "../../cdp/session.ts";
import { MARK_LISTENED } from "../../page/runtime.ts";
import { pageObject, worldContextId } from "../world.ts";

/** Event types that make an element act like a button when a script listens for them. */
const ACTIVATING = new Set(["click", "mousedown", "mouseup", "pointerdown", "pointerup", "touchstart", "touchend"]);

/** At most this many listened-to elements are handed to the page per snapshot: bounded work on any page. */
const MAX_MARKED = 300;

const GROUP = "bp-listeners";

/**
 * Clickables bound only through addEventListener are invisible to the in-page walk. One
 * DOMDebugger.getEventListeners call on the document (whole subtree, through shadow roots)
 * lists every listener with the node it sits on; the nodes with activating listeners are
 * resolved into our isolated world and recorded there for the walk, which then treats them
 * like an onclick attribute: the same visibility, inert and size checks keep hidden ones out.
 * Best effort: a page where this fails is observed exactly as before.
 */
export async function markListenedElements(session: CdpSession, frameId: string): Promise<void> {
  let docId: string | undefined;
  try {
    // Through the page runtime, which finds our world again after a navigation (then the cached
    // context id is the current one) and is installed there for the marks below.
    docId = await pageObject(session, frameId, "document");
    if (!docId) return;
    const executionContextId = await worldContextId(session, frameId);
    // Listeners are read through the page's own wrapper of the document: asked through our
    // world's wrapper, Chromium stalls the next script run in that world.
    const { node } = await session.send("DOM.describeNode", { objectId: docId });
    const pageDoc = await session.send("DOM.resolveNode", { backendNodeId: node.backendNodeId, objectGroup: GROUP });
    if (!pageDoc.object.objectId) return;
    const { listeners } = await session.send("DOMDebugger.getEventListeners", { objectId: pageDoc.object.objectId, depth: -1, pierce: true }, { timeoutMs: 3000 });
    const nodes = activatingNodes(listeners);
    const resolved = await Promise.all(
      nodes.map((backendNodeId) =>
        session
          .send("DOM.resolveNode", { backendNodeId, executionContextId, objectGroup: GROUP })
          .then((r) => r.object.objectId)
          .catch(() => undefined),
      ),
    );
    await session.send("Runtime.callFunctionOn", {
      objectId: docId,
      functionDeclaration: MARK_LISTENED,
      arguments: resolved.filter((id): id is string => id !== undefined).map((objectId) => ({ objectId })),
      returnByValue: true,
    });
  } catch {
    // Listeners are an extra signal; the walk's own signals still apply.
  } finally {
    if (docId) void session.send("Runtime.releaseObject", { objectId: docId }).catch(() => undefined);
    void session.send("Runtime.releaseObjectGroup", { objectGroup: GROUP }).catch(() => undefined);
  }
}

function activatingNodes(listeners: Protocol.DOMDebugger.EventListener[]): number[] {
  const out: number[] = [];
  const seen = new Set<number>();
  for (const l of listeners) {
    const id = l.backendNodeId;
    if (id === undefined || id === 0 || seen.has(id) || !ACTIVATING.has(l.type)) continue;
    seen.add(id);
    out.push(id);
    if (out.length >= MAX_MARKED) break;
  }
  return out;
}
