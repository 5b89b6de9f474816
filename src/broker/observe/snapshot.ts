import { diffSnapshots } from "../render/diff.ts";
import { compactDiff, compactSnapshotJson, compactSnapshotMeta, humanPage } from "../render/format.ts";
import { selectedTab, type Selected } from "../context/tabs.ts";
import type { CallContext } from "../context/types.ts";
import type { TargetRecord } from "../targets.ts";
import type { SnapshotResult } from "../../page/types.ts";
import { callPage, navigationCount, worldContextId, worldKnown } from "../world.ts";
import { documentAhead } from "./listeners.ts";
import { collectWith, currentObservation, frameSessions, type Collected, type PreSteps } from "./collect.ts";
import type { FrameWorld } from "../frame-world.ts";
import { rootForFrame } from "./frame-list.ts";
import { boundTitle, boundUrl, MAX_TITLE, MAX_URL } from "../../shared/page-strings.ts";
import type { snapshot } from "../../protocol/commands-observe.ts";
import { exactly, type ReplyOf } from "../context/handler.ts";

export type SnapshotReply = ReplyOf<typeof snapshot.result>;

export interface ObserveOptions {
  limit: number;
  expand?: number;
  find?: string;
  boxes?: boolean;
  diff?: boolean;
  text?: boolean;
  /** An action's target ref: the diff's outcome text nearest it first. */
  near?: number;
  /** Set once the caller gave up on this look (a dialog blocked the page): it is then not recorded as seen. */
  dropped?: { value: boolean };
}

export function observe(ctx: CallContext, opts: ObserveOptions): Promise<SnapshotReply> {
  const sel = selectedTab(ctx);
  return ctx.broker.exclusive(sel.rec.targetId, () => observeLocked(ctx, sel, opts));
}

export async function observeLocked(ctx: CallContext, sel: Selected, opts: ObserveOptions): Promise<SnapshotReply> {
  const out = await observeWith(ctx, sel, opts);
  if (!out) throw new Error("observation skipped without a condition");
  return out.reply;
}

export interface ObserveAfterAction {
  /** No navigation was seen: the agent's observation of this document still holds (saves asking the browser). */
  sameDocument?: boolean;
  /** The observation to diff against (kept by a caller that may observe more than once). */
  base?: SnapshotResult | undefined;
  pre?: PreSteps;
}

/** One observation, optionally sharing its page call with an action's last steps; undefined when held back. */
export async function observeWith(
  ctx: CallContext,
  sel: Selected,
  opts: ObserveOptions,
  after: ObserveAfterAction = {},
): Promise<{ reply: SnapshotReply; previous: SnapshotResult | undefined } | undefined> {
  const { browser, agent, rec } = sel;
  const session = await browser.session(rec);
  await frameSessions(rec, session).ensure();
  const known = agent.observations.get(rec.targetId);
  const current = known && known.generation === browser.generation ? known : undefined;
  const snapOpts = {
    limit: opts.limit,
    ...(opts.expand ? { expand: [opts.expand] } : {}),
    ...(opts.find ? { find: opts.find } : {}),
    ...(opts.text ? { text: true } : {}),
  };
  // The document this agent saw last, unchanged: the snapshot runs only in the document with that token, so one call
  // does.
  if (
    !after.sameDocument &&
    !after.pre &&
    current?.doc &&
    agent.frames.get(rec.targetId) === undefined &&
    worldKnown(session, rec.targetId) &&
    navigationCount(session, rec.targetId) === current.confirmedAt
  ) {
    const root: FrameWorld = {
      session,
      frameId: rec.targetId,
      loaderId: current.mainLoaderId,
      framePath: "",
      offset: { x: 0, y: 0 },
      top: true,
    };
    const guessed = await collectWith(browser, rec, current, root, snapOpts, undefined, current.doc, opts.dropped);
    if (guessed) return { reply: render(ctx, rec, guessed, opts, false, guessed.previous), previous: guessed.previous };
  }
  const same = after.sameDocument === true && current !== undefined;
  if (!same && !worldKnown(session, rec.targetId)) {
    // Our world went with its document: ask for it and the page world's document alongside the frame tree (one round
    // trip).
    worldContextId(session, rec.targetId).catch(() => undefined);
    if (agent.frames.get(rec.targetId) === undefined) documentAhead(session, rec.targetId);
  }
  const { obs, mainFrameId, replaced } = same
    ? { obs: current, mainFrameId: rec.targetId, replaced: false }
    : await currentObservation(browser, rec, agent, session);
  const root: FrameWorld = await rootForFrame(
    rec,
    session,
    mainFrameId,
    obs.mainLoaderId,
    agent.frames.get(rec.targetId),
  );
  let pre = after.pre;
  if (pre && (root.session !== session || root.frameId !== mainFrameId)) {
    // The agent observes a frame of its own choosing: the action's steps run in the main frame first.
    const r = await callPage(session, mainFrameId, pre.steps);
    pre.results = r.results;
    if (pre.snapshotWhen && !quietEnough(r.results[pre.snapshotWhen.step])) return undefined;
    pre = undefined;
  }
  const collected = await collectWith(browser, rec, obs, root, snapOpts, pre, undefined, opts.dropped);
  if (!collected) return undefined;
  const previous = "base" in after ? after.base : collected.previous;
  return { reply: render(ctx, rec, collected, opts, replaced, previous), previous };
}

function render(
  ctx: CallContext,
  rec: TargetRecord,
  collected: Collected,
  opts: ObserveOptions,
  replaced: boolean,
  previous: SnapshotResult | undefined,
): SnapshotReply {
  const { result } = collected;
  // A person's text (src/protocol/human-snapshot.ts) needs a little the JSON leaves out.
  const human = ctx.req.mode === "human";
  rec.url = result.url;
  rec.title = result.title;
  // The diff stands in for the list and names a new title or url itself.
  const base = opts.diff ? previous : undefined;
  // No tab id: the agent selected the tab itself, and only it changes the selection.
  const out = exactly<SnapshotReply>()(
    base
      ? compactSnapshotMeta(result)
      : compactSnapshotJson(result, { boxes: opts.boxes === true, text: opts.text === true }),
  );
  // Page-derived strings are bounded like everything else we print.
  if (!base && result.url.length > MAX_URL) {
    out.url = boundUrl(result.url);
    out.urlTruncated = true;
  }
  if (!base && result.title.length > MAX_TITLE) out.title = boundTitle(result.title);
  if (result.truncated)
    out.hint = `Showing ${countListed(result.elements)} of ${result.totalCandidates}; use --limit ${Math.min(10_000, result.totalCandidates)}, --find <text>, 'bp frame <n>', or 'bp find <css>' to narrow.`;
  if (opts.diff) {
    if (base) {
      out.diff = compactDiff(diffSnapshots(base, result, opts.near), { boxes: opts.boxes === true, human });
    } else {
      out.diffFallback = replaced ? "document_changed" : "no_previous_observation";
    }
  }
  if (human && out.page) out.page = humanPage(result.page);
  return out;
}

/** The page runtime's `when` rule, for steps that ran in a call of their own: the settle step said settled. */
function quietEnough(poll: unknown): boolean {
  return typeof poll === "object" && poll !== null && (poll as { settled?: unknown }).settled === true;
}

function countListed(elements: { kind: string; count?: number }[]): number {
  return elements.reduce((n, e) => n + (e.kind === "fold" ? (e.count ?? 0) : 1), 0);
}
