import { afterAll, describe, expect, test } from "bun:test";
import { closePages, page, snap } from "../../../test/support/happy-dom.ts";

afterAll(closePages);

describe("text blocks", () => {
  test("a block of listed controls' text only is left out; a sentence around a control and a heading stay", () => {
    const { win } = page(`
      <nav><a href="/">Home</a> · <a href="/help">Help</a></nav>
      <h2><a href="/news">News</a></h2>
      <p><span onclick="1">iris</span> <span onclick="1">quartz</span></p>
      <p>Read the <a href="/terms">terms</a> first.</p>
      <p id="status">Saved at 10:02</p>
    `);
    const r = snap(win, { text: true });
    expect(r.texts?.map((b) => b.x)).toEqual(["News", "Read the terms first.", "Saved at 10:02"]);
  });
});
