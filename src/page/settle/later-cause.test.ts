/**
 * A click's change that lands during the settle right after an answer to the page's own request,
 * or right after the pointer came over an element meanwhile, is that cause's (later-cause.ts):
 * settled a frame after it, as when it came before the settle call. The window's resource timing is a stand-in
 * observer the test feeds; frames, timers and idle callbacks are stepped
 * (test/support/stepped-frames.ts).
 */
import { afterAll, describe, expect, test } from "bun:test";
import type { Window } from "happy-dom";
import {
  channels,
  closeFramed,
  framed,
  quiet,
  SETTLE,
  type Settled as Poll,
  settledWithoutFrames,
  tick,
} from "../../../test/support/stepped-frames.ts";

afterAll(closeFramed);

/** A click's settle whose timer floor (60 s) would outlast the test: held to it, the settle ends at its cap. */
type Settled = Poll & { answered?: true; overDuring?: true };

const CLICK = { ...SETTLE, click: true, idle: true, timerQuietFor: 60_000, max: 400 };

interface Entry {
  initiatorType: string;
  startTime: number;
  responseEnd: number;
}

/** The page's resource timing: entries the test adds wait for the observer's next callback, as Chromium queues them. */
function resourceTiming(w: Window) {
  const observers: { queued: Entry[]; cb: (list: { getEntries(): Entry[] }) => void; on: boolean }[] = [];
  class FakeObserver {
    private readonly o: (typeof observers)[number];
    constructor(cb: (list: { getEntries(): Entry[] }) => void) {
      this.o = { queued: [], cb, on: false };
      observers.push(this.o);
    }
    observe(options: { type: string }): void {
      if (options.type === "resource") this.o.on = true;
    }
    takeRecords(): Entry[] {
      return this.o.queued.splice(0);
    }
    disconnect(): void {
      this.o.on = false;
    }
  }
  Object.defineProperty(w, "PerformanceObserver", { configurable: true, value: FakeObserver });
  const now = () => w.performance.now();
  return {
    now,
    /** A request the page started at `startTime` got its whole answer now. */
    answered(startTime: number, initiatorType = "fetch"): number {
      const end = now();
      for (const o of observers) if (o.on) o.queued.push({ initiatorType, startTime, responseEnd: end });
      return end;
    },
    /** The observers' callbacks run (a task after the entries were queued). */
    deliver(): void {
      for (const o of observers) if (o.on && o.queued.length) o.cb({ getEntries: () => o.queued.splice(0) });
    },
    live: () => observers.filter((o) => o.on).length,
  };
}

/** A window whose resource timing the test feeds, the watcher armed, a request begun (`sent`) and a frame since. */
function armed(channel: boolean) {
  const f = framed(channel);
  const rt = resourceTiming(f.w);
  quiet(f.w, { op: "install", id: 1 });
  const sent = rt.now();
  f.frame();
  return { ...f, rt, sent };
}

/** The click came in and changed nothing yet: it started a request. */
function clickedQuietly(w: Window): void {
  w.document.body.dispatchEvent(new w.MouseEvent("click", { bubbles: true }));
}

const render = (w: Window) => w.document.body.appendChild(w.document.createElement("output"));
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** An event with the time Chromium gives it (one crossing's events share their pointer event's time). */
const stamped = <T extends object>(e: T, t: number): T => Object.defineProperty(e, "timeStamp", { value: t });

/** The watcher armed, then a click that changed the page at once; its settle, with `arg` (in an object: not awaited here). */
async function clickedAndRendered(
  w: Window,
  frame: () => void,
  arg: Record<string, unknown>,
): Promise<{ settle: Promise<Settled> }> {
  quiet(w, { op: "install", id: 1 });
  frame();
  w.document.body.dispatchEvent(new w.MouseEvent("click", { bubbles: true }));
  render(w);
  await tick();
  return { settle: quiet(w, arg) as Promise<Settled> };
}

/** What came is delivered, then a frame and an idle moment: the settle's answer if it ended by then, else "waiting". */
async function afterFrame(settle: Promise<Settled>, frame: () => void, idle: () => void) {
  await tick();
  frame();
  await tick();
  idle();
  return settledWithoutFrames(settle);
}

/** The page stays quiet for 60 ms and four frames, each with an idle moment after it: a settle that waits for quiet ends. */
async function quietAfter(settle: Promise<Settled>, frame: () => void, idle: () => void): Promise<Settled> {
  await wait(60);
  for (let i = 0; i < 4; i++) {
    frame();
    await tick();
    idle();
  }
  return settle;
}
/** After a frame and an idle moment the settle still waits (the page moved on its own), and ends once quiet, from no newer cause. */
async function heldForQuiet(
  settle: Promise<Settled>,
  frame: () => void,
  idle: () => void,
  mutations: number,
): Promise<void> {
  frame();
  await tick();
  idle();
  expect(await settledWithoutFrames(settle)).toBe("waiting");
  const out = await quietAfter(settle, frame, idle);
  expect(out).toMatchObject({ settled: true, mutations });
  expect(out.answered).toBeUndefined();
  expect(out.overDuring).toBeUndefined();
}

describe("a change right after an answer to the page's own request", () => {
  test.each(channels)(
    "lands during the settle: settled a frame and an idle moment after it, not held to the floor nor to 50 ms of quiet (%s)",
    async (_n, channel) => {
      const { w, frame, idle, rt, sent } = armed(channel);
      clickedQuietly(w);
      await tick();
      const settle = quiet(w, CLICK) as Promise<Settled>;
      frame();
      idle();
      expect(await settledWithoutFrames(settle)).toBe("waiting");
      // The fetch's `.then` renders in the task its answer came in: the observer has not been called yet.
      rt.answered(sent);
      render(w);
      await tick();
      expect(await settledWithoutFrames(settle)).toBe("waiting");
      frame();
      await tick();
      idle();
      const out = await settle;
      expect(out).toMatchObject({ settled: true, mutations: 1, answered: true });
      expect(out.capped).toBeUndefined();
    },
  );

  test.each(channels)("the answers the observer was already called with count too (%s)", async (_n, channel) => {
    const { w, frame, idle, rt, sent } = armed(channel);
    clickedQuietly(w);
    await tick();
    const settle = quiet(w, CLICK) as Promise<Settled>;
    rt.answered(sent);
    rt.deliver();
    render(w);
    await tick();
    frame();
    await tick();
    idle();
    const out = await settle;
    expect(out).toMatchObject({ settled: true, mutations: 1, answered: true });
    expect(out.capped).toBeUndefined();
  });

  test.each(channels)(
    "a change more than half a frame after the answer is the page moving on its own: 50 ms and three frames of quiet (%s)",
    async (_n, channel) => {
      const { w, frame, idle, rt, sent } = armed(channel);
      render(w);
      await tick();
      const settle = quiet(w, { ...CLICK, max: 60_000 }) as Promise<Settled>;
      rt.answered(sent);
      await wait(20);
      render(w);
      await tick();
      await heldForQuiet(settle, frame, idle, 2);
    },
  );

  test.each([
    ["a request started before the watcher was armed (an earlier action's, a poll's)", "fetch", true],
    ["an image (what a change loads comes after it)", "img", false],
  ] as const)("%s: no answer of the action's, the change waits for quiet", async (_n, initiator, before) => {
    const { w, frame, idle } = framed(true);
    const rt = resourceTiming(w);
    const early = rt.now() - 5;
    quiet(w, { op: "install", id: 1 });
    const sent = before ? early : rt.now();
    frame();
    clickedQuietly(w);
    await tick();
    const settle = quiet(w, { ...CLICK, timerQuietFor: 20, max: 60_000 }) as Promise<Settled>;
    frame();
    idle();
    rt.answered(sent, initiator);
    render(w);
    await tick();
    await heldForQuiet(settle, frame, idle, 1);
  });

  test("a timer the page set since the arm holds the floor, counted from the answer", async () => {
    const { w, frame, idle, pageTimeout, rt, sent } = armed(true);
    clickedQuietly(w);
    pageTimeout(() => undefined, 1);
    await tick();
    const settle = quiet(w, { ...CLICK, timerQuietFor: 40, max: 60_000 }) as Promise<Settled>;
    await wait(30);
    const end = rt.answered(sent);
    render(w);
    await tick();
    let settledAt = 0;
    void settle.then(() => (settledAt = rt.now()));
    while (!settledAt) {
      frame();
      await tick();
      idle();
      await wait(5);
    }
    expect(await settle).toMatchObject({ settled: true, mutations: 1, answered: true });
    expect(settledAt - end).toBeGreaterThanOrEqual(39);
  });

  test("the frame and idle moment the settle had seen before the answer are the old cause's: it waits for new ones", async () => {
    const { w, frame, idle, rt, sent } = armed(true);
    w.document.body.dispatchEvent(new w.MouseEvent("click", { bubbles: true }));
    render(w);
    await tick();
    const settle = quiet(w, CLICK) as Promise<Settled>;
    // The click's frame came; the settle now waits for its idle task.
    frame();
    await tick();
    expect(await settledWithoutFrames(settle)).toBe("waiting");
    rt.answered(sent);
    render(w);
    await tick();
    // That idle task runs after the answer's change but before its frame: it tells nothing of what the frame starts.
    idle();
    await tick();
    frame();
    await tick();
    expect(await settledWithoutFrames(settle)).toBe("waiting");
    idle();
    const out = await settle;
    expect(out).toMatchObject({ settled: true, mutations: 2, answered: true });
  });

  test("a change between the click and the answer that neither explains: the page moves on its own, 50 ms and three frames of quiet", async () => {
    const { w, frame, idle, rt, sent } = armed(true);
    clickedQuietly(w);
    await tick();
    const settle = quiet(w, { ...CLICK, timerQuietFor: 20, max: 60_000 }) as Promise<Settled>;
    await wait(15);
    render(w);
    await tick();
    await wait(10);
    rt.answered(sent);
    render(w);
    await tick();
    await heldForQuiet(settle, frame, idle, 2);
  });

  test("typed text is settled from its last key: an answer's change during the settle waits for quiet", async () => {
    const { w, frame, idle, rt, sent } = armed(true);
    w.document.body.dispatchEvent(new w.Event("input", { bubbles: true }));
    render(w);
    await tick();
    const settle = quiet(w, { ...SETTLE, idle: true, timerQuietFor: 20, max: 60_000 }) as Promise<Settled>;
    rt.answered(sent);
    render(w);
    await tick();
    await heldForQuiet(settle, frame, idle, 2);
  });

  test("the observer goes with the watcher, and with a watcher that only lingered", async () => {
    const { w } = framed(true);
    const rt = resourceTiming(w);
    quiet(w, { op: "install", id: 1 });
    expect(rt.live()).toBe(1);
    quiet(w, { op: "poll", ids: [1], finish: true });
    expect(rt.live()).toBe(0);
    quiet(w, { op: "install", id: 2 });
    expect(rt.live()).toBe(1);
    await quiet(w, { ...CLICK, ids: [2], finish: false, linger: 20, max: 50 });
    expect(rt.live()).toBe(1);
    await wait(40);
    expect(rt.live()).toBe(0);
  });
});

describe("a change right after the pointer came over an element during the settle", () => {
  /** Chromium's over events once a render moved other content under the resting pointer, and a hover handler's restyle. */
  const hovered = (w: Window) => {
    w.document.body.dispatchEvent(new w.MouseEvent("mouseover", { bubbles: true }));
    w.document.body.className = "hover";
  };

  /** The same with the event time Chromium gives a crossing's events. */
  const hoveredAt = (w: Window, t: number) => {
    w.document.body.dispatchEvent(stamped(new w.MouseEvent("mouseover", { bubbles: true }), t));
    w.document.body.className = "hover";
  };

  test.each(channels)(
    "is that event's: settled a frame and an idle moment after it, not held to 50 ms of quiet (%s)",
    async (_n, channel) => {
      const { w, frame, idle } = framed(channel);
      const { settle } = await clickedAndRendered(w, frame, CLICK);
      await wait(12);
      hovered(w);
      const out = await afterFrame(settle, frame, idle);
      expect(out).toMatchObject({ settled: true, mutations: 2, overDuring: true });
    },
  );

  test("a crossing's out handler restyles the element left, its over handler the one entered (jQuery's hover): both are the crossing's", async () => {
    const { w, frame, idle } = framed(true);
    const left = w.document.createElement("a");
    const entered = w.document.createElement("a");
    w.document.body.append(left, entered);
    const { settle } = await clickedAndRendered(w, frame, CLICK);
    await wait(12);
    // One crossing is one task in Chromium: out, leave, over and enter in a row, all with the time of the pointer
    // event that crossed, the mutation records of each listener delivered at the microtask checkpoint after it
    // (a slow leave handler between them here).
    const crossed = w.performance.now();
    const at = <T extends object>(e: T): T => stamped(e, crossed);
    left.dispatchEvent(at(new w.MouseEvent("mouseout", { bubbles: true })));
    left.className = "";
    for (let i = 0; i < 5; i++) await Promise.resolve();
    const slow = Date.now() + 4;
    while (Date.now() < slow) {}
    entered.dispatchEvent(at(new w.MouseEvent("mouseover", { bubbles: true })));
    entered.className = "hover";
    const out = await afterFrame(settle, frame, idle);
    expect(out).toMatchObject({ settled: true, mutations: 3, overDuring: true });
  });

  test("the click's own crossing and the one its render makes a few ms later are two: the later is the cause", async () => {
    const { w, frame, idle } = framed(true);
    quiet(w, { op: "install", id: 1 });
    frame();
    // The click's move brings the pointer over its target, then the press and release.
    const moved = w.performance.now();
    w.document.body.dispatchEvent(stamped(new w.MouseEvent("mouseover", { bubbles: true }), moved));
    await wait(1);
    w.document.body.dispatchEvent(stamped(new w.MouseEvent("click", { bubbles: true }), w.performance.now()));
    render(w);
    await tick();
    const settle = quiet(w, CLICK) as Promise<Settled>;
    // The render moved the target away: Chromium crosses into what is under the pointer now.
    await wait(3);
    w.document.body.dispatchEvent(stamped(new w.MouseEvent("mouseover", { bubbles: true }), w.performance.now()));
    w.document.body.className = "hover";
    expect(await afterFrame(settle, frame, idle)).toMatchObject({ settled: true, mutations: 2, overDuring: true });
  });

  test.each(["mousemove", "keydown", "wheel"])(
    "a %s the page got during the settle is no cause: the change after it waits for quiet",
    async (type) => {
      const { w, frame, idle } = framed(true);
      const { settle } = await clickedAndRendered(w, frame, { ...CLICK, max: 60_000 });
      await wait(12);
      w.document.body.dispatchEvent(new w.Event(type, { bubbles: true }));
      w.document.body.className = "moved";
      await tick();
      await heldForQuiet(settle, frame, idle, 2);
    },
  );

  /** A click whose request's answer renders 15 ms into its settle (`max`: the settle's cap). */
  async function answerRendered(max: number) {
    const { w, frame, idle, rt, sent } = armed(true);
    clickedQuietly(w);
    await tick();
    const settle = quiet(w, { ...CLICK, max }) as Promise<Settled>;
    await wait(15);
    rt.answered(sent);
    render(w);
    for (let i = 0; i < 5; i++) await Promise.resolve();
    return { w, frame, idle, settle };
  }
  /** The main thread busy for `ms`: the settle looks again only after what comes meanwhile. */
  const busyFor = (w: Window, ms: number) => {
    const until = w.performance.now() + ms;
    while (w.performance.now() < until) {}
  };

  test("an answer's render and the crossing it brings, seen in one look: the crossing is the cause, the render the answer's", async () => {
    const { w, frame, idle, settle } = await answerRendered(CLICK.max);
    busyFor(w, 12);
    hoveredAt(w, w.performance.now());
    const out = await afterFrame(settle, frame, idle);
    expect(out).toMatchObject({ settled: true, mutations: 2, overDuring: true });
  });

  test("a change between an answer's and the crossing's that neither explains: 50 ms and three frames of quiet", async () => {
    const { w, frame, idle, settle } = await answerRendered(60_000);
    busyFor(w, 12);
    w.document.body.title = "the page's own";
    for (let i = 0; i < 5; i++) await Promise.resolve();
    busyFor(w, 12);
    hoveredAt(w, w.performance.now());
    await tick();
    await heldForQuiet(settle, frame, idle, 3);
  });

  test("an over event more than half a frame before the change is not its cause: 50 ms and three frames of quiet", async () => {
    const { w, frame, idle } = framed(true);
    const { settle } = await clickedAndRendered(w, frame, { ...CLICK, max: 60_000 });
    w.document.body.dispatchEvent(new w.MouseEvent("mouseover", { bubbles: true }));
    await wait(20);
    w.document.body.className = "later";
    await tick();
    await heldForQuiet(settle, frame, idle, 2);
  });
});
