/**
 * Page-side half of `bp drag` (the page runtime's `drag`, an element step): records, in our
 * world, whether the page started (and did not cancel) an HTML5 drag. "arm" before the
 * pointer moves, "check" during them.
 */
import { setSlot, slotOf, type ActWindow } from "./dom.ts";

const KEY = Symbol.for("browser-pilot.drag.v1");

interface Drag {
  started: boolean;
  event?: { defaultPrevented: boolean };
}

/** The drag script's ops (the step's `op`; any other is a check). */
export const DRAG_OPS = {
  arm: (win: ActWindow): boolean => {
    const st: Drag = { started: false };
    setSlot(win, KEY, st);
    win.addEventListener(
      "dragstart",
      (e) => {
        st.started = true;
        st.event = e;
      },
      { capture: true, once: true },
    );
    return true;
  },
  check: (win: ActWindow): boolean => {
    const s = slotOf<Drag>(win, KEY);
    return !!(s && s.started && !(s.event && s.event.defaultPrevented));
  },
};

export function pageDrag(win: ActWindow, _el: unknown, arg: { op?: string }): boolean {
  return arg.op === "arm" ? DRAG_OPS.arm(win) : DRAG_OPS.check(win);
}
