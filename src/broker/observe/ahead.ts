/** Calls an observation makes, asked ahead beside a navigation's last call: the renderer is busy just after a load. */
import type { Protocol } from "devtools-protocol";
import type { CdpSession } from "../../cdp/session.ts";
import { wantsLook, type LookArgs } from "../../protocol/look-args.ts";
import { loadDialog } from "../navigate.ts";
import { PageSession } from "../page-session.ts";
import type { TargetRecord } from "../targets.ts";
import { navigationCount, worldContextId, worldKnown } from "../world.ts";
import { documentAhead, listenersAhead } from "./listeners.ts";

/**
 * A navigation's look, once its new document is interactive (DOMContentLoaded, before its load): our world's context
 * and the page world's document, both the document's for its lifetime. The look's listener list then goes out at the
 * load beside its first calls (lookAhead). Undefined when the navigation does not look. `framed`: the agent observes
 * a frame of its own choosing.
 */
export function interactiveAhead(
  args: LookArgs,
  session: CdpSession,
  rec: TargetRecord,
  framed: boolean,
): (() => void) | undefined {
  if (!wantsLook(args)) return undefined;
  return () => {
    // A dialog blocks the page's calls until answered.
    if (loadDialog(rec)) return;
    PageSession.of(session).interactiveAt = navigationCount(session, rec.targetId);
    worldContextId(session, rec.targetId).catch(() => undefined);
    if (!framed) documentAhead(session, rec.targetId);
  };
}

/**
 * The look's first round trip after a load (our world's context, the page world's document, the frame tree, and the
 * listener list when the document's handle came at DOMContentLoaded), sent before the navigation's reply reads the
 * browser's record of the tab: Chromium's renderer is busy for ~10 ms after a load, and these wait it out beside that
 * call rather than after it. A document looked at before (a same-document navigation) asks nothing ahead.
 */
export function lookAhead(args: LookArgs, session: CdpSession, rec: TargetRecord, framed: boolean): void {
  // A dialog the page opened while loading blocks it: the look names the dialog instead.
  if (!wantsLook(args) || loadDialog(rec)) return;
  const ps = PageSession.of(session);
  const interactive = ps.interactiveAt === navigationCount(session, rec.targetId);
  // Read once: a later navigation's look asks by its own.
  ps.interactiveAt = undefined;
  if (!interactive && worldKnown(session, rec.targetId)) return;
  worldContextId(session, rec.targetId).catch(() => undefined);
  if (!framed) {
    documentAhead(session, rec.targetId);
    if (interactive) listenersAhead(session, rec.targetId);
  }
  frameTreeAhead(session, rec.targetId);
}

/** How long a frame tree asked ahead is taken for the observation it was asked for. */
const AHEAD_MS = 2_000;

/** Asks for the frame tree ahead of an observation: its answer is used if the top frame has not navigated since. */
function frameTreeAhead(session: CdpSession, targetId: string): void {
  const ps = PageSession.of(session);
  ps.treeAhead = {
    navs: navigationCount(session, targetId),
    at: Date.now(),
    tree: session.send("Page.getFrameTree").then(
      (r) => r.frameTree,
      () => undefined,
    ),
  };
}

/** The frame tree asked ahead, taken once; undefined when none was asked for this document (the caller asks). */
export function treeAsked(session: CdpSession, navs: number): Promise<Protocol.Page.FrameTree | undefined> {
  const ps = PageSession.peek(session);
  const asked = ps?.treeAhead;
  if (!ps || !asked) return Promise.resolve(undefined);
  ps.treeAhead = undefined;
  // Of this document, and of the observation it was asked for (a look that did not run leaves it behind).
  const fresh = asked.navs === navs && Date.now() - asked.at < AHEAD_MS;
  return fresh ? asked.tree : Promise.resolve(undefined);
}
