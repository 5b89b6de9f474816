import { describe, expect, test } from "bun:test";
import { INPUT_SLACK_MS, InputSpans } from "./input-spans.ts";

/** InputSpans on a clock the test moves. */
function spans() {
  let now = 0;
  const s = new InputSpans(() => now);
  return { s, at: (t: number) => (now = t) };
}

describe("near a command (what a page sends over a WebSocket then answers the action)", () => {
  test("a click's dispatch and its slack are; nothing before it or after the slack is", () => {
    const { s, at } = spans();
    at(100);
    s.dispatching();
    at(104);
    s.dispatched();
    expect([s.nearCommand(99), s.nearCommand(102), s.nearCommand(104 + INPUT_SLACK_MS), s.nearCommand(105 + INPUT_SLACK_MS)]).toEqual([true, true, true, false]);
  });

  test("typed text is not, also inside the slack of the focusing click before it; the Enter after it is", () => {
    const { s, at } = spans();
    at(0);
    s.dispatching(true);
    s.stepping(); // the focusing click
    at(3);
    s.stepped();
    at(10);
    s.stepping(true); // the text
    at(12);
    s.stepped();
    // The click's slack still runs (until 53), but the text came after the click: a typing indicator.
    expect([s.nearCommand(4), s.nearCommand(11), s.nearCommand(30)]).toEqual([true, false, false]);
    // Both are near an input for the page's polling.
    expect([s.nearInput(11), s.nearInput(30)]).toEqual([true, true]);
    at(40);
    s.stepping(); // Enter
    at(41);
    s.stepped();
    s.dispatched();
    expect([s.nearCommand(45), s.nearCommand(40 + INPUT_SLACK_MS)]).toEqual([true, true]);
  });
});
