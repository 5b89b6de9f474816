import type { CdpSession } from "../../cdp/session.ts";
import type { PageStep } from "../../page/runtime.ts";
import type { SnapshotEntry, SnapshotFrame, SnapshotOptions, SnapshotResult } from "../../page/types.ts";
import type { Agent } from "../agents.ts";
import type { BrowserConnection } from "../browser.ts";
import type { TargetRecord } from "../targets.ts";
import { BpError } from "../../shared/errors.ts";
import { FrameSessions } from "../frames.ts";
import { treeAsked } from "./ahead.ts";
import { localFileRefusal } from "../local-files.ts";
import { TabObservation } from "../refs.ts";
import type { FrameWorld } from "../frame-world.ts";
import { childWorld } from "./frame-walk.ts";
import { listFrames } from "./frame-list.ts";
import { delegationScan } from "./delegation.ts";
import {
  documentAhead,
  frameworkMarked,
  listenedHandles,
  listenedNodes,
  noteMarked,
  sameListened,
  wasMarked,
  type Listed,
} from "./listeners.ts";
import { callPage, navigationCount, pageObject, worldContextId, worldKnown } from "../world.ts";
import { callSteps, step } from "../page-fns.ts";
import type { PageReply } from "../../page/runtime.ts";

export { forgetMarks } from "./listeners.ts";

/** Nested out-of-process frames deeper than this are left as placeholders. */
const MAX_FRAME_DEPTH = 4;

export interface Collected {
  result: SnapshotResult;
  obs: TabObservation;
  /** The previous observation of the same document by this agent, if any. */
  previous: SnapshotResult | undefined;
}

export function frameSessions(rec: TargetRecord, session: CdpSession): FrameSessions {
  rec.frames ??= new FrameSessions(session);
  return rec.frames;
}

/** The agent's observation record for this tab's current document (a new one after navigation). */
export async function currentObservation(
  browser: BrowserConnection,
  rec: TargetRecord,
  agent: Agent,
  session: CdpSession,
): Promise<{ obs: TabObservation; mainFrameId: string; replaced: boolean }> {
  // Counted before asking: a navigation while the question is out makes the count differ later.
  const navs = navigationCount(session, rec.targetId);
  const frameTree = (await treeAsked(session, navs)) ?? (await session.send("Page.getFrameTree")).frameTree;
  const main = frameTree.frame;
  // The tab went (by a link of a file: page the broker was allowed to show) where no agent may look.
  if (localFileRefusal(main.url) !== undefined) {
    throw new BpError("tab_not_found", "The tab now shows a local file that agents may not read.", {
      context: { reason: "local_file" },
    });
  }
  const old = agent.observations.get(rec.targetId);
  if (old && old.generation === browser.generation && old.mainLoaderId === main.loaderId) {
    old.confirmedAt = navs;
    return { obs: old, mainFrameId: main.id, replaced: false };
  }
  const obs = new TabObservation(browser.generation, rec.targetId, main.loaderId, main.url);
  obs.confirmedAt = navs;
  if (old) {
    // Numbering goes on from the previous document: an old ref is stale, never another element.
    obs.nextRef = old.nextRef;
    obs.firstRef = old.nextRef;
  }
  if (old && old.generation === browser.generation) {
    obs.previous = { url: old.url, nextRef: old.nextRef };
    // A login carries across documents: it is entered on one page and left on the next.
    obs.authSeen = old.authSeen;
    obs.authSite = old.authSite;
    obs.humanControlBelow = old.humanControlBelow;
  }
  agent.observations.set(rec.targetId, obs);
  return { obs, mainFrameId: main.id, replaced: old !== undefined };
}

/**
 * Steps an action runs in the root frame's world in the same call as the snapshot (its
 * settle poll and evidence read-back): one round trip instead of several. `snapshotWhen`
 * skips the snapshot (and the result is undefined) unless an earlier step saw enough quiet.
 */
export interface PreSteps {
  steps: PageStep[];
  snapshotWhen?: PageStep["when"];
  /** Filled with the steps' results. */
  results?: unknown[];
}

/**
 * One observation of a tab: the page-side snapshot of the root document (same-origin frames
 * inline), then each out-of-process frame through its own session, spliced in place with
 * geometry in top-level viewport px. Refs share one number space per document. `guess`: the
 * token of the document `obs` is of; in any other document nothing runs or is recorded. `dropped`: set once the
 * caller gave up on this look (a dialog blocked it); its result is then not the agent's last observation.
 */
export async function collectWith(
  browser: BrowserConnection,
  rec: TargetRecord,
  obs: TabObservation,
  root: FrameWorld,
  options: SnapshotOptions,
  pre: PreSteps | undefined,
  guess?: string,
  dropped?: { value: boolean },
): Promise<Collected | undefined> {
  const previous = obs.last;
  const tab = await browser.session(rec);
  let index: Promise<Map<string, number>> | undefined;
  const frameIndex = () => (index ??= listFrames(rec, tab).then((frames) => new Map(frames.map((f, i) => [f.id, i]))));
  const result = await snapshotFrame(rec, obs, root, options, 0, frameIndex, pre, guess);
  if (!result) return undefined;
  // Seen by no agent: the next action's diff must stay against what the agent was shown.
  if (dropped?.value) return { result, obs, previous };
  markAuthTransition(result, obs);
  obs.last = result;
  obs.seq++;
  return { result, obs, previous };
}

async function snapshotFrame(
  rec: TargetRecord,
  obs: TabObservation,
  root: FrameWorld,
  options: SnapshotOptions,
  depth: number,
  frameIndex: () => Promise<Map<string, number>>,
  pre?: PreSteps,
  guess?: string,
): Promise<SnapshotResult | undefined> {
  const reply = await snapshotCall(
    root,
    {
      ...options,
      refFloor: obs.nextRef,
      refRenumberBelow: Math.max(obs.firstRef, obs.humanControlBelow ?? 0),
      layout: true,
    },
    pre,
    guess,
  );
  if (reply.otherDocument) return undefined;
  if (pre) pre.results = reply.results.slice(0, -1);
  const result = reply.results.at(-1) as SnapshotResult | null;
  if (!result) return undefined;
  // Later snapshots may guess the top document unchanged only if no navigation came since the frame tree named it.
  if (depth === 0 && root.frameId === obs.targetId)
    obs.doc = navigationCount(root.session, root.frameId) === obs.confirmedAt ? reply.doc : undefined;
  const binding: FrameWorld = {
    session: root.session,
    frameId: root.frameId,
    loaderId: root.loaderId,
    framePath: root.framePath,
    offset: root.offset,
    doc: reply.doc,
  };
  const { numbers, ids } = await frameNumbers(root, result.elements, frameIndex);
  // Each frame placeholder's frame id, by the walk path it had (the frame number replaces it).
  const frameIds = new Map<SnapshotEntry, string>();
  // Elements of a same-origin child frame name that frame too (one binding per frame).
  const inChild = new Map<string, FrameWorld>();
  const bindingOf = (e: SnapshotEntry): FrameWorld => {
    const child = e.kind !== "frame" && e.frame ? ids.get(e.frame) : undefined;
    if (!child) return binding;
    const b = inChild.get(child) ?? { ...binding, childFrame: child };
    inChild.set(child, b);
    return b;
  };
  for (const e of result.elements) {
    const id = e.kind === "frame" && e.frame ? ids.get(e.frame) : undefined;
    if (id) frameIds.set(e, id);
    const own = bindingOf(e);
    if (e.frame) e.frame = numbers.get(e.frame) ?? (root.framePath ? `${root.framePath}.${e.frame}` : e.frame);
    else if (root.framePath) e.frame = root.framePath;
    if (e.kind === "fold") for (const r of e.refs) obs.bind(r, own);
    else {
      obs.bind(e.ref, own);
      e.box.x += root.offset.x;
      e.box.y += root.offset.y;
      // The frame measured "in viewport" against its own viewport; the agent sees the top one.
      const vp = root.viewport;
      if (vp && e.inViewport)
        e.inViewport = e.box.x < vp.w && e.box.y < vp.h && e.box.x + e.box.w > 0 && e.box.y + e.box.h > 0;
    }
  }
  obs.nextRef = Math.max(obs.nextRef, result.stats.nextRef);
  if (depth >= MAX_FRAME_DEPTH || !rec.frames) return result;

  const merged: SnapshotEntry[] = [];
  let remaining = (options.limit ?? 50) - result.elements.length;
  for (const e of result.elements) {
    merged.push(e);
    if (e.kind !== "frame" || e.reason !== "cross_origin" || remaining <= 0) continue;
    const child = await childRoot(
      rec.frames,
      root,
      e,
      root.viewport ?? { w: result.page.viewportWidth, h: result.page.viewportHeight },
      frameIds.get(e),
    );
    if (!child) continue;
    const inner = await snapshotFrame(rec, obs, child, { ...options, limit: remaining }, depth + 1, frameIndex).catch(
      () => undefined,
    );
    if (!inner) continue;
    merged.push(...inner.elements);
    remaining -= inner.elements.length;
    result.totalCandidates += inner.totalCandidates;
    result.candidateRefs.push(...inner.candidateRefs);
    result.truncated ||= inner.truncated;
    for (const r of inner.truncationReasons)
      if (!result.truncationReasons.includes(r)) result.truncationReasons.push(r);
    for (const h of inner.hints) if (result.hints.length < 5) result.hints.push(h);
    result.stats.frames += inner.stats.frames + 1;
    result.stats.visitedNodes += inner.stats.visitedNodes;
  }
  // --find lists matches only; a frame placeholder was needed to reach the frame's matches.
  result.elements = options.find ? merged.filter((e) => e.kind !== "frame") : merged;
  return result;
}

/**
 * The snapshot call with the click-listener marks (listeners.ts), made once and reused: an
 * action's observation takes them as they are; an asked-for snapshot too while the page says
 * they hold, else the browser's listener list decides whether they are made again.
 */
async function snapshotCall(
  root: FrameWorld,
  arg: SnapshotOptions,
  pre: PreSteps | undefined,
  doc: string | undefined,
): Promise<PageReply> {
  const target = root;
  const steps: PageStep[] = [
    ...(pre?.steps ?? []),
    { fn: "snapshot", arg, ...(pre?.snapshotWhen ? { when: pre.snapshotWhen } : {}) },
  ];
  // An action's steps are for the document it acted in: not run again in the next one.
  const only = doc ? { doc } : pre ? { inDocument: true } : {};
  let nodes: Listed | undefined;
  if (wasMarked(target)) {
    if (pre) {
      // React renders its clickables anew: on such a page an action's observation asks the page world again (one round trip).
      const scan = frameworkMarked(target) ? await delegationScan(root.session) : undefined;
      return callPage(
        root.session,
        root.frameId,
        steps,
        scan ? { ...only, mark: [], mk: { merge: true, scan } } : only,
      );
    }
    const reply = await callSteps(
      root.session,
      root.frameId,
      [step("snapshot", { ...arg, ifMarked: true, remark: true })],
      only,
    );
    const [snap] = reply.results;
    const asIs = { ...reply, results: [snap] };
    if (reply.otherDocument || (snap && !snap.marksRemade)) return asIs;
    nodes = await listenedNodes(target);
    if (snap && nodes && sameListened(target, nodes)) {
      delete snap.marksRemade;
      return asIs;
    }
  }
  const mark = await listenedHandles(target, nodes);
  if (!mark) return callPage(root.session, root.frameId, steps, only);
  let reply: PageReply;
  try {
    reply = await callPage(root.session, root.frameId, steps, {
      ...only,
      mark: mark.handles,
      mk: { dropAt: mark.handleDropAt, ...(mark.scan ? { scan: mark.scan } : {}) },
    });
  } catch {
    // The handles belong to a world that went away meanwhile: observe without them.
    return callPage(root.session, root.frameId, steps, only);
  }
  noteMarked(target, mark);
  return reply;
}

/** Maps the page's walk paths ("1.2") to the numbers 'bp frame' lists; an unmapped path stays as it is. */
async function frameNumbers(
  root: FrameWorld,
  elements: SnapshotEntry[],
  frameIndex: () => Promise<Map<string, number>>,
): Promise<{ numbers: Map<string, string>; ids: Map<string, string> }> {
  const numbers = new Map<string, string>();
  const ids = new Map<string, string>();
  const paths = new Set<string>();
  for (const e of elements) if (e.frame) paths.add(e.frame);
  if (paths.size === 0) return { numbers, ids };
  // The frame list and the iframe elements' frame ids do not depend on each other: asked together.
  const listed = frameIndex().catch(() => new Map<string, number>());
  await Promise.all(
    [...paths].map(async (path) => {
      const objectId = await pageObject(root.session, root.frameId, "framePath", path).catch(() => undefined);
      if (!objectId) return;
      const { node } = await root.session.send("DOM.describeNode", { objectId }).catch(() => ({ node: undefined }));
      if (node?.frameId !== undefined) ids.set(path, node.frameId);
    }),
  );
  const index = await listed;
  for (const [path, id] of ids) {
    const n = index.get(id);
    if (n !== undefined) numbers.set(path, String(n));
  }
  return { numbers, ids };
}

/** Maps an iframe placeholder to the world of its out-of-process document (its frame id, when frameNumbers found it already). */
async function childRoot(
  frames: FrameSessions,
  parent: FrameWorld,
  placeholder: SnapshotFrame,
  viewport: { w: number; h: number },
  known: string | undefined,
): Promise<FrameWorld | undefined> {
  const child = await childWorld(
    frames,
    parent,
    known ?? { fn: "refElement", arg: placeholder.ref },
    placeholder.offset,
    false,
  );
  if (!child) return undefined;
  const { session, frameId } = child;
  // A new frame document: its world and document handle are asked alongside its frame tree.
  if (!worldKnown(session, frameId)) {
    worldContextId(session, frameId).catch(() => undefined);
    documentAhead(session, frameId);
  }
  const { frameTree } = await session.send("Page.getFrameTree");
  // An out-of-process frame is its session's top frame.
  return { ...child, top: true, loaderId: frameTree.frame.loaderId, framePath: placeholder.frame, viewport };
}

/**
 * authentication_surface is "present" page-side; against this agent's previous observation
 * of the tab it becomes "entered" (a login appeared) or, once gone, a "left" hint, so an
 * agent notices both the sign-in wall and getting past it.
 */
/**
 * The agent itself takes the tab elsewhere (open, back, forward, reload): the next document is
 * no result of the login it leaves, so no "left" hint follows it there.
 */
export function forgetAuthSurface(agent: Agent, targetId: string): void {
  const obs = agent.observations.get(targetId);
  if (obs?.authSeen) obs.authSeen = false;
}

function markAuthTransition(result: SnapshotResult, obs: TabObservation): void {
  const hint = result.hints.find((h) => h.type === "authentication_surface");
  if (hint && obs.authSeen === false) hint.state = "entered";
  // "left" is news only on the site that asked for the login.
  if (!hint && obs.authSeen === true && siteOf(result.url) === obs.authSite && result.hints.length < 5) {
    result.hints.push({
      type: "authentication_surface",
      confidence: "strong",
      recommendedAction: "verify_authentication_result",
      refs: [],
      state: "left",
    });
  }
  obs.authSeen = hint !== undefined;
  if (hint) obs.authSite = siteOf(result.url);
}

/** The last two labels of the host (accounts.example.com and app.example.com are one site). */
function siteOf(url: string): string {
  // Asked on every snapshot of a page with a login form, nearly always for the same URL.
  if (url === lastSite.url) return lastSite.site;
  let site = "";
  try {
    const host = new URL(url).hostname;
    site = /^[\d.]+$|:/.test(host) ? host : host.split(".").slice(-2).join(".");
  } catch {
    site = "";
  }
  lastSite = { url, site };
  return site;
}

let lastSite = { url: "", site: "" };
