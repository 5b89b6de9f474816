import { describe, expect, test } from "bun:test";
import { Beat, callSite, rhythmOf, requestKey } from "./polling.ts";

// Start times (page clock, ms) shaped like what Chromium reported for a setInterval(…, 100)
// poll: on a grid to a tenth of a millisecond, a tick held 68 ms late by an input, then one
// back on the grid.
const grid = [27149493.0, 27149593.0, 27149693.1, 27149793.0, 27149893.0];

describe("a poll's rhythm", () => {
  test("a setInterval is a grid; a late tick and the one back on the grid are the poll's", () => {
    const r = rhythmOf(grid);
    expect(r).toMatchObject({ grid: true, period: 100 });
    const beat = new Beat(r!, grid[grid.length - 1]!);
    expect(beat.judge("late", 27150061.1)).toEqual([]);
    expect(beat.judge("back", 27150093.0)).toEqual([]);
    expect(beat.judge("next", 27150193.0)).toEqual([]);
  });

  test("a second request in one beat is extra; one just before a due tick makes both candidates", () => {
    const beat = new Beat(rhythmOf(grid)!, grid[grid.length - 1]!);
    expect(beat.judge("mid-beat", 27149933.0)).toEqual(["mid-beat"]);
    expect(beat.judge("tick", 27149993.0)).toEqual([]);
    // Just before the next tick is due: still in the on-time tick's beat.
    expect(beat.judge("just-before", 27150089.0)).toEqual(["just-before"]);
    // A click's request early in a beat whose tick comes late: which is which is unknown.
    expect(beat.judge("early", 27150100.0)).toEqual([]);
    expect(beat.judge("late-tick", 27150130.0)).toEqual(["late-tick", "early"]);
    // Two starts on time in one beat (the click's handler ran just as the tick was due).
    expect(beat.judge("on-time", 27150193.5)).toEqual([]);
    expect(beat.judge("also-on-time", 27150194.2)).toEqual(["also-on-time", "on-time"]);
  });

  test("a setTimeout chain (irregular phase) is judged by its shortest gap", () => {
    const chain = [0, 104, 215, 318, 426];
    const r = rhythmOf(chain);
    expect(r).toEqual({ grid: false, minGap: 103 });
    const beat = new Beat(r!, 426);
    expect(beat.judge("extra", 460)).toEqual(["extra"]);
    expect(beat.judge("tick", 531)).toEqual([]);
  });

  test("a poll faster than 50 ms, or with too few starts, is not timed", () => {
    expect(rhythmOf([0, 25, 50, 75, 100])).toBeUndefined();
    expect(rhythmOf([0, 100])).toBeUndefined();
  });
});

describe("what a request is keyed by", () => {
  test("a GET's address without its query; no other method", () => {
    expect(requestKey("GET", "http://a.test/api/items?t=1#x")).toBe("http://a.test/api/items");
    expect(requestKey("POST", "http://a.test/api/items")).toBeUndefined();
  });

  test("the call site is the initiator's top frame, or its kind without a script", () => {
    const frame = { functionName: "load", scriptId: "7", url: "http://a.test/", lineNumber: 6, columnNumber: 25 };
    expect(callSite({ initiator: { type: "script", stack: { callFrames: [frame] } } })).toBe("http://a.test/:6:25");
    expect(callSite({ initiator: { type: "script", stack: { callFrames: [{ ...frame, url: "" }] } } })).toBe("7:6:25");
    expect(callSite({ initiator: { type: "other" } })).toBe("other");
  });
});
