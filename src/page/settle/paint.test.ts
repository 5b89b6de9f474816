import { describe, expect, test } from "bun:test";
import type { ActAnimation } from "../act/dom.ts";
import { paintOnly } from "./paint.ts";

/** An animation as Chromium reports it: its keyframes' properties, and how often they were read. */
function animation(props: string[][]): ActAnimation & { reads: number } {
  const a = {
    reads: 0,
    playState: "running",
    startTime: 0,
    effect: {
      getComputedTiming: () => ({ endTime: 150 }),
      getKeyframes: () => {
        a.reads++;
        return props.map((p) =>
          Object.fromEntries([
            ["offset", 0],
            ["computedOffset", 0],
            ["easing", "ease"],
            ["composite", "auto"],
            ...p.map((k) => [k, "x"]),
          ]),
        );
      },
    },
  };
  return a;
}

describe("repaint-only animations", () => {
  test("colours, shadows and outlines only repaint; anything that moves, resizes, fades or hides does more", () => {
    const cases: [string[][], boolean][] = [
      [
        [
          ["boxShadow", "borderTopColor"],
          ["boxShadow", "borderTopColor"],
        ],
        true,
      ],
      [[["outlineColor"], ["outlineColor"]], true],
      [[["backgroundColor"], ["color"]], true],
      // A CSS animation of the \`background\` shorthand, as Chromium lists its keyframes.
      [
        [
          ["backgroundClip", "backgroundColor", "backgroundImage", "backgroundOrigin", "backgroundPositionX"],
          ["backgroundPositionY", "backgroundRepeat", "backgroundSize", "backgroundAttachment", "backgroundColor"],
        ],
        true,
      ],
      [[["opacity"], ["opacity"]], false],
      [[["height"], ["height"]], false],
      [[["visibility"], ["visibility"]], false],
      // One effect that animates a colour with a transform moves the element.
      [
        [
          ["backgroundColor", "transform"],
          ["backgroundColor", "transform"],
        ],
        false,
      ],
      [[["color"], ["color", "filter"]], false],
      // A custom property may feed anything.
      [[["--tint"], ["--tint"]], false],
      [[[], []], false],
      [[], false],
    ];
    expect(cases.map(([props]) => paintOnly(animation(props)))).toEqual(cases.map(([, only]) => only));
  });

  test("keyframes are read once per effect; a new effect is read again", () => {
    const a = animation([["color"], ["color"]]);
    expect([paintOnly(a), paintOnly(a), paintOnly(a)]).toEqual([true, true, true]);
    expect(a.reads).toBe(1);
    const moved = animation([["transform"], ["transform"]]);
    a.effect = moved.effect;
    expect(paintOnly(a)).toBe(false);
    expect(moved.reads).toBe(1);
  });

  test("an animation without an effect, or whose keyframes cannot be read, does more than repaint", () => {
    const broken: ActAnimation = {
      playState: "running",
      startTime: 0,
      effect: {
        getKeyframes: () => {
          throw new Error("no");
        },
      },
    };
    const bare: ActAnimation = { playState: "running", startTime: 0, effect: {} };
    const none: ActAnimation = { playState: "running", startTime: 0, effect: null };
    expect([broken, bare, none].map(paintOnly)).toEqual([false, false, false]);
  });
});
