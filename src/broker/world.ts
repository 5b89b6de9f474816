import type { Protocol } from "devtools-protocol";
import type { CdpSession } from "../cdp/session.ts";
import { INSTALL_AND_OBJECT, INSTALL_AND_RUN, INSTALL_ON_NEW_DOCUMENT, INSTALL_MARK_AND_RUN, MARK_AND_RUN, MISSING, OBJECT, readReply, RUN, type PageObjectFn, type PageReply, type PageStep } from "../page/runtime.ts";
import type { MarkExtra } from "../page/snapshot/listener-mark.ts";
import { BpError } from "../shared/errors.ts";
import { cutString } from "../shared/page-strings.ts";

/** Our isolated world: the page cannot see or change it, and it dies with its document. */
export const WORLD_NAME = "browser-pilot";

/**
 * Execution context of our world per session and frame, which saves a round trip on every
 * page call. Context ids are numbered per renderer process, so after a navigation that moved
 * the tab to another process (an error page, a site change, a download that began as a
 * navigation) a cached id can name a different frame's world in the new process: running
 * "the main frame's" snapshot there showed only an iframe's document. So a frame's entry is
 * dropped whenever that frame navigates or detaches, and every entry when the main frame
 * navigates; a stale id that fails with "Cannot find context" is looked up again.
 */
const contexts = new WeakMap<CdpSession, Map<string, number>>();

/**
 * Navigation events seen per session and frame (started, committed, detached), counted from
 * the first call into the session: two equal counts mean no such event arrived in between.
 */
const navigations = new WeakMap<CdpSession, Map<string, number>>();

/** Sessions whose new documents get the runtime from the browser (`installOnNewDocuments`). */
const autoInstalled = new WeakSet<CdpSession>();

/**
 * Per session and frame, the frame's navigation count at its latest commit seen since the
 * browser installs the runtime: while the count holds, the frame's document has it.
 */
const commits = new WeakMap<CdpSession, Map<string, number>>();

function contextsOf(session: CdpSession): Map<string, number> {
  let byFrame = contexts.get(session);
  if (byFrame) return byFrame;
  const map = new Map<string, number>();
  const navs = new Map<string, number>();
  const committed = new Map<string, number>();
  contexts.set(session, map);
  navigations.set(session, navs);
  commits.set(session, committed);
  const seen = (frameId: string) => navs.set(frameId, (navs.get(frameId) ?? 0) + 1);
  session.on("Page.frameNavigated", ({ frame }) => {
    seen(frame.id);
    if (autoInstalled.has(session)) committed.set(frame.id, navs.get(frame.id) ?? 0);
    if (frame.parentId === undefined) map.clear();
    else map.delete(frame.id);
  });
  session.on("Page.frameDetached", ({ frameId }) => {
    seen(frameId);
    map.delete(frameId);
  });
  session.on("Page.frameStartedNavigating", ({ frameId }) => {
    seen(frameId);
    map.delete(frameId);
  });
  byFrame = map;
  return byFrame;
}

/**
 * How many navigation events of the frame this session has delivered so far. Read before a
 * question to the browser and again after the answer: equal counts mean the frame did not
 * navigate meanwhile (CDP delivers a session's events and replies in order).
 */
export function navigationCount(session: CdpSession, frameId: string): number {
  contextsOf(session);
  return navigations.get(session)?.get(frameId) ?? 0;
}

/** Lookups of our world's context on their way, per session and frame: a second caller waits for the first. */
const asking = new WeakMap<CdpSession, Map<string, Promise<number>>>();

async function worldContext(session: CdpSession, frameId: string, opts: { timeoutMs?: number }, fresh: boolean): Promise<number> {
  const byFrame = contextsOf(session);
  const known = byFrame.get(frameId);
  if (known !== undefined && !fresh) return known;
  let pending = asking.get(session);
  if (!pending) asking.set(session, (pending = new Map()));
  const out = pending.get(frameId);
  if (out && !fresh) return out;
  const navs = navigationCount(session, frameId);
  // Page.createIsolatedWorld hands back the existing world for the same frame and name.
  const ask = session.send("Page.createIsolatedWorld", { frameId, worldName: WORLD_NAME, grantUniveralAccess: false }, opts).then(({ executionContextId }) => {
    // Kept only if the frame did not navigate while the question was out (the id may be the old document's).
    if (navigationCount(session, frameId) === navs) {
      byFrame.set(frameId, executionContextId);
      // A document committed since the browser installs the runtime: its world has it already.
      if (commits.get(session)?.get(frameId) === navs) installedIn(session).add(executionContextId);
    }
    return executionContextId;
  });
  pending.set(frameId, ask);
  const done = () => {
    if (pending.get(frameId) === ask) pending.delete(frameId);
  };
  ask.then(done, done);
  return ask;
}

/** Whether our world's context in the frame is known and no navigation of the frame was seen since. */
export function worldKnown(session: CdpSession, frameId: string): boolean {
  return contexts.get(session)?.has(frameId) === true;
}

/** Our isolated world's execution context in a frame, for CDP calls that take a context id. */
export function worldContextId(session: CdpSession, frameId: string): Promise<number> {
  return worldContext(session, frameId, {}, false);
}

function isLostContext(err: unknown): boolean {
  return err instanceof Error && /Cannot find context|context with specified id|Execution context was destroyed/i.test(err.message);
}

/** A call bound to one document (`inDocument`) whose document went away while it ran. */
class LeftDocument extends Error {}

/**
 * A lost context is looked up again and the call repeated, in whatever document the frame
 * holds then; with `inDocument`, not when the frame navigated since the call was sent: the
 * call was for the document that went (`LeftDocument`).
 */
async function callInWorld(session: CdpSession, frameId: string, opts: { timeoutMs?: number; inDocument?: boolean }, call: (contextId: number) => Promise<unknown>): Promise<unknown> {
  const navs = navigationCount(session, frameId);
  const cdp = opts.timeoutMs === undefined ? {} : { timeoutMs: opts.timeoutMs };
  try {
    return await call(await worldContext(session, frameId, cdp, false));
  } catch (err) {
    if (!isLostContext(err)) throw err;
    if (opts.inDocument && navigationCount(session, frameId) !== navs) throw new LeftDocument();
    return call(await worldContext(session, frameId, cdp, true));
  }
}

function objectOf(res: Protocol.Runtime.CallFunctionOnResponse): string | undefined {
  if (res.exceptionDetails || res.result.subtype === "null" || res.result.type === "undefined") return undefined;
  return res.result.objectId;
}

/** Execution contexts (per session) that hold the page runtime already. */
const installed = new WeakMap<CdpSession, Set<number>>();

function installedIn(session: CdpSession): Set<number> {
  let byCtx = installed.get(session);
  if (!byCtx) installed.set(session, (byCtx = new Set()));
  return byCtx;
}

/**
 * Has the browser install the runtime in our world of every document the session's frames
 * commit from now on, before any call: a new document's first call then carries no page code,
 * and Chromium compiles the runtime through its code cache instead of anew for every document
 * (about 5 ms of a small page's first snapshot). Documents that were there before still get it
 * with their first call. The registration ends with the session.
 */
export async function installOnNewDocuments(session: CdpSession): Promise<void> {
  contextsOf(session);
  try {
    await session.send("Page.addScriptToEvaluateOnNewDocument", { source: INSTALL_ON_NEW_DOCUMENT, worldName: WORLD_NAME });
    autoInstalled.add(session);
  } catch {
    // A browser that will not: every world gets the runtime with its first call, as before.
  }
}

/**
 * Runs steps of the page runtime in one frame's world, in one round trip: the runtime's
 * source goes along only the first time a world is used, later calls name the functions.
 * With `doc`, nothing runs in another document (the reply says `otherDocument`); with
 * `inDocument`, the steps are for the document the frame holds now: if it goes away while they
 * run, they are not run again in the next one (the reply says `otherDocument`, with no token).
 */
export async function callPage(session: CdpSession, frameId: string, steps: PageStep[], opts: { doc?: string; inDocument?: boolean; userGesture?: boolean; timeoutMs?: number; mark?: string[]; mk?: MarkExtra } = {}): Promise<PageReply> {
  const call = { steps, ...(opts.doc ? { doc: opts.doc } : {}), ...(opts.mark && opts.mk ? { mk: opts.mk } : {}) };
  const { mark, doc, inDocument, mk: _mk, ...rest } = opts;
  // With `mark` (element handles in our world): the click-listener marks are made first, in the same call.
  const fns = mark ? { run: MARK_AND_RUN, install: INSTALL_MARK_AND_RUN, objects: mark } : { run: RUN, install: INSTALL_AND_RUN };
  let res: Protocol.Runtime.CallFunctionOnResponse;
  try {
    // A call for one document (by its token) would only answer otherDocument in the next one.
    res = await sendPage(session, frameId, call, { ...fns, byValue: true, ...rest, inDocument: inDocument === true || doc !== undefined }, (r) => (r.result.value as { missing?: boolean } | undefined)?.missing === true);
  } catch (err) {
    if (err instanceof LeftDocument) return { doc: "", otherDocument: true, results: [] };
    throw err;
  }
  if (res.exceptionDetails) {
    const text = res.exceptionDetails.exception?.description ?? res.exceptionDetails.text;
    throw new BpError("internal_error", `Page script failed: ${cutString(text.split("\n")[0] ?? "error", 300)}`, { context: { frameId: "redacted" } });
  }
  const reply = readReply(res.result.value);
  if ("missing" in reply) throw new BpError("internal_error", "Page runtime missing after its installation.", { context: { frameId: "redacted" } });
  return reply;
}

/**
 * Sends the runtime to the frame's world now, if this world has not been sent it: a new
 * document's first snapshot installs it while the listener lookup is out, instead of carrying
 * its source (and Chromium's compile of it) in the snapshot call.
 */
export function installAhead(session: CdpSession, frameId: string): void {
  const ctx = contexts.get(session)?.get(frameId);
  if (ctx !== undefined && installed.get(session)?.has(ctx)) return;
  callPage(session, frameId, []).catch(() => undefined);
}

/**
 * Runs one page-library function that answers with a page object (an element, the document)
 * and keeps it as a remote object, for CDP calls that take one; installs the runtime like callPage.
 */
export async function pageObject(session: CdpSession, frameId: string, fn: PageObjectFn, arg: unknown = null): Promise<string | undefined> {
  const res = await sendPage(session, frameId, { fn, arg }, { run: OBJECT, install: INSTALL_AND_OBJECT, byValue: false }, (r) => r.result.value === MISSING);
  return objectOf(res);
}

interface SendOptions {
  run: string;
  install: string;
  /** Remote objects passed after the call's argument. */
  objects?: string[];
  byValue: boolean;
  userGesture?: boolean;
  timeoutMs?: number;
  inDocument?: boolean;
}

/** One call into the runtime: with its source only when this world has not been sent it yet. */
async function sendPage(session: CdpSession, frameId: string, arg: unknown, o: SendOptions, missing: (r: Protocol.Runtime.CallFunctionOnResponse) => boolean): Promise<Protocol.Runtime.CallFunctionOnResponse> {
  const known = installedIn(session);
  const cdpOpts = o.timeoutMs === undefined ? {} : { timeoutMs: o.timeoutMs };
  const worldOpts = o.inDocument ? { ...cdpOpts, inDocument: true } : cdpOpts;
  const send = async (contextId: number, install: boolean): Promise<Protocol.Runtime.CallFunctionOnResponse> =>
    session.send(
      "Runtime.callFunctionOn",
      {
        functionDeclaration: install ? o.install : o.run,
        executionContextId: contextId,
        arguments: [{ value: arg }, ...(o.objects ?? []).map((objectId) => ({ objectId }))],
        returnByValue: o.byValue,
        awaitPromise: true,
        ...(o.userGesture ? { userGesture: true } : {}),
      },
      cdpOpts,
    );
  return (await callInWorld(session, frameId, worldOpts, async (contextId) => {
    const install = !known.has(contextId);
    // Counted as installed once the installing call is sent: a session's calls run in order, so
    // a later one finds the runtime there (and if not, it answers missing and installs it).
    known.add(contextId);
    let r = await send(contextId, install);
    if (!r.exceptionDetails && missing(r)) r = await send(contextId, true);
    return r;
  })) as Protocol.Runtime.CallFunctionOnResponse;
}
