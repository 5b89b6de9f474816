/**
 * The page's own steps after an action, made by an animation-frame loop of its own (jQuery's
 * `animate`; a `requestAnimationFrame` tween): the loop has ended once a frame ran in which the
 * page changed nothing and asked for no next frame. Judged by what came where, from the frame
 * callback of our watcher (which runs first in a frame when it asked before the page's loop did,
 * as it does for a loop the action started): changes and frame requests before it came from tasks
 * (a timer's step, an interval's, a write a task asked a frame for), those after it from the
 * frame's callbacks. Only changes made in frames, each by a callback a frame before asked for, no
 * task's change or frame request, and no timer or idle callback set since the settle began (what
 * the action's own handlers set came before it) make a loop; anything else leaves the page to the
 * quiet period of a page changing on its own, as does a look that missed a frame. The changes the
 * pointer's over events made in their own tasks are excused: the loop's frames move the page under
 * the pointer, and its hover styles follow (a handler there that asks for a frame or sets a timer
 * still counts, and so does any other task's change beside them).
 */
import type { ActWindow } from "../act/dom.ts";
import { armedFrame, childFrames, frameMark, framesAskedBetween, type FrameMarks } from "./frames.ts";
import { marks, pageScheduled } from "./ledger.ts";

/** What a watcher's frame callback and its resize observation at the frame's end noted (quiet.ts). */
interface Ticks {
  /** The animation-frame id counter at the action's first input, before the page's handlers (frames.ts armedFrame). */
  marks: FrameMarks;
  /** Rendered frames so far. */
  frames: number;
  tickMutations: number;
  tickOver: number;
  tickAsk: number | undefined;
  endFrames: number;
  endMutations: number;
  overEnd: number;
  endAsk: number | undefined;
  overMutations: number;
}

export interface FrameLoop {
  /** Judges what came since the last look (every look of the settle calls it, between frames) by the count now. */
  look(mutations: number): void;
  /** The changes since the settle began all came from such a loop, and it asks for no frame now. */
  ended(): boolean;
}

/** `mutations`: the changes the settle began with (its base); `known`: whether all of those are the action's own. */
export function frameLoop(win: ActWindow, st: Ticks, mutations: number, known: boolean): FrameLoop {
  const since = marks(win);
  // Read before the counter below when still unread (no input event came): a mark read after it would tell of nothing.
  const armed = armedFrame(win, st.marks);
  let seen = mutations,
    overSeen = st.overMutations,
    frame = st.frames,
    broken = !known,
    stepped = false,
    // The animation-frame id counter at the first look after the last frame (at the start: then): what a task asked
    // for since runs in the next frame. Probed once a frame, not at every look.
    counter = frameMark(win),
    // A frame callback of the page's waits for the next frame: at the start, one the action's handlers asked for.
    waiting = framesAskedBetween(win, armed, counter);
  return {
    look(now) {
      if (broken) return;
      if (st.frames === frame) {
        // Between frames a change is a task's (a frame a task asks for shows at the next frame's look).
        if (now - seen > st.overMutations - overSeen) broken = true;
        seen = now;
        overSeen = st.overMutations;
        return;
      }
      const before = counter;
      counter = frameMark(win);
      const tick = st.tickAsk;
      const end = st.endAsk;
      // A look that missed a frame, or a frame our callback did not begin or its end did not report, cannot tell
      // what came where.
      if (
        st.frames !== frame + 1 ||
        st.endFrames !== st.frames ||
        tick === undefined ||
        end === undefined ||
        before === undefined ||
        tick < before ||
        end < tick
      )
        broken = true;
      // Tasks before the frame, or after it, changed the page (beyond what the over events' handlers did) or asked for a frame.
      else if (
        st.tickMutations - seen + (now - st.endMutations) > st.tickOver - overSeen + (st.overMutations - st.overEnd) ||
        framesAskedBetween(win, before, tick) ||
        framesAskedBetween(win, end, counter)
      )
        broken = true;
      else {
        if (st.endMutations > st.tickMutations) {
          // Changed in the frame: by the callback the frame before asked for.
          if (!waiting) broken = true;
          stepped = true;
        }
        waiting = framesAskedBetween(win, tick, end);
      }
      frame = st.frames;
      seen = now;
      overSeen = st.overMutations;
    },
    ended() {
      return (
        !broken &&
        stepped &&
        !waiting &&
        !pageScheduled(win, since) &&
        !framesAskedBetween(win, counter, frameMark(win)) &&
        // A frame the loop put in the document runs callbacks of its own, on its own counters.
        !childFrames(win)
      );
    },
  };
}
