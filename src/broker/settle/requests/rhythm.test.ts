import { describe, expect, test } from "bun:test";
import { Beat, periodOf, rhythmOf } from "./rhythm.ts";

// Start times (page clock, ms) shaped like what Chromium reported for a setInterval(…, 100)
// poll: on a grid to a tenth of a millisecond.
const grid = [27149493.0, 27149593.0, 27149693.1, 27149793.0, 27149893.0].map((ts) => ({ ts }));
const gridBeat = () => new Beat(rhythmOf(grid)!, { ts: 27149893.0 });

describe("a setInterval poll", () => {
  test("is a grid; a tick held late by an input and the one back on the grid are the poll's", () => {
    expect(rhythmOf(grid)).toMatchObject({ kind: "grid", period: 100 });
    const beat = gridBeat();
    expect(beat.judge("late", 27150061.1)).toEqual([]);
    expect(beat.judge("back", 27150093.0)).toEqual([]);
    expect(beat.judge("next", 27150193.0)).toEqual([]);
  });

  test("a second request in one beat is extra, with the beat's first when it came during the action", () => {
    const beat = gridBeat();
    expect(beat.judge("mid-beat", 27149933.0)).toEqual(["mid-beat"]);
    expect(beat.judge("tick", 27149993.0)).toEqual([]);
    expect(beat.judge("just-before", 27150089.0)).toEqual(["just-before", "tick"]);
    // As seen: a click's request where a tick was due, and the tick a frame (16 ms) late.
    expect(beat.judge("click", 27150192.0)).toEqual([]);
    expect(beat.judge("late-tick", 27150209.0)).toEqual(["late-tick", "click"]);
  });

  test("beats the history skipped (ticks near an earlier input) keep it a grid", () => {
    const skipped = [0, 100, 300, 400, 600, 700].map((ts) => ({ ts: ts + 5000.3 }));
    expect(rhythmOf(skipped)).toMatchObject({ kind: "grid", period: 100 });
  });

  test("more holes than ticks (back-to-back actions left every other tick out) do not double the period: the next real tick is the poll's", () => {
    const holes = [0, 100, 200, 400, 600, 800, 1000, 1200].map((ts) => ({ ts: ts + 5000.3 }));
    const r = rhythmOf(holes);
    expect(r).toMatchObject({ kind: "grid", period: 100 });
    const beat = new Beat(r!, { ts: 6200.3 });
    expect(beat.judge("tick", 6300.3)).toEqual([]);
    expect(beat.judge("extra", 6340)).toEqual(["extra", "tick"]);
  });
});

describe("a setTimeout chain (the next poll a timeout after each answer)", () => {
  // Answers of 4 to 15 ms, then a 100 ms timeout: gaps vary, waits after the answers do not.
  const chain = [
    { ts: 0, end: 4 },
    { ts: 104.5, end: 119 },
    { ts: 219.6, end: 226 },
    { ts: 326.4, end: 330 },
    { ts: 430.7, end: 441 },
  ];

  test("is timed from its last answer: a start while a request is in flight, or too soon after the answer, is extra", () => {
    const r = rhythmOf(chain);
    expect(r).toMatchObject({ kind: "chain" });
    const beat = new Beat(r!, { id: "last", ts: 430.7 });
    // The last request is still in flight: a chain starts nothing meanwhile.
    expect(beat.judge("in-flight", 436)).toEqual(["in-flight"]);
    beat.ended("last", 441);
    expect(beat.judge("soon-after", 470)).toEqual(["soon-after"]);
    expect(beat.judge("tick", 541.5)).toEqual([]);
  });

  test("a start just before the next one was due makes both candidates", () => {
    const beat = new Beat(rhythmOf(chain)!, { id: "last", ts: 430.7, end: 441 });
    expect(beat.judge("click", 539)).toEqual([]);
    expect(beat.judge("tick", 542)).toEqual(["tick", "click"]);
  });
});

describe("no rhythm to time", () => {
  test("the period is the shortest gap that recurs, each gap divided by its multiple; a lone short gap is a stray call", () => {
    expect(periodOf([100, 100, 200, 200, 200, 200, 300])).toBe(100);
    expect(periodOf([100, 30, 70, 100])).toBe(100);
    expect(periodOf([100, 200])).toBe(100);
    expect(periodOf([104.5, 115.1, 106.8, 104.3])).toBe(106.8);
  });

  test("a stray call's short gap that recurs in a short history is not the period (most gaps must be its multiples)", () => {
    expect(periodOf([30, 970, 1000, 30, 970])).toBeGreaterThan(900);
    // A 1 s poll with two stray calls 30 ms after a tick: still timed, not taken for a poll too fast to time.
    const r = rhythmOf([0, 30, 1000, 2000, 2030, 3000].map((ts) => ({ ts })));
    expect(r).toBeDefined();
    const beat = new Beat(r!, { ts: 3000 });
    expect(beat.judge("extra", 3400)).toEqual(["extra"]);
    expect(beat.judge("tick", 4000)).toEqual([]);
  });

  test("a poll faster than 50 ms, or with too few starts", () => {
    expect(rhythmOf([0, 25, 50, 75, 100].map((ts) => ({ ts })))).toBeUndefined();
    expect(rhythmOf([{ ts: 0 }, { ts: 100 }])).toBeUndefined();
  });

  test("irregular starts without known answers are judged by their shortest gap", () => {
    const r = rhythmOf([0, 104, 215, 318, 426].map((ts) => ({ ts })));
    expect(r).toEqual({ kind: "gap", minGap: 103 });
    const beat = new Beat(r!, { ts: 426 });
    expect(beat.judge("extra", 460)).toEqual(["extra"]);
    expect(beat.judge("tick", 531)).toEqual([]);
  });
});
