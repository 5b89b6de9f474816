/**
 * What a change during the settle came right after, when that is newer than what the settle runs
 * from: an answer to a request the page's scripts started since the arm (responses.ts), or the
 * pointer crossing into another element meanwhile (the out, leave, over and enter events Chromium
 * sends once a render moved other content under the resting pointer, whose hover handlers restyle
 * the elements). Such a change is that cause's own, as the dispatch's handlers' changes are the
 * input's: the settle runs from it. Not when another change came between the settle's own cause
 * and this one that no answer between them explains: the page was moving on its own, and waits
 * for quiet.
 */
import type { ActWindow } from "../act/dom.ts";
import { readClock } from "./input.ts";
import type { Watcher } from "./quiet.ts";

export interface Cause {
  at: number;
  kind: "answer" | "over";
}

/** The newest cause at most `within` ms before the last change, if it is later than `from` (page clock); null: none. */
export function laterCause(win: ActWindow, sts: Watcher[], from: number, within: number): Cause | null {
  let last = 0,
    installed = 0;
  for (const s of sts) {
    last = Math.max(last, s.lastHr);
    installed = Math.max(installed, s.hr);
  }
  if (last <= from) return null;
  let answer = 0;
  for (const s of sts) answer = Math.max(answer, s.res?.endedBefore(last, within) ?? 0);
  // The burst's first event is the cause; its handlers' changes may come all through it (an out handler's first).
  const clock = readClock(win);
  const began = clock?.over ?? 0,
    ended = clock?.overEnd ?? began;
  const over = began > installed && began <= last && last - ended <= within ? began : 0;
  const at = Math.max(answer, over);
  if (at <= from) return null;
  // A change after the settle's own cause's moment and before this one is the page's own, unless it came right after
  // an answer between them (that answer's render, when the crossing it brought is the newer cause).
  const answered = (t: number): boolean => sts.some((s) => (s.res?.endedBefore(t, within) ?? 0) > from);
  for (const s of sts) for (const t of s.batches ?? []) if (t > from + within && t < at && !answered(t)) return null;
  return { at, kind: over > answer ? "over" : "answer" };
}
