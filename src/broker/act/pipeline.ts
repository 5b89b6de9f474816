/**
 * The action pipeline. Every action is one declarative object (defineAction) and runs the
 * same stages (runAction):
 *
 *   select tab → queue on it → locate (resolve the ref and probe it in one page call, the
 *   quiet watcher armed in the same call) → dispatch → watch → settle → evidence → reply
 *
 * Settling, the evidence read-back and the observation share the last page call: it polls
 * for DOM quiet and, once quiet, reads the action's evidence steps and takes the snapshot.
 * A verified click on a static page costs three CDP round trips (docs/architecture.md).
 */
import type { CdpSession } from "../../cdp/session.ts";
import type { PageStep } from "../../page/runtime.ts";
import type { SnapshotResult } from "../../page/types.ts";
import { selectedTab, type Selected } from "../context/tabs.ts";
import type { CommandDef } from "../../protocol/define.ts";
import { defineShapedHandler, type ArgsOf, type ReplyOf } from "../context/handler.ts";
import type { CallContext, Handler } from "../context/types.ts";
import { resolveRef, type ResolvedRef } from "../observe/resolve-ref.ts";
import type { PreSteps } from "../observe/collect.ts";
import { observeWith } from "../observe/snapshot.ts";
import { callPage } from "../world.ts";
import { boundUrl } from "../../shared/page-strings.ts";
import { redactUrl } from "../net/redact.ts";
import { readResult, type Ran } from "../page-fns.ts";
import { replyFor, type ActionReply, type EvidenceLike } from "./result.ts";
import { ActionWatch, DOM_QUIET_MAX_MS, type QuietPoll } from "../settle/watch.ts";

export interface ObserveArgs {
  limit: number;
  full: boolean;
}

/** What every stage of one action run can see. */
export interface ActionRun<A> {
  ctx: CallContext;
  args: A;
  sel: Selected;
  /** The tab's own session (the main frame). */
  top: CdpSession;
  watch: ActionWatch;
  /** The located ref and its locate steps' results, when the action has one. */
  target: ResolvedRef | undefined;
}

/**
 * The evidence an action's command publishes (src/protocol/evidence.ts): its reply's
 * `evidence`, or for an action that does not observe (dropdown, history) the reply itself.
 */
export type EvidenceOf<C extends CommandDef> = "evidence" extends keyof ReplyOf<C["result"]> ? NonNullable<ReplyOf<C["result"]>["evidence"]> : ReplyOf<C["result"]>;

export interface ActionDef<I, A, S = void, E extends EvidenceLike = EvidenceLike, R = ActionReply<E>> {
  /** The action's own arguments, from the command's checked ones (typed by its args schema). */
  args(input: I, ctx: CallContext): A;
  /** Observation options of the reply; none means the action answers with its evidence alone. */
  observe?(args: A): ObserveArgs;
  /** Which tab: the agent's selected tab unless said otherwise (dialog answers name theirs). */
  tab?(ctx: CallContext, args: A): Selected;
  /** The ref to locate and the page steps (probe, prepare, find…) to run in the same call. */
  locate?(args: A): { ref: number; steps: PageStep[] } | undefined;
  /** Whether the DOM-quiet watcher is armed before dispatch (in the locate call when it can be). */
  armQuiet?: boolean;
  /** Without a locate call to ride on, the dispatch arms the watcher itself, in its own first page call. */
  armsInDispatch?: true;
  /** Sends the action; what it returns goes to the later stages. */
  dispatch(run: ActionRun<A>): Promise<S>;
  /**
   * "steps": the dispatch sends each input through `watch.input(send, true)`, so only those
   * are near an input for the page's polling (settle/requests/polling.ts); otherwise the whole dispatch is.
   */
  inputs?: "steps";
  /** The dispatch settled the page itself (composite actions settle step by step). */
  settled?: boolean | ((run: ActionRun<A>, sent: S) => boolean);
  /** No watch of page effects (dialog answers, history): their page may be blocked or leaving. */
  watch?: false;
  /**
   * Not queued behind the tab's other commands: a dialog answer must reach a tab whose
   * running command waits on that very dialog. Its observation still waits its turn.
   */
  queue?: false;
  /** The page answers nothing before the dispatch (a dialog holds it): network readiness is not awaited. */
  blocked?: true;
  /** Shapes the final reply (the dialog answer names itself around the action reply). */
  shape?(reply: ActionReply<E>, run: ActionRun<A>, sent: S): R;
  /** Page steps read back once the page is quiet, in the same call as the snapshot. */
  readback?(run: ActionRun<A>, sent: S): PageStep[];
  /** What it sent was typed text, which starts no timer animation: settled a frame after the last change, no time floor. */
  typing?: boolean;
  /**
   * After the reply's settle (not after a navigation or dialog): may wait for more (suggestions
   * a field shows after a debounce) and answer new evidence; the page is then observed again.
   */
  after?(run: ActionRun<A>, sent: S, evidence: E): Promise<E | undefined>;
  /** The evidence, from what dispatch returned and the read-back steps with their results (none after a navigation or dialog; read them with readResult). */
  evidence(run: ActionRun<A>, sent: S, readback: Ran): E;
}

/**
 * An action as the handler of its command. A mutating one (as its definition says) counts as
 * dispatched once it holds its tab, so a queued one can still be cancelled cleanly; a read-only
 * one (dropdown) runs the same stages and dispatches nothing.
 */
export function defineAction<C extends CommandDef, A, S = void>(command: C, def: ActionDef<ArgsOf<C>, A, S, EvidenceOf<C>, ReplyOf<C["result"]>>): Handler {
  const readOnly = command.mutating !== true;
  return defineShapedHandler(command, { dispatch: "lock", run: (ctx, input) => runAction(ctx, def, def.args(input, ctx), readOnly) });
}

export async function runAction<I, A, S, E extends EvidenceLike, R>(ctx: CallContext, def: ActionDef<I, A, S, E, R>, args: A, readOnly: boolean): Promise<ActionReply<E> | E | R> {
  const sel = def.tab ? def.tab(ctx, args) : selectedTab(ctx);
  const stages = async (): Promise<ActionReply<E> | E | R> => {
    const top = await sel.browser.session(sel.rec);
    const watch = new ActionWatch(sel.browser, sel.rec, top, def.watch !== false);
    try {
      const located = def.locate?.(args);
      let target: ResolvedRef | undefined;
      if (located) {
        // The quiet watcher rides on the locate call when the ref is in the main frame.
        const binding = sel.agent.observations.get(sel.rec.targetId)?.refs.get(located.ref);
        const inMain = binding !== undefined && binding.frameId === watch.mainFrameId && binding.session === top;
        // A target in another frame gets a watcher of its own there, in the same call.
        const arm = def.armQuiet ? [inMain ? watch.quietStep() : binding ? watch.frameQuietStep(binding) : undefined].filter((x) => x !== undefined) : [];
        // A same-origin child frame's element: the locate call runs in the top document's world,
        // the frame's own watcher is armed in its world by a call sent alongside (not for typed
        // text, whose steps re-arm the top document's watcher after the focusing click).
        const child = def.armQuiet && !def.typing && binding?.childFrame ? watch.armFrame({ session: binding.session, frameId: binding.childFrame }) : undefined;
        [target] = await Promise.all([resolveRef(sel, located.ref, [...located.steps, ...arm]), child]);
      }
      if (!def.blocked) await watch.ready;
      if (def.armQuiet && !watch.armed && !(def.armsInDispatch && !located)) await watch.armQuiet();
      const run: ActionRun<A> = { ctx, args, sel, top, watch, target };
      const sent = await watch.dispatch(() => def.dispatch(run), def.inputs === "steps");
      const opts = def.observe?.(args);
      const settled = typeof def.settled === "function" ? def.settled(run, sent) : def.settled === true;
      // Outside the queue (dialog answers), the observation still takes its turn on the tab.
      const inTurn = <T>(fn: () => Promise<T>): Promise<T> => (def.queue === false ? ctx.broker.exclusive(sel.rec.targetId, fn) : fn());
      const out = await inTurn(() => (settled || def.watch === false ? reply(run, def.evidence(run, sent, { steps: [], results: [] }), opts) : settleAndReply(run, def, sent, opts)));
      if (!out.observed) return out.evidence;
      return def.shape ? def.shape(out.observed, run, sent) : out.observed;
    } finally {
      watch.stop();
    }
  };
  if (def.queue !== false) return ctx.broker.exclusive(sel.rec.targetId, stages);
  if (!readOnly) ctx.markDispatched();
  return stages();
}

/** An action's answer: the reply with its observation, or (an action that does not observe) the evidence alone. */
type Answer<E> = { observed: ActionReply<E>; evidence?: undefined } | { observed?: undefined; evidence: E };

/** Observes after an action that settled itself. */
async function reply<A, E extends EvidenceLike>(run: ActionRun<A>, evidence: E, opts: ObserveArgs | undefined): Promise<Answer<E>> {
  const { ctx, sel, watch } = run;
  // Commands that do not observe (dropdown, history) answer with their result alone.
  if (!opts) return { evidence };
  const base = sel.agent.observations.get(sel.rec.targetId)?.last;
  const observation = await observeOnce(run, opts, base, undefined);
  return { observed: replyFor(ctx, sel, evidence, watch.effects, observation) };
}

function observeOnce<A>(run: ActionRun<A>, opts: ObserveArgs, base: SnapshotResult | undefined, pre: PreSteps | undefined) {
  const { ctx, sel, watch } = run;
  if (sel.rec.dialog || watch.effects.dialog) return Promise.resolve(undefined);
  // Always with pre steps (possibly none): an action's observation reuses the document's listener marks.
  return observeWith(ctx, sel, { limit: opts.limit, diff: !opts.full && !watch.effects.navigation }, { sameDocument: !watch.effects.navigation, base, pre: pre ?? { steps: [] } });
}

/**
 * Settles, reads the evidence back and observes in one page call: the page waits for its own
 * quiet (the settle step, src/page/settle/settle.ts), then runs the read-back and the snapshot. After a
 * navigation, or with requests the action started still running, the broker waits on their
 * events first and settles again. A dialog ends everything at once: the page then answers nothing.
 */
async function settleAndReply<I, A, S, E extends EvidenceLike, R>(run: ActionRun<A>, def: ActionDef<I, A, S, E, R>, sent: S, opts: ObserveArgs | undefined): Promise<Answer<E>> {
  const { ctx, sel, watch } = run;
  let ids = watch.takeQuiet();
  const base = sel.agent.observations.get(sel.rec.targetId)?.last;
  const started = Date.now();
  let readback: unknown[] = [];
  let observation: Awaited<ReturnType<typeof observeWith>>;
  let mutations = 0;
  /** The observation was taken before the target's frame had settled. */
  let stale = false;
  /** An out-of-process target's read-back, taken in its frame's last settle call once settled. */
  let remoteReadback: unknown[] | undefined;
  const readbackSteps = def.readback?.(run, sent) ?? [];
  // A ref inside an out-of-process frame is read back in its own frame's world.
  const binding = run.target?.binding;
  const remote = binding !== undefined && (binding.frameId !== watch.mainFrameId || binding.session !== run.top);
  for (;;) {
    if (watch.effects.dialog) break;
    if (watch.busy) await watch.waitNetwork(ctx.deadline);
    // The navigation wait is bounded: one that has not even committed is reported as pending, not waited out.
    if (watch.pendingNavigation) break;
    const requests = watch.effects.requests;
    const navigating = watch.effects.navigation;
    const polling = ids.length > 0 && !navigating;
    // The watchers linger in the page after settling (a later turn of this loop settles on them again).
    const steps: PageStep[] = polling ? [watch.settleStep(ids, { max: DOM_QUIET_MAX_MS, deadline: ctx.deadline, typing: def.typing === true })] : [];
    const when = polling ? { step: 0 } : undefined;
    if (!watch.effects.navigation && !remote) steps.push(...readbackSteps.map((s) => (when ? { ...s, when } : s)));
    const pre: PreSteps = { steps, ...(when ? { snapshotWhen: when } : {}) };
    // A target in a frame: that frame settles by its own rules too, in its own call beside this one.
    // An out-of-process target's read-back rides on its frame's settle call.
    const frameReadback = remote && binding && readbackSteps.length > 0 && !watch.effects.navigation ? { frame: binding, steps: readbackSteps } : undefined;
    const frames = polling ? watch.settleFrames(ctx.deadline, def.typing === true, frameReadback) : undefined;
    const frameLate = frames?.then((f) => {
      remoteReadback = f.also;
      return settledAfter(pre, f.polls);
    });
    let results: unknown[];
    if (opts) {
      observation = await raceDialog(watch, raceNavigation(watch, observeOnce(run, opts, base, pre))).catch((err: unknown) => {
        if (watch.effects.navigation || watch.effects.dialog) return undefined;
        throw err;
      });
      results = pre.results ?? [];
    } else {
      results = steps.length ? ((await raceDialog(watch, raceNavigation(watch, callMain(run, steps))))?.results ?? []) : [];
    }
    // Chrome answers no call into a document whose navigation is pending: past the bound, it is reported as pending.
    if (navigationOverdue(watch)) break;
    // The frame changed and settled after the top document's call answered: its snapshot may predate the frame's end.
    if (frameLate) stale = opts !== undefined && (await frameLate);
    if (watch.effects.dialog) break;
    const poll = polling ? readResult({ steps, results }, 0, "quiet", "settle") : undefined;
    if (polling && !poll) {
      // The watchers are gone (a new document, or a page call that failed): observe without them.
      ids = [];
      if (!watch.effects.navigation) continue;
    }
    if (poll) mutations = Math.max(mutations, poll.mutations);
    if (poll?.timed) watch.effects.timed = true;
    if (poll?.timedOver) watch.effects.timedOver = true;
    readback = polling ? results.slice(1) : results;
    // A navigation that began while the page settled: observe the new document once it loads.
    if (!navigating && watch.effects.navigation && Date.now() - started <= 3_000) continue;
    // A response usually changes the page when it lands: settle again after the network, also
    // when the request started and ended inside the call (its render may come after the snapshot).
    if (watch.effects.requests === requests || Date.now() - started > 3_000) break;
  }
  if (stale && opts && !watch.effects.navigation && !watch.effects.dialog) {
    observation = await raceDialog(watch, observeOnce(run, opts, base, undefined)).catch((err: unknown) => {
      if (watch.effects.navigation || watch.effects.dialog) return undefined;
      throw err;
    });
  }
  if (remoteReadback && !watch.effects.navigation && !watch.effects.dialog) readback = remoteReadback;
  else if (remote && binding && readbackSteps.length > 0 && !watch.effects.navigation && !watch.effects.dialog) {
    readback = (await raceDialog(watch, callPage(binding.session, binding.frameId, readbackSteps).catch(() => undefined)))?.results ?? [];
  }
  watch.effects.mutations += mutations;
  await watch.finishFrameQuiet();
  watch.countDownloads();
  let evidence = def.evidence(run, sent, { steps: readbackSteps, results: watch.effects.navigation || watch.effects.dialog ? [] : readback });
  const pending = watch.pendingNavigation;
  if (pending) {
    const url = pending.url !== undefined ? redactUrl(boundUrl(pending.url)) : undefined;
    evidence = { ...evidence, pendingNavigation: { ...(url !== undefined ? { url } : {}), ms: pending.ms } };
    if (!opts) return { evidence };
    const reply = replyFor(ctx, sel, evidence, watch.effects, undefined);
    return { observed: { ...reply, hint: `The navigation${url ? ` to ${url}` : ""} has not answered after ${Math.round(pending.ms / 1000)} s and is still loading; nothing could be observed. Run 'bp wait --url <url>' (or 'bp wait --text'), or 'bp back' to give up on it.` } };
  }
  if (def.after && !watch.effects.navigation && !watch.effects.dialog) {
    const later = await def.after(run, sent, evidence);
    if (later) {
      evidence = later;
      if (opts) observation = await observeOnce(run, opts, base, undefined);
    }
  }
  if (!opts) return { evidence };
  return { observed: replyFor(ctx, sel, evidence, watch.effects, observation ?? undefined) };
}

/**
 * Whether a frame that changed settled only once the top document's call (the one with the
 * snapshot) had answered. Looked at a task later: an answer that came in the same read as the
 * top call's, behind it, is then taken as after it (observed again) rather than before.
 */
function settledAfter(pre: PreSteps, polls: (QuietPoll | null)[]): Promise<boolean> {
  return new Promise((resolve) => setImmediate(() => resolve(pre.results !== undefined && polls.some((q) => (q?.mutations ?? 0) > 0))));
}

function callMain<A>(run: ActionRun<A>, steps: PageStep[]) {
  return callPage(run.top, run.watch.mainFrameId, steps);
}

/** How long an action waits for its navigation's new document to commit (docs/actions.md: the 3 s network bound). */
const NAVIGATION_BOUND_MS = 3_000;

function navigationOverdue(watch: ActionWatch): boolean {
  const p = watch.pendingNavigation;
  return p !== undefined && p.ms >= NAVIGATION_BOUND_MS;
}

/**
 * A page call sent just before the action's navigation began is not answered until the new
 * document commits (Chrome holds calls into the old one): past the bound it is left to answer
 * later (undefined now).
 */
async function raceNavigation<T>(watch: ActionWatch, p: Promise<T>): Promise<T | undefined> {
  p.catch(() => undefined);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const overdue = new Promise<undefined>((resolve) => {
    const look = () => {
      if (navigationOverdue(watch)) resolve(undefined);
      else timer = setTimeout(look, 50);
    };
    look();
  });
  try {
    return await Promise.race([p, overdue]);
  } finally {
    clearTimeout(timer);
  }
}

/** A dialog blocks the page: its answer never comes, so the dialog ends the wait. */
function raceDialog<T>(watch: ActionWatch, p: Promise<T>): Promise<T | undefined> {
  p.catch(() => undefined);
  return Promise.race([p, watch.dialogOpened.then(() => undefined)]);
}
