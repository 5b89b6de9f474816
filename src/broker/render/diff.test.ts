import { describe, expect, test } from "bun:test";
import { element, result } from "../../../test/support/snapshot-result.ts";
import type { SnapshotElement } from "../../page/types.ts";
import { diffSnapshots, refRuns, type ChurnRun, type SnapshotDiff } from "./diff.ts";
import { compactChurn, compactDiff } from "./format.ts";
import { diffLines } from "../../protocol/human-snapshot.ts";

const formatDiffHuman = (d: SnapshotDiff): string => diffLines(compactDiff(d, { human: true }));

describe("churn, outcome text and order", () => {
  const days = (from: number, n: number, first = 1) =>
    Array.from({ length: n }, (_, i) => element(from + i, "link", String(first + i)));

  test("a redrawn run of same-shaped elements is one replaced run; the removed refs of its role go with it", () => {
    const prev = result([element(1, "generic", "Prev"), ...days(2, 31)]);
    const next = result([element(40, "generic", "Prev"), ...days(41, 28)]);
    const d = diffSnapshots(prev, next);
    expect(d.added.map((e) => e.kind === "element" && e.name)).toEqual(["Prev"]);
    expect(d.replaced).toEqual([
      {
        role: "link",
        count: 28,
        first: 41,
        last: 68,
        names: ["1", "28"],
        was: Array.from({ length: 31 }, (_, i) => 2 + i),
      },
    ]);
    expect(d.removed).toEqual([1]);
    expect(compactChurn(d.replaced[0] as ChurnRun)).toEqual({
      replaced: 28,
      t: "link",
      r: 41,
      to: 68,
      ex: ["1", "28"],
      was: ["2-32"],
    });
    expect(formatDiffHuman(d)).toContain('+ [41…68] 28 link "1".."28" replacing 2-32');
    // Short runs, or runs with states, stay element by element.
    const few = diffSnapshots(result([]), result(days(1, 7)));
    expect(few.replaced).toEqual([]);
    expect(few.added).toHaveLength(7);
  });

  test("refRuns writes 3 or more consecutive refs as a range", () => {
    expect(refRuns([1, 2, 4, 5, 6, 9])).toEqual([1, 2, "4-6", 9]);
  });

  test("outcome text: new or changed text blocks nearest the change first, at most 3, none the live regions said", () => {
    const prev = result([element(1, "button", "Pay"), element(2, "button", "Other")], {
      texts: [
        { after: 0, x: "Checkout" },
        { after: 2, x: "Footer" },
      ],
    });
    const next = result([element(1, "button", "Pay", { disabled: true }), element(2, "button", "Other")], {
      texts: [
        { after: 0, x: "Checkout" },
        { after: 1, x: "Paid with 4242" },
        { after: 2, x: "Footer" },
        { after: 2, x: "Far news" },
        { after: 2, x: "Saved" },
        { after: 2, x: "Fourth" },
      ],
      live: [{ key: "s", text: "Saved" }],
    });
    const d = diffSnapshots(prev, next);
    expect(d.announced).toEqual(["Saved"]);
    expect(d.text).toEqual(["Paid with 4242", "Far news", "Fourth"]);
    // A mirror of a field's new value is in `changed` already; text around the value is the page's answer.
    const typed = diffSnapshots(
      result([element(1, "textbox", "Name")], { texts: [] }),
      result([element(1, "textbox", "Name", { value: "Ada" })], {
        texts: [
          { after: 1, x: "“Ada”" },
          { after: 1, x: "Ada · Ada" },
          { after: 1, x: "No user named Ada" },
          { after: 1, x: "Ada ✓" },
        ],
      }),
    );
    expect(typed.text).toEqual(["No user named Ada", "Ada ✓"]);
    // The value's spaces are collapsed as a block's are (a textarea's lines).
    const lines = diffSnapshots(
      result([element(1, "textbox", "Note")], { texts: [] }),
      result([element(1, "textbox", "Note", { value: "Dear Ada,\n  thanks " })], {
        texts: [{ after: 1, x: "Dear Ada, thanks" }],
      }),
    );
    expect(lines.text).toEqual([]);
    // No texts read before (an older observation): nothing is claimed as new.
    expect(diffSnapshots(result([element(1, "button", "Pay")]), next).text).toEqual([]);
  });

  test("outcome text: a block changed only where the page ticks on its own is not the action's outcome", () => {
    const els = [element(1, "button", "Save")];
    const prev = result(els, {
      texts: [
        { after: 0, x: "Time left: 50.0 s" },
        { after: 0, x: "12:00:01 · Ready" },
        { after: 1, x: "Elapsed 1200 ms" },
      ],
    });
    const next = result(els, {
      texts: [
        // The countdown's digits ticked: the rest of the block is as it was.
        { after: 0, x: "Time left: 49.9 s", c: ["Time left: ", " s"] },
        // The clock ticked and the message beside it changed: the message is news.
        { after: 0, x: "12:00:02 · Saved", c: ["", " · Saved"] },
        // A block that churns as a whole: its digits moved, nothing else.
        { after: 1, x: "Elapsed 1300 ms", c: ["", ""] },
        // Not ticking: a new line is news.
        { after: 1, x: "Saved at noon" },
      ],
    });
    expect(diffSnapshots(prev, next, 1).text).toEqual(["12:00:02 · Saved", "Saved at noon"]);
    // One text node holds the clock and a message: the message's change is news.
    const whole = diffSnapshots(
      result(els, { texts: [{ after: 0, x: "50 s left · Draft" }] }),
      result(els, { texts: [{ after: 0, x: "49 s left · Saved", c: ["", ""] }] }),
      1,
    );
    expect(whole.text).toEqual(["49 s left · Saved"]);
    // Ticking blocks that were not there before appeared with the action.
    const fresh = diffSnapshots(result(els, { texts: [] }), next, 1);
    expect(fresh.text).toContain("Time left: 49.9 s");
    expect(fresh.text).toContain("Elapsed 1300 ms");
  });

  test("outcome text: nearest the action's target first, when the reply knows it", () => {
    const els = [element(1, "button", "Save"), element(2, "button", "Other"), element(3, "button", "Send")];
    const prev = result(els, { texts: [] });
    const next = result([element(1, "button", "Save", { disabled: true }), els[1], els[2]] as SnapshotElement[], {
      texts: [
        { after: 1, x: "Saving…" },
        { after: 3, x: "Sent to Ann" },
      ],
    });
    // Without a target the first changed element (Save) is the anchor.
    expect(diffSnapshots(prev, next).text).toEqual(["Saving…", "Sent to Ann"]);
    // The action clicked Send: its status line first.
    expect(diffSnapshots(prev, next, 3).text).toEqual(["Sent to Ann", "Saving…"]);
    // A target that is no longer listed falls back to the changed element.
    expect(diffSnapshots(prev, next, 99).text).toEqual(["Saving…", "Sent to Ann"]);
  });

  test("order: listed elements that moved among each other, in their new order", () => {
    const prev = result([
      element(1, "generic", "Ann"),
      element(2, "generic", "Bob"),
      element(3, "generic", "Cid"),
      element(4, "button", "Save"),
    ]);
    const next = result([
      element(2, "generic", "Bob"),
      element(3, "generic", "Cid"),
      element(1, "generic", "Ann"),
      element(4, "button", "Save"),
    ]);
    expect(diffSnapshots(prev, next).order).toEqual(["Bob", "Cid", "Ann"]);
    expect(diffSnapshots(prev, prev).order).toBeUndefined();
  });
});
