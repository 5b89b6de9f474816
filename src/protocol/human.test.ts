import { describe, expect, test } from "bun:test";
import { actionText, diffLines, snapshotText } from "./human-snapshot.ts";
import { commandsText, netText, storageText, traceStopText, waitText } from "./human-devtools.ts";
import { findText, readText, searchText } from "./human-inspect.ts";
import { humanize } from "./human.ts";

describe("the CLI's text from a typed reply", () => {
  test("after the text: the watchdogs' hints, what the policy stopped, handbacks, then the broker's notes", () => {
    const reply = {
      ok: true,
      requests: [],
      hints: [
        { type: "dialog_pending", message: "t2 waits on a dialog" },
        { type: "broker_outdated", message: "The broker is older" },
      ],
      policyBlocked: [{ kind: "request", url: "https://x.example/", rule: "origins.deny" }, { more: 2 }],
      handbacks: [{ tab: "t1", ended: "lease_ended", url: "https://a.example/\n[1] x", newTabs: [{ id: "t3" }] }],
    };
    expect(humanize(reply, netText).split("\n")).toEqual([
      "No requests recorded.",
      "hint: t2 waits on a dialog",
      "policy stopped request https://x.example/ (origins.deny)",
      "handback: t1 (lease_ended); url https://a.example/ [1] x; 1 new tab(s)",
      "hint: The broker is older",
    ]);
  });

  test("what the reply leaves out comes from the call's arguments", () => {
    expect(
      humanize({ ok: true, commands: [{ id: "c1", method: "click" }] }, commandsText, { status: "completed" }),
    ).toBe("c1  completed       click");
    expect(humanize({ ok: true, elapsedMs: 12 }, waitText, { selector: "h1" })).toBe("✓ selector after 12 ms");
    expect(humanize({ ok: true, elapsedMs: 3 }, waitText, {})).toBe("✓ network-idle after 3 ms");
    expect(humanize({ ok: true, origin: "https://a.example", value: null }, storageText, { op: "get", key: "k" })).toBe(
      "(no k)",
    );
    expect(humanize({ ok: true, elements: [] }, findText, { selector: 'a\n"b' })).toBe('No elements match "a\\n\\"b".');
  });

  test("numbered matches, the total only from a cut list, page strings escaped", () => {
    const r = {
      ok: true,
      title: "T",
      url: "https://a.example/",
      matches: [{ tagName: "p", x: 1, y: 2, context: "x\ny", visible: false, r: 4 }],
    };
    expect(humanize(r, searchText, { query: "x" })).toBe(
      '1 match for "x" in https://a.example/\n[1] <p> 1,2 (not in view) ref=4 "x\\ny"',
    );
    expect(
      humanize({ ok: true, title: "T\n[2] fake", url: "u", text: "ab", length: 9, truncated: true }, readText),
    ).toBe(`T\\n[2] fake\nu\n${"─".repeat(60)}\nab\n... [truncated: 2 of 9 characters]`);
  });

  test("a scrolling page's whole geometry, sent in human mode only, gives the viewport line", () => {
    const r = { ok: true, title: "T", url: "u", page: { vw: 800, vh: 600, dw: 800, dh: 1600, sx: 0, sy: 100 } };
    expect(humanize(r, snapshotText)).toBe(
      "[page] T | u\n[viewport] 800x600 at 0,100 of 800x1600 | 900px below\n(no interactive elements)",
    );
  });

  test("a diff reads its JSON: churn runs after the added, ranges of refs, the count beyond the limit", () => {
    expect(
      diffLines({
        added: [
          { r: 9, t: "link", n: "New" },
          { replaced: 3, t: "link", r: 10, to: 12, ex: ["1", "3"], was: ["2-4", 7] },
        ],
        removed: [1, "3-5"],
        more: 2,
        unchanged: 4,
      }),
    ).toBe(
      [
        '+ [9] link "New"',
        '+ [10…12] 3 link "1".."3" replacing 2-4,7',
        "+ 2 more new elements beyond the limit",
        "- removed 1,3-5",
      ].join("\n"),
    );
  });

  test("an action: its evidence line from the reply's view, then the page; without a view, the fields", () => {
    const observed = { diff: { changed: [{ r: 3, t: "button", n: "Go", s: "focused", fields: ["focused"] }] } };
    const reply = {
      ok: true,
      evidence: { status: "verified", popups: ["t2"] },
      view: { action: "click", effects: ["focus_changed", "popup_opened"], observation: observed },
    };
    expect(humanize(reply, actionText)).toBe(
      '✓ click verified (focus_changed, popup_opened); popup t2\n~ [3] button "Go" focused (focused)',
    );
    expect(humanize({ ok: true, evidence: { status: "verified" } }, actionText)).toBe(
      '{"evidence":{"status":"verified"}}',
    );
  });

  test("trace stop names the traced tab it gets in human mode", () => {
    expect(humanize({ ok: true, file: "/t.json", sizeBytes: 10, events: 2, tab: "t1" }, traceStopText)).toBe(
      "✓ Trace of t1 written to /t.json (2 events, 10 bytes)",
    );
  });
});
