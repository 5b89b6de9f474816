/**
 * The typing settle waits for a rendered frame only while an animation-frame callback that is
 * not ours may be pending (quiet.ts's frame ledger), on windows whose frames the test steps
 * (test/support/stepped-frames.ts). The click's settle: frames-click.test.ts.
 */
import { afterAll, describe, expect, test } from "bun:test";
import type { Window } from "happy-dom";
import {
  channels,
  closeFramed,
  framed,
  quiet,
  SETTLE,
  type Settled,
  settledWithoutFrames,
  tick,
  trusted,
} from "../../../test/support/stepped-frames.ts";

afterAll(closeFramed);

/** The action's text went in: the field's input event, and the page's handler changing the page at once. */
function typed(w: Window): void {
  w.document.body.dispatchEvent(new w.Event("input", { bubbles: true }));
  w.document.body.appendChild(w.document.createElement("output"));
}

/** The action's text went in, and the page did nothing it can be seen doing. */
function typedQuietly(w: Window): void {
  w.document.body.dispatchEvent(new w.Event("input", { bubbles: true }));
}

describe("typing settle and the page's animation frames", () => {
  test.each(channels)(
    "the page did nothing since the arm: settled without waiting for a frame (%s)",
    async (_n, channel) => {
      const { w, frame } = framed(channel);
      quiet(w, { op: "install", id: 1 });
      frame();
      typedQuietly(w);
      await tick();
      expect(await settledWithoutFrames(quiet(w, SETTLE) as Promise<unknown>)).toMatchObject({
        settled: true,
        mutations: 0,
      });
      // A page callback that ran in an earlier frame is not pending: it holds nothing up. (One requested after our
      // last frame counts as pending until a frame of ours ran after it: the watcher asks for one at the text's input
      // event, with the frame its own repaint asks for, and asks for none before it.)
      w.requestAnimationFrame(() => undefined);
      quiet(w, { op: "install", id: 1 });
      w.requestAnimationFrame(() => undefined);
      frame();
      frame();
      trusted(w, "input");
      typedQuietly(w);
      frame();
      await tick();
      expect(await settledWithoutFrames(quiet(w, SETTLE) as Promise<unknown>)).toMatchObject({
        settled: true,
        mutations: 0,
      });
    },
  );

  test.each(channels)(
    "the page did nothing, and a frame rendered between the text and the settle call: still settled in the next task, not at an idle moment (%s)",
    async (_n, channel) => {
      const { w, frame } = framed(channel);
      quiet(w, { op: "install", id: 1 });
      frame();
      typedQuietly(w);
      frame();
      await tick();
      // As `type` asks: the frame rule's idle wait on, bounded by the timer floor (long here). No idle moment comes.
      const settle = quiet(w, { ...SETTLE, idle: true, timerQuietFor: 60_000 }) as Promise<unknown>;
      expect(await settledWithoutFrames(settle)).toMatchObject({
        settled: true,
        mutations: 0,
      });
    },
  );

  test.each(channels)(
    "a change the page made at once is followed by a frame (a resize observer reacts in it) (%s)",
    async (_n, channel) => {
      const { w, frame } = framed(channel);
      quiet(w, { op: "install", id: 1 });
      frame();
      typed(w);
      await tick();
      const settle = quiet(w, SETTLE) as Promise<Settled>;
      expect(await settledWithoutFrames(settle)).toBe("waiting");
      frame();
      expect(await settle).toMatchObject({ settled: true, mutations: 1 });
    },
  );

  test.each(channels)("a child frame in the document keeps the frame rule (%s)", async (_n, channel) => {
    const { w, frame } = framed(channel);
    w.document.body.appendChild(w.document.createElement("iframe"));
    quiet(w, { op: "install", id: 1 });
    frame();
    typedQuietly(w);
    await tick();
    const settle = quiet(w, SETTLE) as Promise<Settled>;
    expect(await settledWithoutFrames(settle)).toBe("waiting");
    frame();
    expect(await settle).toMatchObject({ settled: true, mutations: 0 });
  });

  test.each(channels)(
    "a timer the page set since the arm holds the settle to the timer floor: a 5 ms render is in (%s)",
    async (_n, channel) => {
      const { w, frame, pageTimeout } = framed(channel);
      quiet(w, { op: "install", id: 1 });
      frame();
      // Our world's own timers (the watcher's, a probe) do not count: only the page's.
      w.document.body.addEventListener("input", () =>
        pageTimeout(() => w.document.body.appendChild(w.document.createElement("p")), 5),
      );
      typedQuietly(w);
      await tick();
      const settle = quiet(w, { ...SETTLE, timerQuietFor: 20 }) as Promise<Settled>;
      // Frames come at once and often: the frame rule alone would end before the timer ran.
      const pump = setInterval(frame, 1);
      try {
        expect(await settle).toMatchObject({ settled: true, mutations: 1 });
      } finally {
        clearInterval(pump);
      }
      expect(w.document.querySelectorAll("p").length).toBe(1);
      // Without a page timer the same settle takes no floor: nothing waits for 20 ms.
      quiet(w, { op: "install", id: 2 });
      frame();
      w.document.body.dispatchEvent(new w.Event("change", { bubbles: true }));
      expect(
        await settledWithoutFrames(quiet(w, { ...SETTLE, ids: [2], timerQuietFor: 20 }) as Promise<unknown>),
      ).toMatchObject({ settled: true, mutations: 0 });
    },
  );

  test("after a focusing click, a focus handler's short timer has run when the hold answers; with no page timer it answers at once", async () => {
    const { w, frame, pageTimeout } = framed(true);
    quiet(w, { op: "install", id: 1 });
    frame();
    // The handler moves focus on: here it marks that it ran, 5 ms after the click.
    let moved = false;
    w.addEventListener("click", () => pageTimeout(() => (moved = true), 5));
    w.dispatchEvent(new w.MouseEvent("click"));
    const held = await (quiet(w, { op: "hold", ids: [1], timerQuietFor: 20 }) as Promise<unknown>);
    expect(held).toEqual({ scheduled: true });
    expect(moved).toBe(true);
    quiet(w, { op: "install", id: 2 });
    expect(quiet(w, { op: "hold", ids: [2], timerQuietFor: 20 })).toEqual({});
    // A frame the page asked for counts too (a handler that moves focus in its next frame), from the click's first
    // input event on (the watcher reads the frame counter there, before the page's handlers).
    quiet(w, { op: "install", id: 3 });
    trusted(w, "mousedown");
    w.requestAnimationFrame(() => undefined);
    const framedHold = quiet(w, { op: "hold", ids: [3], timerQuietFor: 0 }) as Promise<unknown>;
    expect(await framedHold).toEqual({ scheduled: true });
  });

  test.each(channels)("a preview the page renders in its next frame is waited for (%s)", async (_n, channel) => {
    const { w, frame } = framed(channel);
    quiet(w, { op: "install", id: 1 });
    frame();
    w.document.body.addEventListener("input", () =>
      w.requestAnimationFrame(() => w.document.body.appendChild(w.document.createElement("p"))),
    );
    typed(w);
    await tick();
    const settle = quiet(w, SETTLE) as Promise<Settled>;
    expect(await settledWithoutFrames(settle)).toBe("waiting");
    const pump = setInterval(frame, 5);
    try {
      // The preview, then quiet for the page's own changes (50 ms and three frames).
      expect(await settle).toMatchObject({ settled: true, mutations: 2 });
    } finally {
      clearInterval(pump);
    }
    expect(w.document.querySelectorAll("p").length).toBe(1);
  });

  test.each(channels)(
    "an animation loop (its next frame requested in the last frame, before ours ran) is waited for (%s)",
    async (_n, channel) => {
      const { w, frame } = framed(channel);
      const loop = () => w.requestAnimationFrame(loop);
      loop();
      quiet(w, { op: "install", id: 1 });
      frame();
      typed(w);
      await tick();
      const settle = quiet(w, SETTLE) as Promise<Settled>;
      expect(await settledWithoutFrames(settle)).toBe("waiting");
      frame();
      expect(await settle).toMatchObject({ settled: true, mutations: 1 });
    },
  );

  test.each(channels)(
    "before any frame of ours ran in the document, or in a hidden one, the frame is waited for (%s)",
    async (_n, channel) => {
      const { w, frame } = framed(channel);
      // A callback from before the watcher cannot be told from ours' side: no frame has counted yet.
      quiet(w, { op: "install", id: 1 });
      typed(w);
      await tick();
      let settle = quiet(w, SETTLE) as Promise<Settled>;
      expect(await settledWithoutFrames(settle)).toBe("waiting");
      frame();
      expect(await settle).toMatchObject({ settled: true, mutations: 1 });
      // A hidden page keeps the time and frame rules it had.
      Object.defineProperty(w.document, "visibilityState", { configurable: true, value: "hidden" });
      quiet(w, { op: "install", id: 1 });
      frame();
      typed(w);
      await tick();
      settle = quiet(w, SETTLE) as Promise<Settled>;
      expect(await settledWithoutFrames(settle)).toBe("waiting");
      frame();
      expect(await settle).toMatchObject({ settled: true, mutations: 1 });
    },
  );

  test.each(channels)(
    "a change the page makes in a task after the text went in is waited out as before (%s)",
    async (_n, channel) => {
      const { w, frame } = framed(channel);
      quiet(w, { op: "install", id: 1 });
      frame();
      typed(w);
      await tick();
      const settle = quiet(w, SETTLE) as Promise<Settled>;
      // Before the settle's next look: the page moved after the settle began, so it needs quiet (50 ms, three frames).
      w.document.body.appendChild(w.document.createElement("span"));
      expect(await settledWithoutFrames(settle)).toBe("waiting");
      const pump = setInterval(frame, 5);
      try {
        expect(await settle).toMatchObject({ settled: true, mutations: 2 });
      } finally {
        clearInterval(pump);
      }
    },
  );
});

/** Animation-frame ids handed out while `f` ran (the page's counter, read around it and not counted). */
function askedDuring(w: Window, f: () => void): number {
  // The stepped window's frames are numbered (happy-dom's own hand out objects).
  const raf = w as unknown as { requestAnimationFrame(fn: () => void): number; cancelAnimationFrame(id: number): void };
  const probe = (): number => {
    const id = raf.requestAnimationFrame(() => undefined);
    raf.cancelAnimationFrame(id);
    return id;
  };
  const before = probe();
  f();
  return probe() - before - 1;
}

// A frame of ours rendered while the page is idle takes the display's tick: the frame after the action's change then
// waits for the next one (up to 16 ms) where an idle page renders it at once. So a watcher asks for frames only when
// it needs them.
describe("the frames a watcher asks for", () => {
  test("none from its install to the action's input; one at the input, and after a change until it is three frames old", async () => {
    const { w, frame } = framed(false);
    // A document that never ran a frame of ours: the first watcher asks for one (the waits learn it renders frames).
    expect(askedDuring(w, () => quiet(w, { op: "install", id: 1 }))).toBe(1);
    frame();
    await tick();
    quiet(w, { op: "poll", ids: [1], finish: true });
    expect(askedDuring(w, () => quiet(w, { op: "install", id: 2 }))).toBe(0);
    // The action's first input event: the frame counter read (a request cancelled at once) and a frame asked for.
    expect(askedDuring(w, () => trusted(w, "input"))).toBe(2);
    frame();
    await tick();
    // Its frame asked for no other: nothing changed.
    expect(askedDuring(w, () => frame())).toBe(0);
    w.document.body.appendChild(w.document.createElement("p"));
    await tick();
    let asking = 0;
    for (let i = 0; i < 10; i++) {
      const asked = askedDuring(w, () => frame());
      await tick();
      if (asked === 0) break;
      asking++;
    }
    // The change asked for its frame; that frame asks for the next, and that one for a third: three frames counted
    // quiet (what the settle's rules read), then none.
    expect(asking).toBe(2);
    expect(askedDuring(w, () => frame())).toBe(0);
  });
});

/** A window whose first watcher ran a frame of ours and was finished: the document drew frames before this action. */
async function drewBefore(channel: boolean): Promise<ReturnType<typeof framed>> {
  const f = framed(channel);
  quiet(f.w, { op: "install", id: 1 });
  f.frame();
  await tick();
  quiet(f.w, { op: "poll", ids: [1], finish: true });
  return f;
}

describe("a document that stopped drawing frames", () => {
  test.each(channels)(
    "a frame of ours not drawn within the quiet period: the settle goes by time, as in a hidden tab (%s)",
    async (_n, channel) => {
      const { w } = await drewBefore(channel);
      // It drew frames before; now (a cross-site frame the browser throttles out of view) it draws none.
      quiet(w, { op: "install", id: 2 });
      typed(w);
      await tick();
      const started = Date.now();
      const settle = quiet(w, { ...SETTLE, ids: [2], max: 2_000 }) as Promise<Settled & { capped?: true }>;
      const out = await settle;
      expect(out).toMatchObject({ settled: true, mutations: 1, framesQuiet: -1 });
      expect(out.capped).toBeUndefined();
      expect(Date.now() - started).toBeLessThan(1_000);
    },
  );
});

describe("an animation by script whose eased start holds its rounded value", () => {
  test.each(channels)(
    "three frames close together without a style change while the page still asks for frames: held until 50 ms after the last one (%s)",
    async (_n, channel) => {
      const { w, frame } = await drewBefore(channel);
      const box = w.document.createElement("div");
      w.document.body.appendChild(box);
      await tick();
      quiet(w, { op: "install", id: 2 });
      trusted(w, "click");
      // The handler's first step writes the height; the loop then asks for a frame each frame, its value held.
      box.style.height = "1px";
      const loop = (): void => void w.requestAnimationFrame(loop);
      loop();
      await tick();
      const settle = quiet(w, { ...SETTLE, ids: [2] }) as Promise<Settled>;
      // Frames that come at once after an idle page, well within a display's interval each.
      for (let i = 0; i < 4; i++) {
        frame();
        await tick();
      }
      expect(await settledWithoutFrames(settle)).toBe("waiting");
      await new Promise((r) => setTimeout(r, 60));
      frame();
      await tick();
      frame();
      expect(await settle).toMatchObject({ settled: true, mutations: 1 });
    },
  );
});
