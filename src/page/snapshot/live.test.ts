import { afterAll, describe, expect, test } from "bun:test";
import { announced, diffSnapshots } from "../../broker/render/diff.ts";
import { closePages, page, snap } from "../../../test/support/happy-dom.ts";

afterAll(closePages);

describe("live regions", () => {
  test("status, alert, log, aria-live and output are read; aria-live=off and plain text are not", () => {
    const { win } = page(`
      <p>Plain text</p>
      <div role="status">Saved</div>
      <div role="alert">Card declined</div>
      <div aria-live="polite">3 results</div>
      <div aria-live="off">ticker</div>
      <output>42</output>
      <ul role="log"><li>hi</li><li>how are you?</li></ul>
    `);
    expect(snap(win).live?.map((l) => l.text)).toEqual(["Saved", "Card declined", "3 results", "42", "how are you?"]);
  });

  test("a region keeps its number across snapshots of the document; one added again is new", () => {
    const { w, win } = page(`<div id="a" role="status">one</div>`);
    const first = snap(win).live ?? [];
    const again = snap(win).live ?? [];
    expect(again).toEqual(first);
    w.document.getElementById("a")?.remove();
    w.document.body.insertAdjacentHTML("beforeend", `<div role="status">one</div>`);
    const next = snap(win).live ?? [];
    expect(next[0]?.text).toBe("one");
    expect(next[0]?.key).not.toBe(first[0]?.key);
  });

  test("a diff announces a region's new text, what a grown text added, and a new region; nothing for the unchanged, emptied or gone", () => {
    const { w, win } = page(`
      <div id="toast" role="status"></div><div id="msg" aria-live="polite">Uploading</div>
      <div id="same" role="status">Ready</div><div id="gone" role="alert">Old error</div>
      <ul id="chat" role="log"><li>hi</li></ul>
    `);
    const prev = snap(win);
    const d = w.document;
    (d.getElementById("toast") as unknown as { textContent: string }).textContent = "Saved 2 items";
    (d.getElementById("msg") as unknown as { textContent: string }).textContent = "Uploading done";
    d.getElementById("gone")?.remove();
    d.getElementById("chat")?.insertAdjacentHTML("beforeend", "<li>new line</li>");
    const next = snap(win);
    expect(diffSnapshots(prev, next).announced).toEqual(["Saved 2 items", "done", "new line"]);
    expect(diffSnapshots(next, snap(win)).announced).toEqual([]);
  });

  test("text as shown: no scripts, styles or hidden parts; blocks separate words, inline elements do not", () => {
    const { win } = page(`
      <div role="status"><script>var x = 1</script><style>.a{}</style><b>Sa</b>ved<span hidden>secret</span><span aria-hidden="true">✓</span></div>
      <div role="alert"><p>Card</p><p>declined</p></div>
    `);
    expect(snap(win).live?.map((l) => l.text)).toEqual(["Saved", "Card declined"]);
  });

  test("only the outermost of nested regions; empty ones are left out and leave room for the rest", () => {
    const empties = Array.from({ length: 25 }, () => `<div role="alert"></div>`).join("");
    const { win } = page(`${empties}<section aria-live="polite"><div role="status">Copied</div></section>`);
    expect(snap(win).live?.map((l) => l.text)).toEqual(["Copied"]);
  });

  test("a log (or a region too long to read) is its newest entry: the last child with text", () => {
    const long = Array.from({ length: 80 }, (_, i) => `<p>message number ${i} with some words</p>`).join("");
    const { win } = page(`
      <div role="log"><div>first</div><div>second</div><div class="typing"></div><div class="anchor"></div></div>
      <div aria-live="polite">${long}<p>the newest one</p></div>
    `);
    expect(snap(win).live?.map((l) => l.text)).toEqual(["second", "the newest one"]);
  });

  test("at most three announcements, none repeated", () => {
    const prev = ["1", "2", "3", "4"].map((key) => ({ key, text: "" }));
    const next = [
      { key: "1", text: "a" },
      { key: "2", text: "a" },
      { key: "3", text: "b" },
      { key: "4", text: "c" },
      { key: "5", text: "d" },
    ];
    expect(announced(prev, next)).toEqual(["a", "b", "c"]);
    expect(announced(undefined, undefined)).toEqual([]);
  });
});
