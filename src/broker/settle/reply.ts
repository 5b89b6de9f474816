import type { PageStep } from "../../page/runtime.ts";
import { readResult } from "../page-fns.ts";
import { callPage } from "../world.ts";
import type { Effects, QuietPoll } from "./effects.ts";
import type { ReplyPolicy, ReplySettled, SettleCall } from "./policy.ts";
import { DOM_QUIET_MAX_MS, type WatcherHost, type Watchers } from "./watchers.ts";

/** What the reply's settle reads of its settler. */
export interface ReplyHost extends WatcherHost {
  readonly effects: Effects;
  readonly watchers: Watchers;
  readonly busy: boolean;
  readonly pendingNavigation: { url?: string; ms: number } | undefined;
  waitNetwork(deadline: number): Promise<void>;
}

/** How long an action waits for its navigation's new document to commit (the 3 s network bound). */
const NAVIGATION_BOUND_MS = 3_000;

/** Settles, reads back and observes in one page call. */
export async function replyLoop<O>(
  s: ReplyHost,
  p: ReplyPolicy<O>,
): Promise<Omit<ReplySettled<O>, "pending"> & { mutations: number; timed: boolean; timedOver: boolean }> {
  const e = s.effects;
  let ids = s.watchers.takeQuiet();
  const started = Date.now();
  let readback: unknown[] = [];
  let observation: O | undefined;
  let mutations = 0;
  let timed = false;
  let timedOver = false;
  /** The observation was taken before the target's frame had settled. */
  let stale = false;
  let remoteReadback: unknown[] | undefined;
  const binding = p.target;
  const remote = binding !== undefined && (binding.frameId !== s.mainFrameId || binding.session !== s.session);
  const guard = (err: unknown) => {
    if (e.navigation || e.dialog) return undefined;
    throw err;
  };
  for (;;) {
    if (e.dialog) break;
    if (s.busy) await s.waitNetwork(p.deadline);
    // A navigation that has not even committed is reported as pending, not waited out.
    if (s.pendingNavigation) break;
    const requests = e.requests;
    const navigating = e.navigation;
    const polling = ids.length > 0 && !navigating;
    // The watchers linger in the page after settling.
    const steps: PageStep[] = polling
      ? [s.watchers.settleStep(ids, { max: DOM_QUIET_MAX_MS, deadline: p.deadline, typing: p.typing })]
      : [];
    const when = polling ? { step: 0 } : undefined;
    if (!e.navigation && !remote) steps.push(...p.readback.map((st) => (when ? { ...st, when } : st)));
    const call: SettleCall = { steps, ...(when ? { snapshotWhen: when } : {}) };
    // A target in a frame settles by its frame's rules too, beside this call.
    const frameReadback =
      remote && p.readback.length > 0 && !e.navigation ? { frame: binding, steps: p.readback } : undefined;
    const frames = polling ? s.watchers.settleFrames(p.deadline, p.typing, frameReadback) : undefined;
    const frameLate = frames?.then((f) => {
      remoteReadback = f.also;
      return settledAfter(call, f.polls);
    });
    let results: unknown[];
    if (p.observe) {
      observation = await raceDialog(s, raceNavigation(s, p.observe(call))).catch(guard);
      results = call.results ?? [];
    } else {
      results = steps.length
        ? ((await raceDialog(s, raceNavigation(s, callPage(s.session, s.mainFrameId, steps))))?.results ?? [])
        : [];
    }
    // Chrome answers no call into a document whose navigation is pending.
    if (navigationOverdue(s)) break;
    if (frameLate) stale = p.observe !== undefined && (await frameLate);
    if (e.dialog) break;
    const poll = polling ? readResult({ steps, results }, 0, "quiet", "settle") : undefined;
    if (polling && !poll) {
      // The watchers are gone (a new document, or a failed call).
      ids = [];
      if (!e.navigation) continue;
    }
    // The same watchers' count since their arm, of which the page may since have learnt some as its own churn.
    if (poll) mutations = poll.mutations;
    if (poll?.timed) timed = true;
    if (poll?.timedOver) timedOver = true;
    readback = polling ? results.slice(1) : results;
    // A navigation that began while the page settled.
    if (!navigating && e.navigation && Date.now() - started <= 3_000) continue;
    // A response usually changes the page when it lands (also one that started and ended inside the call).
    if (e.requests === requests || Date.now() - started > 3_000) break;
  }
  if (stale && p.observe && !e.navigation && !e.dialog)
    observation = await raceDialog(s, p.observe(undefined)).catch(guard);
  if (remoteReadback && !e.navigation && !e.dialog) readback = remoteReadback;
  else if (remote && p.readback.length > 0 && !e.navigation && !e.dialog) {
    readback =
      (
        await raceDialog(
          s,
          callPage(binding.session, binding.frameId, p.readback).catch(() => undefined),
        )
      )?.results ?? [];
  }
  return { observation, readback, mutations, timed, timedOver };
}

/** Whether a frame that changed settled only after the top document's call answered (looked at a task later). */
function settledAfter(call: SettleCall, polls: (QuietPoll | null)[]): Promise<boolean> {
  return new Promise((resolve) =>
    setImmediate(() => resolve(call.results !== undefined && polls.some((q) => (q?.mutations ?? 0) > 0))),
  );
}

function navigationOverdue(s: ReplyHost): boolean {
  const p = s.pendingNavigation;
  return p !== undefined && p.ms >= NAVIGATION_BOUND_MS;
}

/** A call sent just before a navigation is not answered until the new document commits: past the bound, undefined. */
async function raceNavigation<T>(s: ReplyHost, p: Promise<T>): Promise<T | undefined> {
  p.catch(() => undefined);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const overdue = new Promise<undefined>((resolve) => {
    const look = () => {
      if (navigationOverdue(s)) resolve(undefined);
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

/** A dialog blocks the page: its answer never comes. */
function raceDialog<T>(s: ReplyHost, p: Promise<T>): Promise<T | undefined> {
  p.catch(() => undefined);
  return Promise.race([p, s.dialogOpened.then(() => undefined)]);
}
