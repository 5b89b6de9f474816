/**
 * A click's settle and the page's ledger: the 20 ms floor only when the page set a timer or the
 * click has changed nothing yet, on windows whose frames the test steps (test/support/stepped-frames.ts).
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
import { bundled } from "../../../test/support/page-bundle.ts";

afterAll(closeFramed);

const pageSelect = bundled<(win: unknown, el: unknown, arg: Record<string, unknown>) => unknown>("select");

/** The select script's setter, whose input and change events are untrusted in a browser (happy-dom trusts them). */
function setNative(w: Window, list: unknown, index: number): unknown {
  const Trusted = w.Event;
  Object.defineProperty(w, "Event", {
    configurable: true,
    writable: true,
    value: class extends Trusted {
      get isTrusted(): boolean {
        return false;
      }
    },
  });
  try {
    return pageSelect(w, list, { op: "setNative", index });
  } finally {
    Object.defineProperty(w, "Event", { configurable: true, writable: true, value: Trusted });
  }
}

/** A click's settle (the actions that type no text): the floor only when the page set a timer. */
const CLICK = { ...SETTLE, click: true, idle: true, timerQuietFor: 60_000 };

/** The action's click came in, and its handler changed the page at once (or, `quietly`, did nothing). */
function clicked(w: Window, quietly = false): void {
  w.document.body.dispatchEvent(new w.MouseEvent("click", { bubbles: true }));
  if (!quietly) w.document.body.appendChild(w.document.createElement("output"));
}

/** A checkbox in the page, for the click to toggle. */
function checkbox(w: Window) {
  const box = w.document.createElement("input");
  box.type = "checkbox";
  w.document.body.appendChild(box);
  return box;
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
      const box = checkbox(w);
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
      // Unchecked again, and the frame after it rendered before the settle call: the idle moment alone.
      quiet(w, { op: "install", id: 2 });
      frame();
      clicked(w, true);
      box.checked = false;
      box.dispatchEvent(new w.Event("input", { bubbles: true }));
      frame();
      await tick();
      const early = quiet(w, { ...CLICK, ids: [2], max: 300 }) as Promise<Settled>;
      expect(await settledWithoutFrames(early)).toBe("waiting");
      idle();
      const late = await early;
      expect(late).toMatchObject({ settled: true, mutations: 0 });
      expect(late.capped).toBeUndefined();
    },
  );

  test.each(channels)(
    "a native select the setter set, still showing its option at the look, changed the page: settled a frame and an idle moment after; put back, it holds the floor (%s)",
    async (_n, channel) => {
      const { w, frame, idle } = framed(channel);
      w.document.body.insertAdjacentHTML("beforeend", "<select><option>a<option>b<option>c</select>");
      const list = w.document.querySelector("select") as unknown as {
        selectedIndex: number;
        addEventListener(t: string, f: () => void): void;
      };
      quiet(w, { op: "install", id: 1 });
      frame();
      expect(setNative(w, list, 2)).toMatchObject({ ok: true, selected: ["c"] });
      await tick();
      // Held to the floor (60 s), it would end at its cap (300 ms) instead.
      const settle = quiet(w, { ...CLICK, max: 300 }) as Promise<Settled>;
      expect(await settledWithoutFrames(settle)).toBe("waiting");
      frame();
      idle();
      const out = await settle;
      expect(out).toMatchObject({ settled: true, mutations: 0 });
      expect(out.capped).toBeUndefined();
      // The frame after the setter rendered before the settle call (the watcher asks for one at the setter's edit): no other frame.
      quiet(w, { op: "install", id: 3 });
      frame();
      setNative(w, list, 1);
      frame();
      await tick();
      const framed3 = quiet(w, { ...CLICK, ids: [3], max: 300 }) as Promise<Settled>;
      expect(await settledWithoutFrames(framed3)).toBe("waiting");
      idle();
      const early = await framed3;
      expect(early).toMatchObject({ settled: true, mutations: 0 });
      expect(early.capped).toBeUndefined();
      // A controlled select its change handler put back (React restores the property, then its state comes later).
      list.addEventListener("change", () => (list.selectedIndex = 2));
      quiet(w, { op: "install", id: 2 });
      frame();
      setNative(w, list, 0);
      await tick();
      const held = quiet(w, { ...CLICK, ids: [2], max: 300 }) as Promise<Settled>;
      frame();
      idle();
      expect(await held).toMatchObject({ settled: true, capped: true, mutations: 0 });
      // Put back again, after a checkbox an earlier action toggled (still checked) and a pointer event since the arm
      // (the browser's own move under a pointer that stays put): the select is judged, not that checkbox.
      const box = w.document.createElement("input");
      box.type = "checkbox";
      w.document.body.appendChild(box);
      quiet(w, { op: "install", id: 4 });
      frame();
      clicked(w, true);
      box.checked = true;
      box.dispatchEvent(new w.Event("input", { bubbles: true }));
      await tick();
      quiet(w, { op: "install", id: 5 });
      frame();
      setNative(w, list, 1);
      clicked(w, true);
      await tick();
      const stale = quiet(w, { ...CLICK, ids: [5], max: 300 }) as Promise<Settled>;
      frame();
      idle();
      expect(await stale).toMatchObject({ settled: true, capped: true, mutations: 0 });
      // The option already selected: nothing changed, the floor holds.
      list.selectedIndex = 2;
      quiet(w, { op: "install", id: 6 });
      frame();
      setNative(w, list, 2);
      await tick();
      const same = quiet(w, { ...CLICK, ids: [6], max: 300 }) as Promise<Settled>;
      frame();
      idle();
      expect(await same).toMatchObject({ settled: true, capped: true, mutations: 0 });
    },
  );

  test.each(channels)(
    "a checkbox a controlled widget put back after its input event, or an edit with no click, still holds the floor: the page's own state may come later (%s)",
    async (_n, channel) => {
      const { w, frame, idle } = framed(channel);
      const box = checkbox(w);
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
    "a settle again after a response needs no frame of its own when one rendered after the response; a frame callback of the page's still waits for one (%s)",
    async (_n, channel) => {
      const { w, frame } = framed(channel);
      const floor = { ...CLICK, timerQuietFor: 30, finish: false, linger: 60_000, max: 1_000 };
      /** A click that changed nothing settles on the floor; its request's answer lands during that settle (or after it). */
      const clickAnswered = async (id: number, framedAfter: boolean): Promise<number> => {
        quiet(w, { op: "install", id });
        frame();
        clicked(w, true);
        await tick();
        const first = quiet(w, { ...floor, ids: [id] }) as Promise<Settled>;
        frame();
        if (!framedAfter) await first;
        else await new Promise((r) => setTimeout(r, 10));
        const answered = Date.now();
        await new Promise((r) => setTimeout(r, 2));
        if (framedAfter) {
          // A frame renders after the answer, while the first settle still watches.
          frame();
          const out = await first;
          expect(out).toMatchObject({ settled: true, mutations: 0 });
          expect(out.capped).toBeUndefined();
        }
        return answered;
      };
      const again = (id: number, answered: number) =>
        quiet(w, { ...floor, ids: [id], sinceResponse: Date.now() - answered }) as Promise<Settled>;
      // The broker settles again from the answer (the watcher stopped ticking in between): the floor alone ends it,
      // where waiting for a frame of its own would run to the cap.
      const out = await again(1, await clickAnswered(1, true));
      expect(out).toMatchObject({ settled: true, mutations: 0 });
      expect(out.capped).toBeUndefined();
      // The same, with a frame callback of the page's requested after that frame: the look waits for the next frame.
      const answered2 = await clickAnswered(2, true);
      w.requestAnimationFrame(() => undefined);
      const held = again(2, answered2);
      await new Promise((r) => setTimeout(r, 60));
      expect(await settledWithoutFrames(held)).toBe("waiting");
      frame();
      expect(await held).toMatchObject({ settled: true, mutations: 0 });
      // An answer after the last frame the first settle saw: the frames before it do not count.
      const late = again(3, await clickAnswered(3, false));
      await new Promise((r) => setTimeout(r, 60));
      expect(await settledWithoutFrames(late)).toBe("waiting");
      frame();
      expect(await late).toMatchObject({ settled: true, mutations: 0 });
    },
  );

  test.each(channels)(
    "a change with no input event the page took (a value set by script), or a document holding a child frame, needs a frame during the settle (%s)",
    async (_n, channel) => {
      const { w, frame } = framed(channel);
      const floor = { ...CLICK, timerQuietFor: 20, max: 1_000 };
      quiet(w, { op: "install", id: 1 });
      frame();
      // What select's script setter fires: untrusted events, no input time on the page's clock.
      const set = new w.Event("input", { bubbles: true });
      Object.defineProperty(set, "isTrusted", { value: false });
      w.document.body.dispatchEvent(set);
      await tick();
      const untimed = quiet(w, floor) as Promise<Settled>;
      await new Promise((r) => setTimeout(r, 60));
      expect(await settledWithoutFrames(untimed)).toBe("waiting");
      frame();
      expect(await untimed).toMatchObject({ settled: true });
      // A frame after the click, but a child frame runs its own frame callbacks: one during the settle still.
      w.document.body.appendChild(w.document.createElement("iframe"));
      quiet(w, { op: "install", id: 2 });
      frame();
      clicked(w, true);
      await tick();
      frame();
      const framed2 = quiet(w, { ...floor, ids: [2] }) as Promise<Settled>;
      await new Promise((r) => setTimeout(r, 60));
      expect(await settledWithoutFrames(framed2)).toBe("waiting");
      frame();
      expect(await framed2).toMatchObject({ settled: true });
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
