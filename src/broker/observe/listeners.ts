import type { Protocol } from "devtools-protocol";
import type { CdpSession } from "../../cdp/session.ts";
import type { DelegationScan } from "../../page/snapshot/listener-mark.ts";
import { installAhead, navigationCount, pageObject, worldContextId } from "../world.ts";
import type { FrameWorld } from "../frame-world.ts";
import { PageSession, type DocMarks } from "../page-session.ts";
import { delegationScan } from "./delegation.ts";

/** Event types that make an element act like a button when a script listens for them. */
const ACTIVATING = new Set(["click", "mousedown", "mouseup", "pointerdown", "pointerup", "touchstart", "touchend"]);
/** Event types that make an element an HTML5 drop zone, a target for `bp drag`. */
const DROPPING = new Set(["drop", "dragover", "dragenter"]);

/** At most this many listened-to elements are handed to the page per snapshot: bounded work on any page. */
const MAX_MARKED = 300;

/** The latest marking's handles, released when the next one starts. */
const GROUP = "bp-listeners";
/** Each document's page-world handle, kept while the document lives. */
const DOC_GROUP = "bp-page-document";

function stateOf(t: FrameWorld): DocMarks {
  const byDoc = PageSession.of(t.session).marks;
  const key = `${t.frameId}:${t.loaderId}`;
  let s = byDoc.get(key);
  if (!s) {
    for (const k of byDoc.keys()) if (k.startsWith(`${t.frameId}:`)) byDoc.delete(k);
    byDoc.set(key, (s = { marked: false }));
  }
  return s;
}

/** Marks were made in this document: a later snapshot may ask the page whether they still hold. */
export const wasMarked = (t: FrameWorld): boolean =>
  PageSession.peek(t.session)?.marks.get(`${t.frameId}:${t.loaderId}`)?.marked === true;

const keyOf = (l: Listed): string => `${l.nodes.join(",")}/${l.dropAt}/${l.scan ? JSON.stringify(l.scan) : ""}`;

/** The page marked this document from the handles of these listened nodes. */
export function noteMarked(t: FrameWorld, listed: Listed): void {
  const s = stateOf(t);
  s.marked = true;
  s.nodes = keyOf(listed);
  s.framework = (listed.scan?.h.length ?? 0) > 0;
}

/** This document's marks came with framework-clickable elements (React), which it may render anew at any action. */
export const frameworkMarked = (t: FrameWorld): boolean =>
  t.top === true && PageSession.peek(t.session)?.marks.get(`${t.frameId}:${t.loaderId}`)?.framework === true;

/** The browser lists the same listened nodes (and the page world the same delegation) as when the page's marks were made. */
export const sameListened = (t: FrameWorld, listed: Listed): boolean =>
  PageSession.peek(t.session)?.marks.get(`${t.frameId}:${t.loaderId}`)?.nodes === keyOf(listed);

/** After an action that made new controls appear (suggestions after typing): the next observation marks afresh. */
export function forgetMarks(session: CdpSession, frameId: string): void {
  const byDoc = PageSession.peek(session)?.marks;
  if (!byDoc) return;
  for (const [key, s] of byDoc) if (key.startsWith(`${frameId}:`)) s.marked = false;
}

/**
 * Clickables bound only through addEventListener are invisible to the in-page walk: the
 * browser's listener list names them, and their handles go to the page with the snapshot,
 * which treats them like an onclick attribute. Best effort: undefined when this fails.
 */
export async function listenedHandles(t: FrameWorld, known?: Listed): Promise<Listened | undefined> {
  const context = worldContextId(t.session, t.frameId);
  context.catch(() => undefined);
  const listed = known ?? (await listenedNodes(t, () => installAhead(t.session, t.frameId)));
  const handles = listed && (await handlesOf(t, listed.nodes, context));
  if (!listed || !handles) return undefined;
  // Unresolved nodes leave no gap: the drop zones start after the clickables that resolved.
  let at = 0;
  for (let i = 0; i < listed.dropAt; i++) if (handles[i] !== undefined) at++;
  return { ...listed, handles: handles.filter((id): id is string => id !== undefined), handleDropAt: at };
}

/** What the browser and the page world name as listened now. */
export interface Listed {
  /** Backend ids of the listened nodes, in the browser's order (at most MAX_MARKED): clickables, then drop zones from `dropAt`. */
  nodes: number[];
  dropAt: number;
  /** The page world's own record of delegation (jQuery, React), top frames only. */
  scan?: DelegationScan;
}

export interface Listened extends Listed {
  /** Their handles in our world, for the page to mark. */
  handles: string[];
  /** Index in `handles` from which they are drop zones. */
  handleDropAt: number;
}

/** The nodes with activating listeners, as the browser lists them now (one round trip once the document's handle is known). */
export async function listenedNodes(t: FrameWorld, alongside?: () => void): Promise<Listed | undefined> {
  const { session } = t;
  const state = stateOf(t);
  // Asked at the document's load when its handle came at DOMContentLoaded (a navigation's look).
  const ahead = t.top && !state.pageDoc ? takeListenersAhead(t) : undefined;
  // The page world's delegation, asked in the same round trip.
  const scan = ahead ? ahead.scan : t.top ? delegationScan(session) : Promise.resolve(undefined);
  try {
    let listeners: Protocol.DOMDebugger.EventListener[];
    try {
      if (state.pageDoc) dropAhead(t);
      const asked = ahead
        ? ahead.asked.then((a) => {
            state.pageDoc = a.doc;
            return a.listeners;
          })
        : listenersOf(session, (state.pageDoc ??= await pageDocument(t)));
      // Sent after the listener question, so its answer is not held up behind this call's work.
      alongside?.();
      listeners = await asked;
    } catch {
      // The cached handle died with its world (a document.open, a crash): look it up again.
      state.pageDoc = await pageDocument(t);
      listeners = await listenersOf(session, state.pageDoc);
    }
    const { nodes, dropAt } = activatingNodes(listeners);
    const found = await scan;
    return { nodes, dropAt, ...(found ? { scan: found } : {}) };
  } catch {
    state.pageDoc = undefined;
    return undefined;
  }
}

/** The nodes resolved into our world (one round trip); the previous marking's handles are released with it. */
async function handlesOf(
  t: FrameWorld,
  nodes: number[],
  context: Promise<number>,
): Promise<(string | undefined)[] | undefined> {
  const { session } = t;
  try {
    // The previous marking's handles: the page holds its marks by then.
    void session.send("Runtime.releaseObjectGroup", { objectGroup: GROUP }).catch(() => undefined);
    const executionContextId = await context;
    const resolved = await Promise.all(
      nodes.map((backendNodeId) =>
        session
          .send("DOM.resolveNode", { backendNodeId, executionContextId, objectGroup: GROUP })
          .then((r) => r.object.objectId)
          .catch(() => undefined),
      ),
    );
    return resolved;
  } catch {
    return undefined;
  }
}

function listenersOf(session: CdpSession, objectId: string | undefined): Promise<Protocol.DOMDebugger.EventListener[]> {
  if (!objectId) return Promise.reject(new Error("no document"));
  return session
    .send("DOMDebugger.getEventListeners", { objectId, depth: -1, pierce: true }, { timeoutMs: 3000 })
    .then((r) => r.listeners);
}

/**
 * Asks for a top frame's page-world document handle alongside the frame tree (a round trip
 * saved); used only if the frame has not navigated since.
 */
export function documentAhead(session: CdpSession, frameId: string): void {
  const byFrame = PageSession.of(session).docsAhead;
  const navs = navigationCount(session, frameId);
  const asked = byFrame.get(frameId);
  // Asked already in this document (a navigation's look asks before its own observation does).
  if (asked?.navs === navs) return;
  release(session, asked?.objectId);
  byFrame.set(frameId, { navs, objectId: topDocument(session).catch(() => undefined) });
}

/** The handle `documentAhead` asked for, if it is still of the frame's current document. */
async function takeAhead(t: FrameWorld): Promise<string | undefined> {
  const byFrame = PageSession.peek(t.session)?.docsAhead;
  const asked = byFrame?.get(t.frameId);
  if (!asked) return undefined;
  byFrame?.delete(t.frameId);
  const objectId = await asked.objectId;
  if (navigationCount(t.session, t.frameId) === asked.navs) return objectId;
  release(t.session, objectId);
  return undefined;
}

/** How long a listener list asked at a load is taken for that load's look. */
const LISTENERS_AHEAD_MS = 2_000;

/**
 * A navigation's look, at the new document's load: its listener list and delegation scan go out beside the look's
 * first calls (the frame tree, the title) instead of after them, when the page world's document handle was asked at
 * DOMContentLoaded (observe/ahead.ts) and is of this document.
 */
export function listenersAhead(session: CdpSession, frameId: string): void {
  const ps = PageSession.of(session);
  const asked = ps.docsAhead.get(frameId);
  const navs = navigationCount(session, frameId);
  if (!asked || asked.navs !== navs) return;
  const listeners = asked.objectId.then((id) => listenersOf(session, id));
  listeners.catch(() => undefined);
  ps.listenersAhead = { frameId, navs, at: Date.now(), listeners, scan: delegationScan(session) };
}

/** The listener list asked at this document's load, taken once, with the document handle it was asked on. */
function takeListenersAhead(t: FrameWorld):
  | {
      asked: Promise<{ doc: string; listeners: Protocol.DOMDebugger.EventListener[] }>;
      scan: Promise<DelegationScan | undefined>;
    }
  | undefined {
  const ps = PageSession.peek(t.session);
  const ahead = ps?.listenersAhead;
  if (!ps || !ahead || ahead.frameId !== t.frameId) return undefined;
  ps.listenersAhead = undefined;
  const handle = ps.docsAhead.get(t.frameId);
  const navs = navigationCount(t.session, t.frameId);
  if (ahead.navs !== navs || Date.now() - ahead.at > LISTENERS_AHEAD_MS || handle?.navs !== navs) return undefined;
  // The handle goes with the list: this document's later listener queries are made on it.
  ps.docsAhead.delete(t.frameId);
  const asked = handle.objectId.then(async (doc) => {
    if (!doc) throw new Error("no document");
    try {
      return { doc, listeners: await ahead.listeners };
    } catch (err) {
      // The caller asks for a handle of its own then.
      release(t.session, doc);
      throw err;
    }
  });
  return { asked, scan: ahead.scan };
}

/** The list asked for a navigation's look serves that look only: one that did not take it (no time left, a dialog) leaves no list a later observation of the document could take. */
export function dropListenersAhead(session: CdpSession, frameId: string): void {
  const ps = PageSession.peek(session);
  if (ps?.listenersAhead?.frameId === frameId) ps.listenersAhead = undefined;
}

/** A handle asked ahead for a document whose handle is known already. */
function dropAhead(t: FrameWorld): void {
  const byFrame = PageSession.peek(t.session)?.docsAhead;
  const asked = byFrame?.get(t.frameId);
  if (!asked) return;
  byFrame?.delete(t.frameId);
  release(t.session, asked.objectId);
}

function release(session: CdpSession, objectId: Promise<string | undefined> | string | undefined): void {
  void Promise.resolve(objectId).then((id) => {
    if (id) void session.send("Runtime.releaseObject", { objectId: id }).catch(() => undefined);
  });
}

/** In a session's top frame the default context is the page's main world (`document` is unforgeable there). */
async function topDocument(session: CdpSession): Promise<string | undefined> {
  const r = await session.send("Runtime.evaluate", {
    expression: "document",
    objectGroup: DOC_GROUP,
    returnByValue: false,
  });
  return !r.exceptionDetails && r.result.subtype === "node" && r.result.objectId ? r.result.objectId : undefined;
}

/** The page's own wrapper of the document: asked through our world's, Chromium stalls that world's next script. */
async function pageDocument(t: FrameWorld): Promise<string | undefined> {
  const { session, frameId } = t;
  if (t.top) {
    const id = (await takeAhead(t)) ?? (await topDocument(session));
    if (id) return id;
  }
  const docId = await pageObject(session, frameId, "document");
  if (!docId) return undefined;
  try {
    const { node } = await session.send("DOM.describeNode", { objectId: docId });
    return (await session.send("DOM.resolveNode", { backendNodeId: node.backendNodeId, objectGroup: DOC_GROUP })).object
      .objectId;
  } finally {
    void session.send("Runtime.releaseObject", { objectId: docId }).catch(() => undefined);
  }
}

/** Clickables first, then drop zones (not already clickable), MAX_MARKED in all. */
function activatingNodes(listeners: Protocol.DOMDebugger.EventListener[]): { nodes: number[]; dropAt: number } {
  const out: number[] = [];
  const drops: number[] = [];
  const seen = new Set<number>();
  for (const l of listeners) {
    const id = l.backendNodeId;
    if (id === undefined || id === 0 || seen.has(id) || !ACTIVATING.has(l.type)) continue;
    seen.add(id);
    out.push(id);
    if (out.length >= MAX_MARKED) break;
  }
  for (const l of listeners) {
    const id = l.backendNodeId;
    if (out.length + drops.length >= MAX_MARKED) break;
    if (id === undefined || id === 0 || seen.has(id) || !DROPPING.has(l.type)) continue;
    seen.add(id);
    drops.push(id);
  }
  return { nodes: [...out, ...drops], dropAt: out.length };
}
