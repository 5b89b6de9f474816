/**
 * The typing settle waits for a rendered frame only while an animation-frame callback that is
 * not ours may be pending (quiet.ts's frame ledger). happy-dom runs animation frames as
 * immediates and numbers them with objects, so these windows get a frame clock the test steps
 * itself, numbered from one counter as a document numbers every world's callbacks in Chromium.
 */
import { afterAll, describe, expect, test } from "bun:test";
import type { Window } from "happy-dom";
import { closePages, page } from "../../../test/support/happy-dom.ts";
import { bundled } from "../../../test/support/page-bundle.ts";

type Quiet = (win: unknown, arg: Record<string, unknown>) => unknown;
type Settled = { settled: boolean; mutations: number; capped?: boolean };
const quiet = bundled<Quiet>("quiet");
const tick = () => new Promise((r) => setTimeout(r, 0));

const timers = new Set<ReturnType<typeof setTimeout>>();
afterAll(async () => {
  for (const t of timers) clearTimeout(t);
  await closePages();
});

/** A window whose frames run only when the test says so. */
function framed(channel: boolean) {
  const { w } = page("", { url: "https://frames.example/" });
  if (channel) Object.defineProperty(w, "MessageChannel", { value: MessageChannel, configurable: true });
  let last = 0;
  let queue: { id: number; fn: (t: number) => void }[] = [];
  Object.defineProperty(w, "requestAnimationFrame", {
    configurable: true,
    value: (fn: (t: number) => void) => {
      queue.push({ id: ++last, fn });
      return last;
    },
  });
  Object.defineProperty(w, "cancelAnimationFrame", {
    configurable: true,
    value: (id: number) => (queue = queue.filter((c) => c.id !== id)),
  });
  /** Runs every callback requested before the frame began (those it requests wait for the next). */
  const frame = () => {
    const run = queue;
    queue = [];
    for (const c of run) c.fn(performance.now());
  };
  // Timers numbered from one counter for every world, as a document numbers them in Chromium
  // (happy-dom hands out objects). `pageTimeout` is the page world's: our world's is wrapped.
  let lastTimer = 0;
  const live = new Map<number, ReturnType<typeof setTimeout>>();
  const pageTimeout = (fn: () => void, ms = 0): number => {
    const id = ++lastTimer;
    const t = setTimeout(() => {
      live.delete(id);
      timers.delete(t);
      fn();
    }, ms);
    live.set(id, t);
    timers.add(t);
    return id;
  };
  Object.defineProperty(w, "setTimeout", { configurable: true, writable: true, value: pageTimeout });
  Object.defineProperty(w, "clearTimeout", {
    configurable: true,
    writable: true,
    value: (id: number) => {
      const t = live.get(id);
      if (t) {
        clearTimeout(t);
        timers.delete(t);
        live.delete(id);
      }
    },
  });
  // Idle callbacks, run when the test says the main thread has nothing pending.
  let lastIdle = 0;
  let idles: { id: number; fn: () => void }[] = [];
  Object.defineProperty(w, "requestIdleCallback", {
    configurable: true,
    writable: true,
    value: (fn: () => void) => {
      idles.push({ id: ++lastIdle, fn });
      return lastIdle;
    },
  });
  Object.defineProperty(w, "cancelIdleCallback", {
    configurable: true,
    writable: true,
    value: (id: number) => (idles = idles.filter((c) => c.id !== id)),
  });
  const idle = () => {
    const run = idles;
    idles = [];
    for (const c of run) c.fn();
  };
  return { w, frame, pageTimeout, idle };
}

const SETTLE = { op: "settle", ids: [1], quietFor: 50, syncQuietFor: 0, frames: 3, max: 60_000, finish: true };

/** The settle's answer, or "waiting" while it has none after the page's pending tasks ran. */
async function settledWithoutFrames(p: Promise<unknown>): Promise<Settled | "waiting"> {
  let out: Settled | undefined;
  void p.then((r) => (out = r as Settled));
  // Its look in the next task (a timer or a message of its own) has run after a few of ours.
  for (let i = 0; i < 20 && !out; i++) await tick();
  return out ?? "waiting";
}

/** The action's text went in: the field's input event, and the page's handler changing the page at once. */
function typed(w: Window): void {
  w.document.body.dispatchEvent(new w.Event("input", { bubbles: true }));
  w.document.body.appendChild(w.document.createElement("output"));
}

/** The action's text went in, and the page did nothing it can be seen doing. */
function typedQuietly(w: Window): void {
  w.document.body.dispatchEvent(new w.Event("input", { bubbles: true }));
}

const channels: [string, boolean][] = [
  ["timer tasks", false],
  ["MessageChannel tasks", true],
];

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
      // A page callback that ran in an earlier frame is not pending: it holds nothing up. (One
      // requested after our watcher's own request counts as pending until a frame of ours ran after it.)
      w.requestAnimationFrame(() => undefined);
      quiet(w, { op: "install", id: 1 });
      w.requestAnimationFrame(() => undefined);
      frame();
      frame();
      typedQuietly(w);
      await tick();
      expect(await settledWithoutFrames(quiet(w, SETTLE) as Promise<unknown>)).toMatchObject({
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
    // A frame the page asked for counts too (a handler that moves focus in its next frame).
    quiet(w, { op: "install", id: 3 });
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

/** A click's settle (the actions that type no text): the floor only when the page set a timer. */
const CLICK = { ...SETTLE, click: true, idle: true, timerQuietFor: 60_000 };

/** The action's click came in, and its handler changed the page at once (or, `quietly`, did nothing). */
function clicked(w: Window, quietly = false): void {
  w.document.body.dispatchEvent(new w.MouseEvent("click", { bubbles: true }));
  if (!quietly) w.document.body.appendChild(w.document.createElement("output"));
}

describe("click settle and the page's ledger", () => {
  test.each(channels)(
    "changes that came well after the click but before the settle call (a call late under load) are the page moving, not the click's own (%s)",
    async (_n, channel) => {
      const { w, frame, idle } = framed(channel);
      quiet(w, { op: "install", id: 1 });
      frame();
      clicked(w);
      await tick();
      // A step of the page's own (a timer chain's first render) lands before the settle call arrives.
      await new Promise((r) => setTimeout(r, 15));
      w.document.body.appendChild(w.document.createElement("output"));
      await tick();
      const settle = quiet(w, CLICK) as Promise<Settled>;
      frame();
      await tick();
      idle();
      // Judged as moving: a frame and an idle moment are not enough, 50 ms and three frames of quiet are.
      expect(await settledWithoutFrames(settle)).toBe("waiting");
      await new Promise((r) => setTimeout(r, 60));
      for (let i = 0; i < 4; i++) {
        frame();
        await tick();
        idle();
      }
      expect(await settle).toMatchObject({ settled: true, mutations: 2 });
    },
  );

  test.each(channels)(
    "nothing scheduled: settled a frame after the change and an idle moment after that, without the floor (%s)",
    async (_n, channel) => {
      const { w, frame, idle } = framed(channel);
      quiet(w, { op: "install", id: 1 });
      frame();
      clicked(w);
      await tick();
      const settle = quiet(w, CLICK) as Promise<Settled>;
      expect(await settledWithoutFrames(settle)).toBe("waiting");
      frame();
      // After the frame, work the page chained over messages may still be pending: an idle callback of ours tells.
      expect(await settledWithoutFrames(settle)).toBe("waiting");
      idle();
      expect(await settle).toMatchObject({ settled: true, mutations: 1 });
    },
  );

  test.each(channels)(
    "a click that changed nothing yet holds the floor after its frame and idle moment: its change may come through what the ledger cannot see (%s)",
    async (_n, channel) => {
      const { w, frame, idle } = framed(channel);
      quiet(w, { op: "install", id: 1 });
      frame();
      clicked(w, true);
      await tick();
      // The floor (60 s here) outlasts the test: the settle ends at its cap instead.
      const settle = quiet(w, { ...CLICK, max: 300 }) as Promise<Settled>;
      frame();
      idle();
      expect(await settledWithoutFrames(settle)).toBe("waiting");
      expect(await settle).toMatchObject({ settled: true, capped: true, mutations: 0 });
    },
  );

  test.each(channels)(
    "a click that toggled a checkbox, still checked at the look, changed the page: settled a frame and an idle moment after, without the floor (%s)",
    async (_n, channel) => {
      const { w, frame, idle } = framed(channel);
      const box = w.document.createElement("input");
      box.type = "checkbox";
      w.document.body.appendChild(box);
      quiet(w, { op: "install", id: 1 });
      frame();
      clicked(w, true);
      // A checkbox's activation: toggled, then its input event (and change) right after the click's handlers.
      box.checked = true;
      box.dispatchEvent(new w.Event("input", { bubbles: true }));
      await tick();
      // Held to the floor (60 s), it would end at its cap (300 ms) instead.
      const settle = quiet(w, { ...CLICK, max: 300 }) as Promise<Settled>;
      expect(await settledWithoutFrames(settle)).toBe("waiting");
      frame();
      expect(await settledWithoutFrames(settle)).toBe("waiting");
      idle();
      const out = await settle;
      expect(out).toMatchObject({ settled: true, mutations: 0 });
      expect(out.capped).toBeUndefined();
    },
  );

  test.each(channels)(
    "a checkbox a controlled widget put back after its input event, or an edit with no click, still holds the floor: the page's own state may come later (%s)",
    async (_n, channel) => {
      const { w, frame, idle } = framed(channel);
      const box = w.document.createElement("input");
      box.type = "checkbox";
      w.document.body.appendChild(box);
      quiet(w, { op: "install", id: 1 });
      frame();
      clicked(w, true);
      box.checked = true;
      box.dispatchEvent(new w.Event("input", { bubbles: true }));
      // React restores a controlled checkbox's property after the event; its state update comes through a reply.
      box.checked = false;
      await tick();
      const settle = quiet(w, { ...CLICK, max: 300 }) as Promise<Settled>;
      frame();
      idle();
      expect(await settle).toMatchObject({ settled: true, capped: true, mutations: 0 });
      // A file chosen by the browser (upload): input events with no pointer event of the action's.
      quiet(w, { op: "install", id: 2 });
      frame();
      box.checked = true;
      box.dispatchEvent(new w.Event("input", { bubbles: true }));
      await tick();
      const uploaded = quiet(w, { ...CLICK, ids: [2], max: 300 }) as Promise<Settled>;
      frame();
      idle();
      expect(await uploaded).toMatchObject({ settled: true, capped: true, mutations: 0 });
    },
  );

  test.each(channels)(
    "a click that changed nothing yet: a change within the floor through no timer of the page's is waited out and in the settle (%s)",
    async (_n, channel) => {
      const { w, frame } = framed(channel);
      quiet(w, { op: "install", id: 1 });
      frame();
      clicked(w, true);
      await tick();
      const settle = quiet(w, { ...CLICK, timerQuietFor: 300 }) as Promise<Settled>;
      frame();
      expect(await settledWithoutFrames(settle)).toBe("waiting");
      // A socket's answer, through no timer of the page's: the page changes within the floor.
      w.document.body.appendChild(w.document.createElement("output"));
      const pump = setInterval(frame, 5);
      try {
        const out = await settle;
        expect(out).toMatchObject({ settled: true, mutations: 1 });
        expect(out.capped).toBeUndefined();
      } finally {
        clearInterval(pump);
      }
    },
  );

  test.each(channels)(
    "a timer the page set since the arm, also after the settle began, holds the settle to the floor (%s)",
    async (_n, channel) => {
      const { w, frame, idle, pageTimeout } = framed(channel);
      quiet(w, { op: "install", id: 1 });
      frame();
      w.document.body.addEventListener("click", () => pageTimeout(() => undefined, 0));
      clicked(w);
      await tick();
      // The floor (60 s here) outlasts the test: the settle ends at its cap instead.
      let settle = quiet(w, { ...CLICK, max: 300 }) as Promise<Settled>;
      frame();
      idle();
      expect(await settledWithoutFrames(settle)).toBe("waiting");
      expect(await settle).toMatchObject({ settled: true, capped: true });
      // A timer set in a task after the settle began (a message chain's) is seen at the next look.
      quiet(w, { op: "install", id: 2 });
      frame();
      clicked(w, true);
      await tick();
      settle = quiet(w, { ...CLICK, ids: [2], max: 300 }) as Promise<Settled>;
      pageTimeout(() => undefined, 0);
      frame();
      idle();
      expect(await settledWithoutFrames(settle)).toBe("waiting");
      expect(await settle).toMatchObject({ settled: true, capped: true });
    },
  );

  test.each(channels)(
    "the idle wait ends when the floor would have: an idle callback that never comes holds it no longer (%s)",
    async (_n, channel) => {
      const { w, frame } = framed(channel);
      quiet(w, { op: "install", id: 1 });
      frame();
      clicked(w);
      await tick();
      const settle = quiet(w, { ...CLICK, timerQuietFor: 20 }) as Promise<Settled>;
      frame();
      expect(await settle).toMatchObject({ settled: true, mutations: 1 });
      expect((await settle).capped).toBeUndefined();
    },
  );

  test.each(channels)(
    "a click this document did not see while it holds a child frame (a click inside the frame) keeps the floor (%s)",
    async (_n, channel) => {
      const { w, frame, idle } = framed(channel);
      w.document.body.appendChild(w.document.createElement("iframe"));
      quiet(w, { op: "install", id: 1 });
      frame();
      const settle = quiet(w, { ...CLICK, max: 300 }) as Promise<Settled>;
      frame();
      idle();
      expect(await settledWithoutFrames(settle)).toBe("waiting");
      expect(await settle).toMatchObject({ settled: true, capped: true });
    },
  );
});
