/**
 * The page's own steps after an action, made by an animation-frame loop of its own (jQuery's
 * `animate`; a `requestAnimationFrame` tween): the loop has ended once the page asks for no frame
 * after a step. Every change must have come while a frame callback of the page's was pending (the
 * one that made it), and no timer or idle callback may have been set since the settle began (what
 * the action's own handlers set came before it); a step that did not (a timer's, an interval's, a
 * step that set a timer for a later one) leaves the page to the quiet period of a page changing on
 * its own.
 */
import type { ActWindow } from "../act/dom.ts";
import { foreignFrame } from "./frames.ts";
import { marks, pageScheduled } from "./ledger.ts";

export interface FrameLoop {
  /** Judges what came since the last look (every look of the settle calls it, in a task after the frame's callbacks). */
  look(mutations: number): void;
  /** The changes since the settle began all came from such a loop, and it asks for no frame now. */
  ended(): boolean;
}

/** `mutations`: the changes the settle began with (its base); `known`: whether all of those are the action's own. */
export function frameLoop(win: ActWindow, mutations: number, known: boolean): FrameLoop {
  const since = marks(win);
  let seen = mutations,
    broken = !known,
    stepped = false,
    // A frame callback of the page's was pending at the look before (known to be: a frame of ours ran): the change
    // since may be its.
    asked = foreignFrame(win, false);
  return {
    look(now) {
      if (broken) return;
      const pending = foreignFrame(win, false);
      if (now > seen) {
        stepped = true;
        if (!pending && !asked) broken = true;
      }
      seen = now;
      asked = pending;
    },
    ended() {
      return !broken && stepped && !pageScheduled(win, since) && !foreignFrame(win);
    },
  };
}
