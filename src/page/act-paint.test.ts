import { describe, expect, test } from "bun:test";
import type { ActAnimation, ActWindow } from "./act-dom.ts";
import { markPaintOnly, markedPaintOnly } from "./act-paint.ts";

/** An animation as Chromium reports it: its state and its keyframes' properties. */
function animation(props: string[][], playState = "running", endTime = 150): ActAnimation {
  return { playState, startTime: 0, effect: { getComputedTiming: () => ({ endTime }), getKeyframes: () => props.map((p) => Object.fromEntries([["offset", 0], ["easing", "ease"], ["composite", "auto"], ...p.map((k) => [k, "x"])])) } };
}

function windowWith(list: ActAnimation[]): ActWindow {
  return { document: { getAnimations: () => list } } as unknown as ActWindow;
}

describe("repaint-only animations", () => {
  test("marks running animations of colours, shadows and outlines only; anything that moves, resizes, fades or hides is not", () => {
    const ring = animation([["boxShadow", "borderTopColor"], ["boxShadow", "borderTopColor"]]);
    const outline = animation([["outlineColor"], ["outlineColor"]]);
    const fade = animation([["opacity"], ["opacity"]]);
    const mixed = animation([["boxShadow", "transform"], ["boxShadow", "transform"]]);
    const none = animation([[], []]);
    const finished = animation([["color"], ["color"]], "finished");
    const later = animation([["color"], ["color"]]);
    // An endless one is never waited for, so it needs no mark.
    const endless = animation([["color"], ["color"]], "running", Infinity);
    const list = [ring, outline, fade, mixed, none, finished, endless];
    const win = windowWith(list);
    markPaintOnly(win);
    expect([ring, outline, fade, mixed, none, finished, endless, later].map((a) => markedPaintOnly(win, a))).toEqual([true, true, false, false, false, false, false, false]);
    // The next mark replaces the last: only what runs then is marked.
    list.splice(0, list.length, later);
    markPaintOnly(win);
    expect([ring, later].map((a) => markedPaintOnly(win, a))).toEqual([false, true]);
  });

  test("an animation whose keyframes cannot be read, or a document without animations, marks nothing", () => {
    const broken: ActAnimation = { playState: "running", startTime: 0, effect: { getKeyframes: () => { throw new Error("no"); } } };
    const win = windowWith([broken]);
    markPaintOnly(win);
    expect(markedPaintOnly(win, broken)).toBe(false);
    const bare = { document: {} } as unknown as ActWindow;
    markPaintOnly(bare);
    expect(markedPaintOnly(bare, broken)).toBe(false);
  });
});
