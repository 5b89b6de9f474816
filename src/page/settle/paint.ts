/** Animations that only repaint: colours, backgrounds, shadows, an outline. */
import type { ActAnimation } from "../act/dom.ts";

/** Keyframe properties (as getKeyframes names them) that only repaint. */
export const PAINT = new Set([
  "color",
  "backgroundColor",
  // The \`background\` shorthand's longhands, as a CSS animation of it lists them all.
  "background",
  "backgroundImage",
  "backgroundPosition",
  "backgroundPositionX",
  "backgroundPositionY",
  "backgroundSize",
  "backgroundRepeat",
  "backgroundAttachment",
  "backgroundOrigin",
  "backgroundClip",
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

/** The answer per effect: its keyframes are read once, not at every look of every settle. */
const known = new WeakMap<object, boolean>();

/** Whether every property the animation animates only repaints. */
export function paintOnly(a: ActAnimation): boolean {
  const effect = a.effect;
  if (!effect) return false;
  let only = known.get(effect);
  if (only === undefined) {
    only = read(effect);
    known.set(effect, only);
  }
  return only;
}

function read(effect: NonNullable<ActAnimation["effect"]>): boolean {
  try {
    const frames = effect.getKeyframes?.();
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
