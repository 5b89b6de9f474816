import { describe, expect, test } from "bun:test";
import type { SnapshotEntry, SnapshotResult } from "../../page/types.ts";
import { BpError } from "../../shared/errors.ts";
import type { FrameWorld } from "../frame-world.ts";
import { TabObservation } from "../refs.ts";
import { chooseBoxes, parseRefList, toImageBoxes } from "./annotate.ts";

function result(elements: SnapshotEntry[]): SnapshotResult {
  return {
    title: "t",
    url: "u",
    page: {
      viewportWidth: 800,
      viewportHeight: 600,
      documentWidth: 800,
      documentHeight: 600,
      scrollX: 0,
      scrollY: 0,
      pixelsAbove: 0,
      pixelsBelow: 0,
      pixelsLeft: 0,
      pixelsRight: 0,
      scrollPercentX: 0,
      scrollPercentY: 0,
    },
    elements,
    totalCandidates: elements.length,
    candidateRefs: [],
    truncated: false,
    truncationReasons: [],
    hints: [],
    layout: true,
    stats: { visitedNodes: 0, candidates: 0, frames: 0, errors: 0, nextRef: 10, ms: 0 },
  };
}

const el = (ref: number, x: number, y: number): SnapshotEntry => ({
  kind: "element",
  ref,
  role: "button",
  name: "b",
  box: { x, y, w: 10, h: 5 },
  inViewport: true,
});

function observation(): TabObservation {
  const obs = new TabObservation(1, "target", "loader", "http://x/");
  const binding = {} as FrameWorld;
  for (const r of [1, 2, 3, 4, 5]) obs.bind(r, binding);
  obs.last = result([
    el(1, 0, 0),
    {
      kind: "fold",
      count: 2,
      firstRef: 3,
      lastRef: 4,
      refs: [3, 4],
      role: "link",
      roles: ["link"],
      period: 1,
      samples: [],
    },
    {
      kind: "frame",
      ref: 2,
      role: "iframe",
      name: "",
      src: "http://y/",
      frame: "1",
      reason: "cross_origin",
      box: { x: 100, y: 100, w: 50, h: 50 },
      offset: { x: 100, y: 100 },
      inViewport: true,
    },
    el(5, 110, 120),
  ]);
  return obs;
}

describe("--annotate refs", () => {
  test("no value or 'all' means every ref; a list is parsed and deduplicated", () => {
    expect(parseRefList("")).toBe("all");
    expect(parseRefList("all")).toBe("all");
    expect(parseRefList(" 3, 1,3 ")).toEqual([3, 1]);
  });

  test("anything else is invalid_argument field annotate, with a hint when an option was swallowed", () => {
    for (const bad of ["x.png", "0", "1,,2", "-1", "--full"]) {
      let err: unknown;
      try {
        parseRefList(bad);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(BpError);
      expect((err as BpError).context?.field).toBe("annotate");
    }
    expect(() => parseRefList("--full")).toThrow(/cannot be combined/);
  });

  test("all: elements and frame placeholders, never folds", () => {
    const { boxes, skipped } = chooseBoxes(observation(), "all");
    expect(boxes.map((b) => b.ref)).toEqual([1, 2, 5]);
    expect(skipped).toEqual([]);
  });

  test("a list: folded refs are skipped, refs never shown are stale_ref unknown_ref", () => {
    const obs = observation();
    expect(chooseBoxes(obs, [5, 3])).toEqual({ boxes: [{ ref: 5, x: 110, y: 120, w: 10, h: 5 }], skipped: [3] });
    expect(() => chooseBoxes(obs, [9])).toThrow(BpError);
    const fresh = new TabObservation(1, "target", "loader", "u");
    expect(() => chooseBoxes(fresh, "all")).toThrow(/no snapshot/);
  });

  test("CSS boxes scale to image pixels after the scroll shift", () => {
    expect(toImageBoxes([{ ref: 1, x: 10.4, y: 20, w: 30, h: 5 }], 2, { x: 0, y: -10 })).toEqual([
      { ref: 1, x: 21, y: 20, w: 60, h: 10 },
    ]);
  });
});
