import type { CdpSession } from "../../cdp/session.ts";
import type { ActionWatch } from "./watch.ts";

/**
 * How long an action waits, after its settle, for the change a timer of its input handlers
 * brings: a menu that opens after a hover-intent delay, a "Copied" label set a moment after
 * the click. Bounded: a timer that never changes anything (an analytics beacon) costs this.
 */
export const LATE_TIMER_MS = 500;

/**
 * After the settle (the pipeline's `after` stage): an action that has changed nothing yet
 * while the handlers of its input events scheduled a timer (the page says `timed` for a press,
 * a click or a key, `timedOver` for the pointer coming over an element; `inputs` says which
 * count: "press" for a click, "pointer" for a hover) waits up to
 * LATE_TIMER_MS for the first change in the top document or a request the page starts, and
 * settles again. Whether something came; the reply then observes the page again.
 */
export async function lateTimerChange(run: { watch: ActionWatch; top: CdpSession; ctx: { deadline: number } }, inputs: "press" | "pointer"): Promise<boolean> {
  const { watch, ctx } = run;
  const e = watch.effects;
  // A click counts its press and release only: a tooltip its pointer move starts is no answer to the click.
  const timed = inputs === "press" ? e.timed : e.timed || e.timedOver;
  if (!timed || e.mutations > 0 || e.requests > 0 || e.navigation || e.urlChanged || e.dialog || e.popups.length > 0 || e.downloads.length > 0) return false;
  return watch.lateChange({ session: run.top, frameId: watch.mainFrameId }, LATE_TIMER_MS, ctx.deadline);
}
