/**
 * Animations that only repaint: colours, shadows, an outline. They change nothing an
 * observation reads (roles, names, values, display, visibility, opacity, boxes), so a settle
 * that waits for running animations to end need not wait for these when an earlier step of the
 * action started them. After a focusing click, `type` marks the ones running when the focus is
 * proved (a focus ring or border colour fading in, the field left behind fading out, a hover
 * colour): the text's settle then does not wait 150-300 ms for a design system's focus
 * transition. What the text itself starts is not marked, nor anything that moves, resizes,
 * fades or hides an element.
 */
import { setSlot, slotOf, type ActAnimation, type ActWindow } from "./act-dom.ts";

const KEY = Symbol.for("browser-pilot.paint-only.v1");

/** Keyframe properties (as getKeyframes names them) that only repaint. */
const PAINT = new Set([
  "color",
  "backgroundColor",
  "borderTopColor",
  "borderRightColor",
  "borderBottomColor",
  "borderLeftColor",
  "borderBlockStartColor",
  "borderBlockEndColor",
  "borderInlineStartColor",
  "borderInlineEndColor",
  "borderColor",
  "outline",
  "outlineColor",
  "outlineWidth",
  "outlineStyle",
  "outlineOffset",
  "boxShadow",
  "textShadow",
  "textDecorationColor",
  "caretColor",
  "accentColor",
  "columnRuleColor",
  "fill",
  "stroke",
]);
/** A keyframe's own fields, not animated properties. */
const KEYFRAME_FIELDS = new Set(["offset", "computedOffset", "easing", "composite"]);

/** Whether every property the animation animates only repaints; unknown or none: no. */
function paintOnly(a: ActAnimation): boolean {
  try {
    const frames = a.effect?.getKeyframes?.();
    if (!frames || frames.length === 0) return false;
    let any = false;
    for (const f of Array.from(frames)) {
      for (const key of Object.keys(f)) {
        if (KEYFRAME_FIELDS.has(key)) continue;
        if (!PAINT.has(key)) return false;
        any = true;
      }
    }
    return any;
  } catch {
    return false;
  }
}

/** Whether it ends (an endless one is never waited for anyway). */
function finite(a: ActAnimation): boolean {
  try {
    const end = a.effect?.getComputedTiming ? a.effect.getComputedTiming().endTime : Infinity;
    return typeof end === "number" && isFinite(end);
  } catch {
    return false;
  }
}

/**
 * Marks the running animations that only repaint as started before the next watcher. Reading
 * the document's animations brings its style up to date first, so a transition the focus just
 * caused exists now, before the next rendered frame would start it.
 */
export function markPaintOnly(win: ActWindow): void {
  const marked = new WeakSet<object>();
  try {
    const list = win.document.getAnimations ? win.document.getAnimations() : [];
    for (let i = 0; i < list.length && i < 500; i++) {
      const a = list[i];
      if (a && (a.playState === "running" || a.playState === "pending") && finite(a) && paintOnly(a)) marked.add(a);
    }
  } catch {}
  setSlot(win, KEY, marked);
}

/** Whether `a` was marked by the last markPaintOnly() in this document. */
export function markedPaintOnly(win: ActWindow, a: ActAnimation): boolean {
  return slotOf<WeakSet<object>>(win, KEY)?.has(a) === true;
}
