import { afterAll, describe, expect, test } from "bun:test";
import { Window } from "happy-dom";
import type { ActWindow } from "../act/dom.ts";
import { churningNodes, watchChurn } from "./churn.ts";
import { hrNow, inputClock } from "./input.ts";

const opened: Window[] = [];
afterAll(async () => {
  for (const w of opened) await w.happyDOM.close();
});

const PACE_MS = 60;

/** A page whose `#tick` the page rewrites every PACE_MS for `ms`, watched for churn from the start. */
async function ticking(
  ms: number,
): Promise<{ win: ActWindow; node: { textContent: string | null }; tick: () => Promise<void> }> {
  const w = new Window({ url: "https://churn.example/" });
  opened.push(w);
  const win = w as unknown as ActWindow;
  w.document.body.innerHTML = "<p id=tick>0</p>";
  const node = w.document.getElementById("tick") as unknown as { textContent: string | null };
  watchChurn(win);
  let n = 0;
  // happy-dom delivers mutation records in a microtask, as browsers do.
  const tick = async () => {
    node.textContent = String(++n);
    await Bun.sleep(0);
  };
  for (const end = Date.now() + ms; Date.now() < end; ) {
    await tick();
    await Bun.sleep(PACE_MS);
  }
  return { win, node, tick };
}

/** An agent's input as the page's input clock records it (a trusted event's capture listener). */
function input(win: ActWindow): void {
  inputClock(win).hr = hrNow(win);
}

describe("the page's churn", () => {
  test("a node rewritten every 60 ms for over a second is churning", async () => {
    const { win, node } = await ticking(1_300);
    expect(churningNodes(win).has(node)).toBe(true);
  });

  test("a churn that paused for less than its activity window, then ticked just after an input, is still churn", async () => {
    // The renderer drew a frame late (a busy machine): the clock's next tick came after the agent's input.
    const { win, node, tick } = await ticking(1_300);
    await Bun.sleep(2.5 * PACE_MS);
    input(win);
    await tick();
    expect(churningNodes(win).has(node)).toBe(true);
  });

  test("a churn that stopped for well over its activity window and changed just after an input answered the input", async () => {
    const { win, node, tick } = await ticking(1_300);
    await Bun.sleep(8 * PACE_MS);
    input(win);
    await tick();
    expect(churningNodes(win).has(node)).toBe(false);
  });
});
