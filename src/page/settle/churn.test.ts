import { afterAll, describe, expect, test } from "bun:test";
import { Window } from "happy-dom";
import type { ActWindow } from "../act/dom.ts";
import { churningNodes, watchChurn } from "./churn.ts";
import { inputClock } from "./input.ts";

const opened: Window[] = [];
afterAll(async () => {
  for (const w of opened) await w.happyDOM.close();
});

interface Page {
  win: ActWindow;
  node: { textContent: string | null };
  /** The page rewrites the node in a new frame (mutation records come in a microtask, as in browsers). */
  tick(): Promise<void>;
  /** The page rewrites the node in the frame it is in (a handler's later write, after an await). */
  write(): Promise<void>;
  /** The renderer draws a frame: the frames' clock (document.timeline) moves to now. */
  frame(): void;
  /** Waits `ms`, drawing frames meanwhile unless `stalled`. */
  idle(ms: number, stalled?: boolean): Promise<void>;
  /** When the node last changed (Date.now()). */
  last: number;
}

/**
 * A page whose `#tick` is rewritten every `pace` ms for `ms`, a frame drawn with each, watched for churn from the start
 * (`clocked`: with the input clock's listeners in from the start too, as an observed page has them; `loading`: the
 * document still loading then, its load event the test's to fire).
 */
async function ticking(pace: number, ms: number, clocked = false, loading = false): Promise<Page> {
  const w = new Window({ url: "https://churn.example/" });
  opened.push(w);
  const win = w as unknown as ActWindow;
  w.document.body.innerHTML = "<p id=tick>0</p>";
  let frameAt = 0;
  // happy-dom's timeline follows the wall clock: this one is the frames' clock the test draws.
  Object.defineProperty(w.document, "timeline", {
    value: {
      get currentTime() {
        return frameAt;
      },
    },
  });
  const node = w.document.getElementById("tick") as unknown as { textContent: string | null };
  let n = 0;
  const page: Page = {
    win,
    node,
    last: 0,
    frame: () => {
      frameAt = w.performance.now();
    },
    async tick() {
      page.frame();
      await page.write();
    },
    async write() {
      node.textContent = String(++n);
      page.last = Date.now();
      await Bun.sleep(0);
    },
    async idle(ms, stalled = false) {
      for (const end = page.last + ms; Date.now() < end; ) {
        if (!stalled) page.frame();
        await Bun.sleep(Math.min(10, Math.max(1, end - Date.now())));
      }
      if (!stalled) page.frame();
    },
  };
  if (clocked) {
    // The page's clock from its own start, as a just-loaded document's is.
    const t0 = performance.now();
    Object.defineProperty(w, "performance", { value: { now: () => performance.now() - t0 } });
    inputClock(win);
  }
  if (loading) {
    // happy-dom's own load event first, so that the test's is the one the watcher hears.
    await w.happyDOM.waitUntilComplete();
    Object.defineProperty(w.document, "readyState", { value: "loading", configurable: true });
  }
  watchChurn(win);
  for (const end = Date.now() + ms; Date.now() < end; ) {
    await page.tick();
    await Bun.sleep(pace);
  }
  return page;
}

/** An agent's input, through the page's input clock's capture listener as a trusted event reaches it. */
function input(p: Page): void {
  inputClock(p.win).mark({ type: "mousedown", isTrusted: true });
}

describe("the page's churn", () => {
  test("a node rewritten every 60 ms for over a second is churning", async () => {
    const p = await ticking(60, 1_300);
    expect(churningNodes(p.win, { arm: true }).has(p.node)).toBe(true);
  });

  test("the same on a page whose input clock came with its first look: the clock's zero is no input", async () => {
    // Its first 300 ms after the page began count as an input's; what it does after them is no input's own.
    const p = await ticking(60, 1_600, true);
    expect(churningNodes(p.win, { arm: true }).has(p.node)).toBe(true);
  });

  test("a churn whose renderer drew no frame for 250 ms, then went on by itself just after an input, is still churn", async () => {
    // Idle 250 ms by the wall clock (over twice its pace), none on the frames' clock: a busy machine, not a stop.
    const p = await ticking(60, 1_300);
    await p.idle(250, true);
    input(p);
    for (let i = 0; i < 3; i++) {
      await p.tick();
      await Bun.sleep(60);
    }
    expect(churningNodes(p.win, { arm: true }).has(p.node)).toBe(true);
  });

  test("a loop whose main thread missed frames, going on by itself after an input in the frame that caught up, is still churn", async () => {
    // A requestAnimationFrame loop on a busy machine: no main frame for 70 ms, then one whose time jumped past the
    // missed ones, in which the input is dispatched before the loop's callback runs. Idle by both clocks (over 50 ms).
    const p = await ticking(20, 1_300);
    await p.idle(70, true);
    p.frame();
    input(p);
    for (let i = 0; i < 3; i++) {
      await p.tick();
      await Bun.sleep(20);
    }
    expect(churningNodes(p.win, { arm: true }).has(p.node)).toBe(true);
  });

  test("a loop on trial when the next action arms before its next frame: churn for that action", async () => {
    // Back-to-back actions: the next one arms 10 ms after the loop's first change since the input.
    const p = await ticking(20, 1_300);
    await p.idle(70, true);
    p.frame();
    input(p);
    await p.tick();
    await Bun.sleep(10);
    expect(churningNodes(p.win, { arm: true }).has(p.node)).toBe(true);
  });

  test("without the frames' clock at the input (a clock an older build made), the wall clock alone decides", async () => {
    const p = await ticking(60, 1_300);
    await p.idle(250, true);
    input(p);
    inputClock(p.win).tl = undefined;
    await p.tick();
    expect(churningNodes(p.win, { arm: true }).has(p.node)).toBe(false);
  });

  test("a churn that stopped while frames were drawn, then changed just after an input, answered the input", async () => {
    // Stopped for 600 ms while frames were drawn: idle on both clocks, well over twice its pace.
    const p = await ticking(60, 1_300);
    expect(churningNodes(p.win, { arm: true }).has(p.node)).toBe(true);
    await p.idle(600);
    input(p);
    await p.tick();
    expect(churningNodes(p.win, { arm: true }).has(p.node)).toBe(false);
  });

  test("a churn that stopped, changed three times by each of the agent's clicks 300 ms apart: churn at the first click's arm only", async () => {
    // Still for 350 ms, within four of its gaps (400 ms at least): the first click's arm takes it as churn. The next
    // arm, 650 ms after the stop, must not; it would if the click's own change had renewed its streak (300 ms).
    const p = await ticking(100, 1_300);
    await p.idle(350);
    const armed: boolean[] = [];
    for (let i = 0; i < 4; i++) {
      armed.push(churningNodes(p.win, { arm: true }).has(p.node));
      input(p);
      // The handler's change, a later one in the same frame (after an await: another mutation callback), and one in
      // a task of its own 20 ms later (the frames' clock has moved on, though at no pace of the ticker's).
      await p.tick();
      await p.write();
      await Bun.sleep(20);
      await p.tick();
      await p.idle(300);
    }
    expect(armed).toEqual([true, false, false, false]);
  });

  // An accordion's slide after a click: 500 ms of frames, then 100 ms still, then more frames.
  const slide = async (clicked: boolean): Promise<boolean> => {
    const p = await ticking(20, 500);
    await p.idle(100);
    if (clicked) input(p);
    for (const end = Date.now() + 700; Date.now() < end; ) {
      await p.tick();
      await Bun.sleep(20);
    }
    return churningNodes(p.win, { arm: true }).has(p.node);
  };

  test("frames for well over a second with a 100 ms rest are churn", async () => {
    expect(await slide(false)).toBe(true);
  });

  test("a slide under a second, clicked again 100 ms after it ended, is no churn later", async () => {
    // Its streak ends at the click, or the next slides would be counted onto it and pass for churn.
    expect(await slide(true)).toBe(false);
  });

  test("an animation each click starts, longer than the input's window, clicked again 40 ms after it ends: never churn", async () => {
    // jQuery's 400 ms default, clicked again before it has rested 50 ms (a fast agent, a batch): the frames after the
    // input's 300 ms are that input's own, or they add up over the clicks and pass for churn.
    const p = await ticking(20, 0);
    const armed: boolean[] = [];
    for (let i = 0; i < 4; i++) {
      armed.push(churningNodes(p.win, { arm: true }).has(p.node));
      input(p);
      for (const end = Date.now() + 450; Date.now() < end; ) {
        await p.tick();
        await Bun.sleep(20);
      }
      await p.idle(40);
    }
    expect(armed).toEqual([false, false, false, false]);
  });

  test("a loop seen at its pace right up to an input, going on at it in later frames: churn three frames later", async () => {
    // An agent that acts 200 ms after the page began: no second-long streak yet, but the loop never noticed the input.
    const p = await ticking(60, 200);
    await p.tick();
    expect(churningNodes(p.win, { arm: true }).has(p.node)).toBe(false);
    input(p);
    for (let i = 0; i < 3; i++) {
      await Bun.sleep(60);
      await p.tick();
    }
    expect(churningNodes(p.win, { arm: true }).has(p.node)).toBe(true);
  });

  test("the same from the page's start, its input clock there from the start: the start is no input", async () => {
    const p = await ticking(60, 200, true);
    await p.tick();
    input(p);
    for (let i = 0; i < 3; i++) {
      await Bun.sleep(60);
      await p.tick();
    }
    expect(churningNodes(p.win, { arm: true }).has(p.node)).toBe(true);
  });

  test("a loop the input also changed in its own task, off the beat: no churn for that input", async () => {
    const p = await ticking(60, 200);
    await p.tick();
    input(p);
    // The handler's write, in the frame the input came in.
    await p.write();
    for (let i = 0; i < 4; i++) {
      await Bun.sleep(60);
      await p.tick();
    }
    expect(churningNodes(p.win, { arm: true }).has(p.node)).toBe(false);
  });

  test("a tween that ended a little before the input, which restarts it: no churn", async () => {
    // Still for 95 ms (frames drawn): not idle enough to be woken by the input (twice its pace), but off its beat.
    const p = await ticking(60, 300);
    await p.idle(95);
    input(p);
    for (let i = 0; i < 4; i++) {
      await p.tick();
      await Bun.sleep(60);
    }
    expect(churningNodes(p.win, { arm: true }).has(p.node)).toBe(false);
  });

  test("a tween seen to begin well after the following began, under way at the input: the second-long rule only", async () => {
    // A slider's tween, or an earlier click's animation: the input may have restarted or extended it.
    const p = await ticking(60, 0);
    await Bun.sleep(300);
    for (const end = Date.now() + 200; Date.now() < end; ) {
      await p.tick();
      await Bun.sleep(60);
    }
    await p.tick();
    input(p);
    for (let i = 0; i < 4; i++) {
      await Bun.sleep(60);
      await p.tick();
    }
    expect(churningNodes(p.win, { arm: true }).has(p.node)).toBe(false);
  });

  test("a loop seen for one change only before the input: its pace is unknown, no churn yet", async () => {
    const p = await ticking(10, 1);
    input(p);
    for (let i = 0; i < 4; i++) {
      await p.tick();
      await Bun.sleep(10);
    }
    expect(churningNodes(p.win, { arm: true }).has(p.node)).toBe(false);
  });

  test("a node the page rewrote all through its load, and only 300 ms after it: no churn yet", async () => {
    // A container a loading page fills (streamed rows, an ad slot): its building is no churn, or a click's own
    // change to it (a dialog appended to the body) would be left out.
    const p = await ticking(60, 1_200, false, true);
    Object.defineProperty(p.win.document, "readyState", { value: "complete", configurable: true });
    (p.win as unknown as { dispatchEvent(e: unknown): void }).dispatchEvent(
      new (p.win as unknown as { Event: new (t: string) => unknown }).Event("load"),
    );
    for (const end = Date.now() + 300; Date.now() < end; ) {
      await p.tick();
      await Bun.sleep(60);
    }
    expect(churningNodes(p.win, { arm: true }).has(p.node)).toBe(false);
  });

  test("a node changed once just before an input, then animated by it for over a second: the input's own", async () => {
    // Seen once (its pace unknown), 30 ms before the click: the click's long animation of it is no churn.
    const p = await ticking(30, 1);
    input(p);
    for (const end = Date.now() + 1_400; Date.now() < end; ) {
      await p.tick();
      await Bun.sleep(20);
    }
    expect(churningNodes(p.win, { arm: true }).has(p.node)).toBe(false);
  });

  test("an endless animation a click started, crossing the pointer now and then: its own only for a second, then churn", async () => {
    // The pointer's crossings as the page moves under it are inputs to the clock, but no press: they do not renew
    // the click's claim, or the animation would never be learnt and every later action would wait out its cap.
    const p = await ticking(20, 0);
    input(p);
    const crossed = () => inputClock(p.win).mark({ type: "mouseover", isTrusted: true });
    for (let i = 0; i < 5; i++) {
      for (const end = Date.now() + 600; Date.now() < end; ) {
        await p.tick();
        await Bun.sleep(20);
      }
      crossed();
    }
    expect(churningNodes(p.win, { arm: true }).has(p.node)).toBe(true);
  });
});
