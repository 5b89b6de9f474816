import { describe, expect, test } from "bun:test";
import { type EntryObject, readEntry, readListing, wireEntry } from "./elements.ts";

describe("listed elements on the wire", () => {
  test("an element is [ref, role, name, {more}]; the name and the object only when they say something", () => {
    expect(wireEntry({ r: 1, t: "link", n: "Home" })).toEqual([1, "link", "Home"]);
    expect(wireEntry({ r: 2, t: "button" })).toEqual([2, "button"]);
    expect(wireEntry({ r: 3, t: "button", d: "icon star" })).toEqual([3, "button", "", { d: "icon star" }]);
    expect(wireEntry({ r: 4, t: "textbox", n: "Name", v: "Ada", fields: ["v"] })).toEqual([
      4,
      "textbox",
      "Name",
      { v: "Ada", fields: ["v"] },
    ]);
  });

  test("a text block is a string; headings, folds and churn runs stay objects", () => {
    expect(wireEntry({ x: "Hello" })).toBe("Hello");
    expect(wireEntry({ h: 2, x: "Pick a day" })).toEqual({ h: 2, x: "Pick a day" });
    const fold = { fold: 9, r: 5, to: 13, t: "link" };
    expect(wireEntry(fold)).toEqual(fold);
    const run = { replaced: 31, t: "link", r: 40, to: 70, ex: ["1", "31"] };
    expect(wireEntry(run)).toEqual(run);
  });

  test("every entry reads back to the object it was made from", () => {
    const objects: EntryObject[] = [
      { r: 1, t: "link", n: "Home" },
      { r: 2, t: "button" },
      { r: 3, t: "button", d: "icon star" },
      { r: 4, t: "textbox", n: "Name", v: "Ada", s: "focused" },
      { x: "Hello" },
      { h: 1, x: "Title" },
      { fold: 9, r: 5, to: 13, t: "link" },
    ];
    expect(objects.map((o) => readEntry(JSON.parse(JSON.stringify(wireEntry(o)))))).toEqual(objects);
  });

  test("readListing reads a snapshot's elements and a diff's added and changed, and leaves the rest", () => {
    const reply = {
      ok: true,
      elements: [[1, "link", "Home"], "Hello"],
      diff: { added: [[5, "button", "Go"]], changed: [[4, "textbox", "Name", { v: "Ada" }]], removed: [1, "3-5"] },
      hints: [{ type: "autocomplete", refs: [1] }],
    };
    expect(readListing(reply) as object).toEqual({
      ok: true,
      elements: [{ r: 1, t: "link", n: "Home" }, { x: "Hello" }],
      diff: {
        added: [{ r: 5, t: "button", n: "Go" }],
        changed: [{ r: 4, t: "textbox", n: "Name", v: "Ada" }],
        removed: [1, "3-5"],
      },
      hints: [{ type: "autocomplete", refs: [1] }],
    });
    // The reply itself is not changed.
    expect(reply.elements[0]).toEqual([1, "link", "Home"]);
  });
});
