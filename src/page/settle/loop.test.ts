/**
 * The page's own steps from an animation-frame loop of its (loop.ts): settled a frame after the
 * loop asked for no next one, not after the 50 ms and three frames of a page changing on its own,
 * and only when nothing but that loop could still step (stepped frames: test/support/stepped-frames.ts).
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
} from "../../../test/support/stepped-frames.ts";

afterAll(closeFramed);

/** A click's settle whose floor (a timer the handlers set) is as long as the test says. */
const click = (floor = 60_000) => ({ ...SETTLE, click: true, idle: true, timerQuietFor: floor });

/**
 * The click came in and changed the page; `steps` more changes follow from an animation-frame loop that asks for
 * its next frame before it steps, as jQuery's does, and asks for none after its last step (`last` runs then).
 */
function animate(w: Window, steps: number, last?: () => void): void {
  w.document.body.dispatchEvent(new w.MouseEvent("click", { bubbles: true }));
  const panel = w.document.createElement("div");
  w.document.body.appendChild(panel);
  let n = 0;
  const step = (): void => {
    n++;
    if (n < steps) w.requestAnimationFrame(step);
    panel.style.height = `${n * 10}px`;
    if (n === steps) last?.();
  };
  w.requestAnimationFrame(step);
}

/** Frames the loop steps in, each followed by the tasks after it. */
async function frames(frame: () => void, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    frame();
    await tick();
  }
}

type Framed = ReturnType<typeof framed>;

/** A timer the click's handler set, `ms` later: `fn` runs in its task (by default, a change). */
function timerStep({ w, pageTimeout }: Framed, ms: number, fn?: () => void): Promise<void> {
  return new Promise((resolve) =>
    pageTimeout(() => {
      (fn ?? (() => w.document.body.appendChild(w.document.createElement("p"))))();
      resolve();
    }, ms),
  );
}

/**
 * A window with the watcher armed, the click's loop of `steps` started and the settle begun: `last` runs at the loop's
 * last step, `handler` is the rest of the click's handler (its result is `handled`), `floor` the settle's timer floor.
 */
async function begin<T>(
  channel: boolean,
  steps: number,
  o: { last?: (f: Framed) => void; handler?: (f: Framed) => T; floor?: number } = {},
) {
  const f = framed(channel);
  quiet(f.w, { op: "install", id: 1 });
  animate(f.w, steps, o.last ? () => o.last?.(f) : undefined);
  const handled = o.handler?.(f);
  await tick();
  return { ...f, handled, settle: quiet(f.w, click(o.floor ?? 0)) as Promise<Settled & { looped?: true }> };
}

/** Not settled after the loop's end: only the 50 ms and three frames of quiet end it, and not as the loop's. */
async function heldToQuiet({ frame, idle }: Framed, settle: Promise<Settled & { looped?: true }>, mutations: number) {
  expect(await settledWithoutFrames(settle)).toBe("waiting");
  await new Promise((r) => setTimeout(r, 60));
  for (let i = 0; i < 4; i++) {
    await frames(frame, 1);
    idle();
  }
  const done = await settle;
  expect(done).toMatchObject({ settled: true, mutations });
  expect(done.looped).toBeUndefined();
}

describe("an animation-frame loop of the page's own", () => {
  test.each(channels)(
    "that ended: settled a frame after its last step and an idle moment after that, not 50 ms later (%s)",
    async (_n, channel) => {
      const { frame, idle, settle } = await begin(channel, 4);
      await frames(frame, 4);
      expect(await settledWithoutFrames(settle)).toBe("waiting");
      // The frame after the last step asks for no next one; the task after it ran what that frame started.
      await frames(frame, 1);
      expect(await settledWithoutFrames(settle)).toBe("waiting");
      idle();
      expect(await settle).toMatchObject({ settled: true, looped: true, mutations: 5 });
    },
  );

  test.each(channels)(
    "whose last step sets a timer for the next change: held to the quiet period (%s)",
    async (_n, channel) => {
      const { frame, idle, settle } = await begin(channel, 3, { last: (f) => void timerStep(f, 30) });
      await frames(frame, 3);
      for (let i = 0; i < 3; i++) {
        await frames(frame, 1);
        idle();
      }
      expect(await settledWithoutFrames(settle)).toBe("waiting");
      // The timer's change, then the quiet period after it.
      await new Promise((r) => setTimeout(r, 90));
      for (let i = 0; i < 4; i++) {
        await frames(frame, 1);
        idle();
      }
      expect(await settle).toMatchObject({ settled: true, mutations: 5 });
    },
  );

  test.each(channels)(
    "a step a timer of the page's makes (one the click set) is no loop's: held to the quiet period (%s)",
    async (_n, channel) => {
      const f = framed(channel);
      const { w, frame, idle } = f;
      quiet(w, { op: "install", id: 1 });
      w.document.body.dispatchEvent(new w.MouseEvent("click", { bubbles: true }));
      w.document.body.appendChild(w.document.createElement("div"));
      // Set by the click's handler, before the settle began: no timer of the settle's time shows the steps.
      const stepped = timerStep(f, 5);
      await tick();
      const settle = quiet(w, click(0)) as Promise<Settled>;
      await stepped;
      await tick();
      for (let i = 0; i < 3; i++) {
        await frames(frame, 1);
        idle();
      }
      await heldToQuiet(f, settle, 2);
    },
  );

  test.each(channels)(
    "beside an interval the click started, whose steps come between frames: held to the quiet period (%s)",
    async (_n, channel) => {
      // Set in the click's own task, before the settle began: no timer of the settle's time shows its steps.
      const f = await begin(channel, 3, { handler: (f) => timerStep(f, 5) });
      const { frame, idle, settle } = f;
      await frames(frame, 1);
      await f.handled;
      await tick();
      await frames(frame, 3);
      idle();
      await heldToQuiet(f, settle, 5);
    },
  );

  test.each(channels)(
    "beside a write a timer's task asked a frame for (batched writes): held to the quiet period (%s)",
    async (_n, channel) => {
      // Set by the click's handler: its task asks for a frame to write in, beside the loop's own frames.
      const f = await begin(channel, 3, {
        handler: (f) =>
          timerStep(f, 5, () =>
            f.w.requestAnimationFrame(() => f.w.document.body.appendChild(f.w.document.createElement("p"))),
          ),
      });
      const { frame, idle, settle } = f;
      await f.handled;
      await tick();
      await frames(frame, 4);
      idle();
      await heldToQuiet(f, settle, 5);
    },
  );

  /** The pointer comes over an element as the page moves under it, and the hover handler restyles it in that task. */
  const crossed = (w: Window): void => {
    w.document.body.dispatchEvent(new w.MouseEvent("mouseover", { bubbles: true }));
    w.document.body.className = w.document.body.className === "hover" ? "" : "hover";
  };

  test.each(channels)(
    "the hover styles the pointer's over events change between its frames: excused, the loop still ends it (%s)",
    async (_n, channel) => {
      const f = await begin(channel, 4);
      const { w, frame, idle, settle } = f;
      // The loop's steps come well after the click, so the crossing is no cause the settle could run from instead.
      await new Promise((r) => setTimeout(r, 12));
      await frames(frame, 2);
      crossed(w);
      await tick();
      await frames(frame, 3);
      idle();
      expect(await settle).toMatchObject({ settled: true, looped: true, mutations: 6 });
    },
  );

  test.each(channels)(
    "beside them, another task's change (an interval's step): held to the quiet period (%s)",
    async (_n, channel) => {
      const f = await begin(channel, 4);
      const { w, frame, idle, settle } = f;
      // The loop's steps come well after the click, so the crossing is no cause the settle could run from instead.
      await new Promise((r) => setTimeout(r, 12));
      await frames(frame, 2);
      crossed(w);
      await new Promise((r) => setTimeout(r, 10));
      w.document.body.appendChild(w.document.createElement("p"));
      await tick();
      await frames(frame, 3);
      idle();
      await heldToQuiet(f, settle, 7);
    },
  );

  test.each(channels)(
    "that asks for a frame again after a step that changed nothing: still running (%s)",
    async (_n, channel) => {
      const { frame, idle, settle } = await begin(channel, 2, {
        // A frame more that changes nothing (a rounded value that held), then one that does.
        last: ({ w }) =>
          w.requestAnimationFrame(() =>
            w.requestAnimationFrame(() => w.document.body.appendChild(w.document.createElement("p"))),
          ),
      });
      await frames(frame, 3);
      idle();
      expect(await settledWithoutFrames(settle)).toBe("waiting");
      await frames(frame, 2);
      idle();
      expect(await settle).toMatchObject({ settled: true, looped: true, mutations: 4 });
    },
  );

  test.each(channels)(
    "after a click whose handlers set a timer: not before that timer's floor from the click (%s)",
    async (_n, channel) => {
      const { frame, idle, settle } = await begin(channel, 2, {
        // jQuery's animate sets a timer as it starts (its clock's reset), in the click's own task.
        handler: ({ pageTimeout }) => pageTimeout(() => undefined, 0),
        floor: 40,
      });
      await frames(frame, 3);
      idle();
      expect(await settledWithoutFrames(settle)).toBe("waiting");
      await new Promise((r) => setTimeout(r, 45));
      await frames(frame, 1);
      idle();
      expect(await settle).toMatchObject({ settled: true, looped: true, mutations: 3 });
    },
  );
});
