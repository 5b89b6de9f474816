import type { Protocol } from "devtools-protocol";
import type { CdpSession } from "../cdp/session.ts";
import {
  INSTALL_AND_FOLLOW_ON_NEW_DOCUMENT,
  INSTALL_AND_OBJECT,
  INSTALL_AND_RUN,
  INSTALL_ON_NEW_DOCUMENT,
  INSTALL_MARK_AND_RUN,
  MARK_AND_RUN,
  MISSING,
  OBJECT,
  readReply,
  RUN,
  type PageObjectFn,
  type PageReply,
  type PageStep,
} from "../page/runtime.ts";
import type { MarkExtra } from "../page/snapshot/listener-mark.ts";
import { BpError } from "../shared/errors.ts";
import { cutString } from "../shared/page-strings.ts";
import { PageSession } from "./page-session.ts";

/** Our isolated world: the page cannot see or change it, and it dies with its document. */
export const WORLD_NAME = "browser-pilot";

/**
 * Caches our world's context id per frame (a round trip saved per call). Ids are per renderer
 * process, so an entry goes when its frame navigates or detaches, all when the main frame does.
 */
function contextsOf(session: CdpSession): PageSession {
  const ps = PageSession.of(session);
  if (ps.framesWatched) return ps;
  ps.framesWatched = true;
  const { contexts: map, navigations: navs, commits: committed } = ps;
  const seen = (frameId: string) => navs.set(frameId, (navs.get(frameId) ?? 0) + 1);
  session.on("Page.frameNavigated", ({ frame }) => {
    seen(frame.id);
    if (ps.autoInstalled) committed.set(frame.id, navs.get(frame.id) ?? 0);
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
  return ps;
}

/** Navigation events of the frame so far: equal counts around a question mean it did not navigate meanwhile. */
export function navigationCount(session: CdpSession, frameId: string): number {
  return contextsOf(session).navigations.get(frameId) ?? 0;
}

async function worldContext(
  session: CdpSession,
  frameId: string,
  opts: { timeoutMs?: number },
  fresh: boolean,
): Promise<number> {
  const ps = contextsOf(session);
  const byFrame = ps.contexts;
  const known = byFrame.get(frameId);
  if (known !== undefined && !fresh) return known;
  const pending = ps.asking;
  const out = pending.get(frameId);
  if (out && !fresh) return out;
  const navs = navigationCount(session, frameId);
  // Page.createIsolatedWorld hands back the existing world for the same frame and name.
  const ask = session
    .send("Page.createIsolatedWorld", { frameId, worldName: WORLD_NAME, grantUniveralAccess: false }, opts)
    .then(({ executionContextId }) => {
      // The id may be the old document's if the frame navigated meanwhile.
      if (navigationCount(session, frameId) === navs) {
        byFrame.set(frameId, executionContextId);
        // A document committed since the browser installs the runtime: its world has it already.
        if (ps.commits.get(frameId) === navs) ps.installed.add(executionContextId);
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
  return PageSession.peek(session)?.contexts.has(frameId) === true;
}

/** Our isolated world's execution context in a frame, for CDP calls that take a context id. */
export function worldContextId(session: CdpSession, frameId: string): Promise<number> {
  return worldContext(session, frameId, {}, false);
}

function isLostContext(err: unknown): boolean {
  return (
    err instanceof Error &&
    /Cannot find context|context with specified id|Execution context was destroyed/i.test(err.message)
  );
}

/** A call bound to one document (`inDocument`) whose document went away while it ran. */
class LeftDocument extends Error {}

/** A lost context is looked up again and the call repeated, unless `inDocument` and the frame navigated since. */
async function callInWorld(
  session: CdpSession,
  frameId: string,
  opts: { timeoutMs?: number; inDocument?: boolean },
  call: (contextId: number) => Promise<unknown>,
): Promise<unknown> {
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

/**
 * Has the browser install the runtime in every new document's world: its first call then
 * carries no page code, and Chromium compiles it through its code cache (about 5 ms saved).
 * `follow`: bp's own tabs, whose pages it follows from their load (their loops, the input), not
 * only from an agent's first look; a person's tab pays nothing until an agent looks.
 */
export async function installOnNewDocuments(session: CdpSession, follow: boolean): Promise<void> {
  const ps = contextsOf(session);
  try {
    await session.send("Page.addScriptToEvaluateOnNewDocument", {
      source: follow ? INSTALL_AND_FOLLOW_ON_NEW_DOCUMENT : INSTALL_ON_NEW_DOCUMENT,
      worldName: WORLD_NAME,
    });
    ps.autoInstalled = true;
  } catch {
    // Every world then gets the runtime with its first call.
  }
}

/**
 * Runs page-runtime steps in a frame's world in one round trip (the source only on a world's
 * first call). `doc` or `inDocument`: never run in another document (the reply says `otherDocument`).
 */
export async function callPage(
  session: CdpSession,
  frameId: string,
  steps: PageStep[],
  opts: {
    doc?: string;
    inDocument?: boolean;
    userGesture?: boolean;
    timeoutMs?: number;
    mark?: string[];
    mk?: MarkExtra;
  } = {},
): Promise<PageReply> {
  const call = { steps, ...(opts.doc ? { doc: opts.doc } : {}), ...(opts.mark && opts.mk ? { mk: opts.mk } : {}) };
  const { mark, doc, inDocument, mk: _mk, ...rest } = opts;
  // With `mark` (element handles in our world): the click-listener marks are made first, in the same call.
  const fns = mark
    ? { run: MARK_AND_RUN, install: INSTALL_MARK_AND_RUN, objects: mark }
    : { run: RUN, install: INSTALL_AND_RUN };
  let res: Protocol.Runtime.CallFunctionOnResponse;
  try {
    res = await sendPage(
      session,
      frameId,
      call,
      { ...fns, byValue: true, ...rest, inDocument: inDocument === true || doc !== undefined },
      (r) => (r.result.value as { missing?: boolean } | undefined)?.missing === true,
    );
  } catch (err) {
    if (err instanceof LeftDocument) return { doc: "", otherDocument: true, results: [] };
    throw err;
  }
  if (res.exceptionDetails) {
    const text = res.exceptionDetails.exception?.description ?? res.exceptionDetails.text;
    throw new BpError("internal_error", `Page script failed: ${cutString(text.split("\n")[0] ?? "error", 300)}`, {
      context: { frameId: "redacted" },
    });
  }
  const reply = readReply(res.result.value);
  if ("missing" in reply)
    throw new BpError("internal_error", "Page runtime missing after its installation.", {
      context: { frameId: "redacted" },
    });
  return reply;
}

/** Installs the runtime now if the world lacks it, while the listener lookup is out. */
export function installAhead(session: CdpSession, frameId: string): void {
  const ps = PageSession.peek(session);
  const ctx = ps?.contexts.get(frameId);
  if (ctx !== undefined && ps?.installed.has(ctx)) return;
  callPage(session, frameId, []).catch(() => undefined);
}

/** Runs a page function that answers with a page object, kept as a remote object for CDP calls. */
export async function pageObject(
  session: CdpSession,
  frameId: string,
  fn: PageObjectFn,
  arg: unknown = null,
): Promise<string | undefined> {
  const res = await sendPage(
    session,
    frameId,
    { fn, arg },
    { run: OBJECT, install: INSTALL_AND_OBJECT, byValue: false },
    (r) => r.result.value === MISSING,
  );
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
async function sendPage(
  session: CdpSession,
  frameId: string,
  arg: unknown,
  o: SendOptions,
  missing: (r: Protocol.Runtime.CallFunctionOnResponse) => boolean,
): Promise<Protocol.Runtime.CallFunctionOnResponse> {
  const known = PageSession.of(session).installed;
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
    // A session's calls run in order: a later one finds the runtime (else it answers missing).
    known.add(contextId);
    let r = await send(contextId, install);
    if (!r.exceptionDetails && missing(r)) r = await send(contextId, true);
    return r;
  })) as Protocol.Runtime.CallFunctionOnResponse;
}
