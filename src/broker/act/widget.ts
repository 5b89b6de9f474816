import type { CdpSession } from "../../cdp/session.ts";
import { pageObject } from "../world.ts";

/** Listeners on the field itself that run page code on each keystroke. */
const KEY_EVENTS = new Set(["input", "keyup", "keydown", "keypress", "beforeinput"]);

/** Each question's own handles: one a dialog raced out of its wait may still be releasing them when the next begins. */
let asked = 0;

/** The focused element in the page's own world, through open shadow roots. */
const WALK =
  "let a = document.activeElement; while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;";
const DEEP_ACTIVE = `(() => { ${WALK} return a; })()`;

/**
 * Whether that element has key or input listeners of its own, in one call: the console's `getEventListeners` passes
 * the side-effect check, as the native getters do (a replaced getter fails it). `null` without an active element
 * (with nothing focused it is the body).
 */
const FOCUSED_LISTENS = `(() => { ${WALK} if (!a) return null; const l = getEventListeners(a); return ${JSON.stringify([...KEY_EVENTS])}.some((t) => (l[t] || []).length > 0); })()`;

/**
 * Whether the page world's focused element has key or input listeners of its own, in one round trip (a field in its
 * session's top frame that has focus: the read-back says so). Undefined when the page cannot tell: the caller asks
 * the long way.
 */
export async function focusedListensToKeys(session: CdpSession): Promise<boolean | undefined> {
  try {
    const r = await session.send(
      "Runtime.evaluate",
      {
        expression: FOCUSED_LISTENS,
        includeCommandLineAPI: true,
        returnByValue: true,
        throwOnSideEffect: true,
        timeout: 500,
        silent: true,
      },
      { timeoutMs: 2_000 },
    );
    return !r.exceptionDetails && typeof r.result.value === "boolean" ? r.result.value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether the page runs code on each keystroke in this field (key or input listeners on it): typing that changed
 * nothing may still show something after a debounce. Listeners are read through the page world's node (through ours,
 * Chromium stalls our world's next script). Two round trips when the field is in its session's top frame and focused;
 * otherwise two more to resolve it into the page's world. Never rejects (a failure is "no"): type races it with a
 * dialog and may not await it.
 */
export async function listensToKeys(frame: { session: CdpSession; frameId: string }, top: boolean): Promise<boolean> {
  const session = frame.session;
  const GROUP = `bp-widget-${++asked}`;
  // The field being typed into, as the edit step keeps it in our world.
  const ours = pageObject(session, frame.frameId, "editedElement").catch(() => undefined);
  // In a session's top frame the default context is the page's world. Native getters only: a replaced getter fails the
  // side-effect check, and the time bound holds against one that never returns.
  const focused = top
    ? session
        .send(
          "Runtime.evaluate",
          { expression: DEEP_ACTIVE, objectGroup: GROUP, returnByValue: false, throwOnSideEffect: true, timeout: 500 },
          { timeoutMs: 2_000 },
        )
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
  const { listeners } = await session.send(
    "DOMDebugger.getEventListeners",
    { objectId, depth: 0 },
    { timeoutMs: 2_000 },
  );
  return listeners.some((l) => KEY_EVENTS.has(l.type));
}
