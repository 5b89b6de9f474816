import type { CdpSession } from "../../cdp/session.ts";
import type { PageStep } from "../../page/runtime.ts";
import { readResult } from "../page-fns.ts";
import { callPage } from "../world.ts";
import type { Effects } from "./effects.ts";
import type { StepPolicy } from "./policy.ts";
import { type FrameAt, nextWatcherId, WATCH_LINGER_MS, type Watchers } from "./watchers.ts";

/** How long an action waits, after its settle, for a change a timer of its input handlers brings. */
export const LATE_TIMER_MS = 500;

/** What a late wait reads of its settler. */
export interface LateHost {
  readonly effects: Effects;
  readonly mainFrameId: string;
  readonly dialogOpened: Promise<void>;
  readonly watchers: Watchers;
  armQuiet(): Promise<void>;
  settle(policy: StepPolicy): Promise<unknown[] | undefined>;
  lateChange(frame: FrameAt, windowMs: number, deadline: number): Promise<boolean>;
}

/**
 * After the reply's settle: an action that changed nothing yet while its input handlers set a timer waits for the
 * first change or request, and settles again. `popup`: the pointer came over an element that says it opens a popup,
 * which is not open yet; its own hover styling (a class on the item) is then no answer to the timer (a menu's
 * hover-intent delay), so the wait is not skipped for a DOM change.
 */
export async function lateTimerChange(
  run: { watch: LateHost; top: CdpSession; ctx: { deadline: number } },
  inputs: "press" | "pointer",
  popup = false,
): Promise<boolean> {
  const { watch, ctx } = run;
  const e = watch.effects;
  // A tooltip the click's pointer move starts is no answer to the click.
  const timed = inputs === "press" ? e.timed : e.timed || e.timedOver;
  if (
    !timed ||
    (e.mutations > 0 && !popup) ||
    e.requests > 0 ||
    e.navigation ||
    e.urlChanged ||
    e.dialog ||
    e.popups.length > 0 ||
    e.downloads.length > 0
  )
    return false;
  return watch.lateChange({ session: run.top, frameId: watch.mainFrameId }, LATE_TIMER_MS, ctx.deadline);
}

/** Waits up to `windowMs` for the first DOM change in the frame or a request the page starts. */
export async function lateChange(s: LateHost, frame: FrameAt, windowMs: number, deadline: number): Promise<boolean> {
  const id = nextWatcherId();
  const requests = s.effects.requests;
  // A starved renderer runs timers late: the page also waits for as many frames, within twice the window.
  const window = Math.max(0, Math.min(windowMs, (deadline - 500 - Date.now()) / 2));
  const steps: PageStep[] = [
    { fn: "quiet", arg: { op: "install", id } },
    // The watcher stays when nothing changed: a request the page started may still bring the change.
    { fn: "quiet", arg: { op: "late", ids: [id], windowMs: window, linger: WATCH_LINGER_MS } },
  ];
  const late = await Promise.race([
    callPage(frame.session, frame.frameId, steps).then(
      (r) => readResult({ steps, results: r.results }, 1, "quiet", "late"),
      () => null,
    ),
    s.dialogOpened.then(() => null),
  ]);
  const changed = late?.changed === true || s.effects.requests > requests;
  if (changed) {
    if (frame.frameId !== s.mainFrameId) await s.armQuiet();
    s.watchers.adopt(frame, id);
    await s.settle({ deadline });
  }
  return changed;
}
