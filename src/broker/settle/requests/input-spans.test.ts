import { describe, expect, test } from "bun:test";
import { INPUT_SLACK_MS, InputSpans } from "./input-spans.ts";

/** InputSpans on a clock the test moves. */
function spans() {
  let now = 0;
  const s = new InputSpans(() => now);
  return { s, at: (t: number) => (now = t) };
}

describe("which input a moment is near (what a page sends over a WebSocket then may answer the action)", () => {
  test("a click's dispatch and its slack are near a command; nothing before it or after the slack is near anything", () => {
    const { s, at } = spans();
    at(100);
    s.dispatching();
    at(104);
    s.dispatched();
    expect([
      s.nearWhich(98),
      s.nearWhich(102),
      s.nearWhich(104 + INPUT_SLACK_MS),
      s.nearWhich(105 + INPUT_SLACK_MS),
    ]).toEqual([undefined, "command", "command", undefined]);
  });

  test("typed text is text, also inside the slack of the focusing click before it; the Enter after it is a command", () => {
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
    expect([s.nearWhich(4), s.nearWhich(11), s.nearWhich(30)]).toEqual(["command", "text", "text"]);
    // Both are near an input for the page's polling.
    expect([s.nearInput(11), s.nearInput(30)]).toEqual([true, true]);
    at(40);
    s.stepping(); // Enter
    at(41);
    s.stepped();
    s.dispatched();
    expect([s.nearWhich(45), s.nearWhich(40 + INPUT_SLACK_MS), s.nearWhich(42 + INPUT_SLACK_MS)]).toEqual([
      "command",
      "command",
      undefined,
    ]);
  });

  test("an input sent with the locate call, before the dispatch, that set nothing is withdrawn; the dispatch's own stay", () => {
    const { s, at } = spans();
    at(0);
    s.stepping(); // the locate call with its setter
    at(2);
    s.stepped();
    expect([s.nearInput(1), s.inDispatch(1)]).toEqual([true, true]);
    at(5);
    // The action's steps learn it set nothing once the dispatch began.
    s.dispatching(true);
    s.withdrawFirst();
    expect([s.nearInput(1), s.inDispatch(1), s.nearInput(30), s.inDispatch(6)]).toEqual([false, false, false, true]);
    at(10);
    s.stepping(); // the click on an ARIA option
    at(12);
    s.stepped();
    s.dispatched();
    expect([s.nearWhich(11), s.inDispatch(11), s.nearInput(1)]).toEqual(["command", true, false]);
  });
});
