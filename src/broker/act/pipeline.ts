/**
 * The action pipeline. Every action runs these stages, on its tab's queue:
 *   args → tab → locate (the ref, its page steps, the quiet watcher armed in the same call)
 *   → dispatch (one input) or steps (a composite's inputs, the page settled after each `yield`)
 *   → the reply's settle (unless the steps settled after their last input), with the read-back and observation in its call
 *   → evidence → after (a late change) → shape.
 * Every settle, a step's (runDispatch) or the reply's (settleAndReply), is one `Settler.settle(policy)` made here.
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
import { boundUrl } from "../../shared/page-strings.ts";
import { redactUrl } from "../net/redact.ts";
import type { Ran } from "../page-fns.ts";
import { replyFor, type ActionReply, type EvidenceLike } from "./result.ts";
import { type SettleCall, Settler, type Steps } from "../settle/settler.ts";

export type { Steps } from "../settle/settler.ts";

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
  watch: Settler;
  /** The located ref and its locate steps' results, when the action has one. */
  target: ResolvedRef | undefined;
  /**
   * The results of the locate call's input steps when they rode on it; "dialog" when a dialog opened before that call
   * answered (no target then); none when they did not ride, and the action sends its input itself.
   */
  locatedInput?: unknown[] | "dialog";
}

/** The evidence an action's command publishes (src/protocol/evidence.ts). */
export type EvidenceOf<C extends CommandDef> = "evidence" extends keyof ReplyOf<C["result"]>
  ? NonNullable<ReplyOf<C["result"]>["evidence"]>
  : ReplyOf<C["result"]>;

export interface ActionDef<I, A, S = void, E extends EvidenceLike = EvidenceLike, R = ActionReply<E>> {
  /** The action's own arguments, from the command's checked ones (typed by its args schema). */
  args(input: I, ctx: CallContext): A;
  /** Which tab: the agent's selected tab unless said otherwise (dialog answers name theirs). */
  tab?(ctx: CallContext, args: A): Selected;
  /**
   * The ref to locate and the page steps (probe, prepare, find…) to run in the same call. `input`: steps that are the
   * action's input (a setter), run in that call after its steps when the quiet watcher is armed in it first (the ref in
   * the top document); the round trip of their own is saved. They must send nothing when the steps before them found
   * nothing to act on, since the action's checks of those results come after; the action then withdraws the input
   * (Settler.withdrawFirstInput). When a dialog stopped that call (`locatedInput` "dialog") there is no target.
   */
  locate?(args: A): { ref: number; steps: PageStep[]; input?: PageStep[] } | undefined;
  /** Whether the DOM-quiet watcher is armed before dispatch; else the dispatch arms it. */
  armQuiet?: boolean | ((args: A) => boolean);
  /** Sends the action's one input; what it returns goes to the later stages. Or: */
  dispatch?(run: ActionRun<A>): Promise<S>;
  /**
   * A composite action's steps: each input goes through `watch.input(send, true)` (only those are near an input for
   * the page's polling), and each `yield` settles the page with that step's policy.
   */
  steps?(run: ActionRun<A>): Steps<S>;
  /**
   * What it sent was typed text, which starts no timer animation: settled a frame after the last change, no time floor.
   * Its steps' lead-in (the focus read, the pin) counts as near an input, as the keys do.
   */
  typing?: boolean;
  /** No watch of page effects: dropdown only reads, history waits for its own load. */
  watch?: false;
  /** Answers a dialog: not queued behind the command that waits on it, and the blocked page answers nothing before. */
  answersDialog?: true;
  /** Observation options of the reply; none means the action answers with its evidence alone. */
  observe?(args: A): ObserveArgs;
  /** Page steps read back once the page is quiet, in the same call as the snapshot. */
  readback?(run: ActionRun<A>, sent: S): PageStep[];
  /** The evidence, from what dispatch returned and the read-back steps with their results. */
  evidence(run: ActionRun<A>, sent: S, readback: Ran): E;
  /** After the reply's settle (not after a navigation or dialog), with what that settle read back. */
  after?(run: ActionRun<A>, sent: S, evidence: E, readback: Ran): Promise<E | undefined>;
  /** Shapes the final reply (the dialog answer names itself around the action reply). */
  shape?(reply: ActionReply<E>, run: ActionRun<A>, sent: S): R;
}

/** An action as the handler of its command. */
export function defineAction<C extends CommandDef, A, S = void>(
  command: C,
  def: ActionDef<ArgsOf<C>, A, S, EvidenceOf<C>, ReplyOf<C["result"]>>,
): Handler {
  const readOnly = command.mutating !== true;
  return defineShapedHandler(command, {
    dispatch: "lock",
    run: (ctx, input) => runAction(ctx, def, def.args(input, ctx), readOnly),
  });
}

export async function runAction<I, A, S, E extends EvidenceLike, R>(
  ctx: CallContext,
  def: ActionDef<I, A, S, E, R>,
  args: A,
  readOnly: boolean,
): Promise<ActionReply<E> | E | R> {
  const sel = def.tab ? def.tab(ctx, args) : selectedTab(ctx);
  const stages = async (): Promise<ActionReply<E> | E | R> => {
    const top = await sel.browser.session(sel.rec);
    const watch = new Settler(sel.browser, sel.rec, top, def.watch !== false);
    try {
      const located = def.locate?.(args);
      const arming = typeof def.armQuiet === "function" ? def.armQuiet(args) : def.armQuiet === true;
      let target: ResolvedRef | undefined;
      let locatedInput: ActionRun<A>["locatedInput"];
      if (located) {
        // The quiet watcher rides on the locate call when the ref is in the main frame.
        const binding = sel.agent.observations.get(sel.rec.targetId)?.refs.get(located.ref);
        const inMain = binding !== undefined && binding.frameId === watch.mainFrameId && binding.session === top;
        // A target in another frame gets a watcher of its own there, in the same call.
        const arm = arming
          ? [inMain ? watch.quietStep() : binding ? watch.frameQuietStep(binding) : undefined].filter(
              (x) => x !== undefined,
            )
          : [];
        // A same-origin child frame's element: the locate call runs in the top document's world, the frame's own watcher is armed in its world by a call sent alongside.
        const child =
          arming && !def.typing && binding?.childFrame
            ? watch.armFrame({ session: binding.session, frameId: binding.childFrame })
            : undefined;
        // The input rides only behind the watcher it armed in the same document (not a child frame's, armed alongside).
        const input = arming && inMain && !binding?.childFrame && !def.answersDialog ? (located.input ?? []) : [];
        const steps = [...located.steps, ...arm, ...input];
        if (input.length === 0) [target] = await Promise.all([resolveRef(sel, located.ref, steps), child]);
        else {
          // The call is the action's input: the page's requests are then watched, and a dialog its handlers open ends it.
          await watch.ready;
          const sent = watch.input(() => resolveRef(sel, located.ref, steps), true);
          sent.catch(() => undefined);
          const got = await Promise.race([sent, watch.dialogOpened.then(() => "dialog" as const)]);
          if (got === "dialog") locatedInput = got;
          else {
            target = got;
            locatedInput = got.results.slice(steps.length - input.length);
          }
        }
      }
      if (!def.answersDialog) await watch.ready;
      if (arming && !watch.armed) await watch.armQuiet();
      const run: ActionRun<A> = { ctx, args, sel, top, watch, target, ...(locatedInput ? { locatedInput } : {}) };
      const { sent, settled: stepsSettled } = await runDispatch(run, def);
      const opts = def.observe?.(args);
      const readback = def.readback?.(run, sent) ?? [];
      // The steps settled after their last input and nothing is read back in the reply's call: it observes only.
      const settled = stepsSettled && readback.length === 0;
      // Outside the queue (dialog answers), the observation still takes its turn on the tab.
      const inTurn = <T>(fn: () => Promise<T>): Promise<T> =>
        def.answersDialog ? ctx.broker.exclusive(sel.rec.targetId, fn) : fn();
      const out = await inTurn(() =>
        settled || def.watch === false
          ? reply(run, def.evidence(run, sent, { steps: [], results: [] }), opts)
          : settleAndReply(run, def, sent, readback, opts),
      );
      if (!out.observed) return out.evidence;
      return def.shape ? def.shape(out.observed, run, sent) : out.observed;
    } finally {
      watch.stop();
    }
  };
  if (!def.answersDialog) return ctx.broker.exclusive(sel.rec.targetId, stages);
  if (!readOnly) ctx.markDispatched();
  return stages();
}

/**
 * The dispatch stage: one input (the whole dispatch), or a composite action's steps, whose inputs are those sent through
 * `Settler.input(send, true)` (a typing action's lead-in too: the focus read and the pin before the first key) and
 * each of whose `yield`s is one `Settler.settle` with that step's policy. `settled`: the steps settled after their last
 * input (or sent none), so the reply has nothing more of theirs to wait for.
 */
export async function runDispatch<A, S>(
  run: ActionRun<A>,
  def: Pick<ActionDef<unknown, A, S>, "dispatch" | "steps" | "typing">,
): Promise<{ sent: S; settled: boolean }> {
  const { watch, ctx } = run;
  if (!def.steps) {
    const dispatch = def.dispatch;
    if (!dispatch) throw new Error("An action needs a dispatch or steps.");
    return { sent: await watch.dispatch(() => dispatch(run), false), settled: false };
  }
  const steps = def.steps(run);
  const sent = await watch.dispatch(async () => {
    let next = await steps.next();
    while (!next.done) {
      let also: unknown[] | undefined;
      try {
        also = await watch.settle({ ...next.value, deadline: ctx.deadline });
      } catch (err) {
        // The steps' own cleanup (a pin, a released object) runs, as around an inline settle.
        next = await steps.throw(err);
        continue;
      }
      next = await steps.next(also);
    }
    return next.value;
  }, def.typing !== true);
  return { sent, settled: !watch.unsettled };
}

/** An action's answer: the reply with its observation, or (an action that does not observe) the evidence alone. */
type Answer<E> = { observed: ActionReply<E>; evidence?: undefined } | { observed?: undefined; evidence: E };

/** Observes after an action that settled itself. */
async function reply<A, E extends EvidenceLike>(
  run: ActionRun<A>,
  evidence: E,
  opts: ObserveArgs | undefined,
): Promise<Answer<E>> {
  const { ctx, sel, watch } = run;
  // Commands that do not observe (dropdown, history) answer with their result alone.
  if (!opts) return { evidence };
  const base = sel.agent.observations.get(sel.rec.targetId)?.last;
  const observation = await observeOnce(run, opts, base, undefined);
  return { observed: replyFor(ctx, sel, evidence, watch.effects, observation) };
}

function observeOnce<A>(
  run: ActionRun<A>,
  opts: ObserveArgs,
  base: SnapshotResult | undefined,
  pre: PreSteps | undefined,
) {
  const { ctx, sel, watch } = run;
  if (sel.rec.dialog || watch.effects.dialog) return Promise.resolve(undefined);
  // Always with pre steps (possibly none): an action's observation reuses the document's listener marks.
  return observeWith(
    ctx,
    sel,
    { limit: opts.limit, diff: !opts.full && !watch.effects.navigation, near: run.target?.ref },
    { sameDocument: !watch.effects.navigation, base, pre: pre ?? { steps: [] } },
  );
}

/** The reply's settle, then the evidence, the pending navigation's hint and the action's `after` stage. */
async function settleAndReply<I, A, S, E extends EvidenceLike, R>(
  run: ActionRun<A>,
  def: ActionDef<I, A, S, E, R>,
  sent: S,
  readback: PageStep[],
  opts: ObserveArgs | undefined,
): Promise<Answer<E>> {
  const { ctx, sel, watch } = run;
  const base = sel.agent.observations.get(sel.rec.targetId)?.last;
  const settled = await watch.settle({
    reply: true,
    deadline: ctx.deadline,
    typing: def.typing === true,
    readback,
    target: run.target?.binding,
    observe: opts ? (call: SettleCall | undefined) => observeOnce(run, opts, base, call) : undefined,
  });
  let observation = settled.observation;
  const e = watch.effects;
  const ran: Ran = { steps: readback, results: e.navigation || e.dialog ? [] : settled.readback };
  let evidence = def.evidence(run, sent, ran);
  const pending = settled.pending;
  if (pending) {
    const url = pending.url !== undefined ? redactUrl(boundUrl(pending.url)) : undefined;
    evidence = { ...evidence, pendingNavigation: { ...(url !== undefined ? { url } : {}), ms: pending.ms } };
    if (!opts) return { evidence };
    const reply = replyFor(ctx, sel, evidence, e, undefined);
    return {
      observed: {
        ...reply,
        hint: `The navigation${url ? ` to ${url}` : ""} has not answered after ${Math.round(pending.ms / 1000)} s and is still loading; nothing could be observed. Run 'bp wait --url <url>' (or 'bp wait --text'), or 'bp stop' to give up on it and stay on this page.`,
      },
    };
  }
  if (def.after && !e.navigation && !e.dialog) {
    const later = await def.after(run, sent, evidence, ran);
    if (later) {
      evidence = later;
      if (opts) observation = await observeOnce(run, opts, base, undefined);
    }
  }
  if (!opts) return { evidence };
  return { observed: replyFor(ctx, sel, evidence, e, observation ?? undefined) };
}
