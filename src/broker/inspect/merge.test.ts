import { describe, expect, test } from "bun:test";
import type { FindResult, FoundElement } from "../../page/inspect/find.ts";
import type { ReadResult } from "../../page/inspect/read.ts";
import type { SearchMatch, SearchResult } from "../../page/inspect/search.ts";
import { type Descend, mergeFind, mergeRead, mergeSearch } from "./merge.ts";
import type { FramePlaceholder } from "../../page/inspect/tree.ts";

const ph = (slot: number, at: number, scoped?: boolean): FramePlaceholder => ({
  slot,
  at,
  x: 0,
  y: 0,
  ...(scoped === undefined ? {} : { scoped }),
});

/** A read result as the page reports it: `text` is the stream cut to `limit`. */
function read(stream: string, frames: FramePlaceholder[], limit = 1000): ReadResult {
  return {
    title: "",
    url: "",
    text: stream.slice(0, limit),
    length: stream.length,
    truncated: stream.length > limit,
    frames,
  };
}

/** Frame contents by slot; records the limit each frame was asked for. */
function frames<T>(bySlot: (T | undefined)[], asked: number[] = []): Descend<T> {
  return async (f, limit) => {
    asked.push(limit);
    return bySlot[f.slot];
  };
}

describe("mergeRead", () => {
  test("splices frame text after the text before each iframe, on lines of its own", async () => {
    // The page stream: "A" | frame 0 | "\nB" | frame 1 | frame 2 (empty) | "\nC"
    const top = read("A\nB\nC", [ph(0, 1), ph(1, 3), ph(2, 3)]);
    const r = await mergeRead(top, 1000, frames([read("in0", []), read("in1", []), read("", [])]));
    expect(r).toMatchObject({ text: "A\nin0\nB\nin1\nC", truncated: false, frames: [] });
    expect(r.length).toBe(r.text.length);
  });

  test("frames at the very start and at the very end", async () => {
    const top = read("Text", [ph(0, 0), ph(1, 0), ph(2, 4)]);
    const r = await mergeRead(top, 1000, frames([read("x", []), read("y", []), read("z", [])]));
    expect(r.text).toBe("x\ny\nText\nz");
    expect(r.length).toBe(r.text.length);
    const only = await mergeRead(read("", [ph(0, 0)]), 1000, frames([read("alone", [])]));
    expect(only).toMatchObject({ text: "alone", length: 5 });
  });

  test("the limit is global: frames get what is left, length counts everything", async () => {
    const asked: number[] = [];
    const top = read("0123456789\nafter", [ph(0, 10)], 12);
    const r = await mergeRead(top, 12, frames([read("frame text", [], 1)], asked));
    expect(asked).toEqual([1]);
    expect(r).toMatchObject({ text: "0123456789\nf", length: 16 + 11, truncated: true });
  });

  test("after a cut frame no later text is shown (no gaps)", async () => {
    const top = read("ab\ncd", [ph(0, 2)], 100);
    const r = await mergeRead(top, 100, async () => read("long frame", [], 4));
    expect(r.text).toBe("ab\nlong");
    expect(r).toMatchObject({ truncated: true, length: 5 + 11 });
  });
});

const match = (text: string): SearchMatch => ({
  index: 0,
  text,
  context: text,
  tagName: "p",
  visible: true,
  x: 0,
  y: 0,
  width: 0,
  height: 0,
});
function search(texts: string[], total: number, placeholders: FramePlaceholder[], scoped = true): SearchResult {
  const matches = texts.map(match);
  return {
    title: "",
    url: "",
    totalMatches: total,
    matches,
    truncated: total > matches.length,
    frames: placeholders,
    scoped,
    viewport: { w: 800, h: 600 },
  };
}

describe("mergeSearch and mergeFind", () => {
  test("matches in document order, numbered again; totals add up", async () => {
    const top = search(["a1", "a2", "a3"], 3, [ph(0, 1), ph(1, 3)]);
    const r = await mergeSearch(top, 20, frames([search(["f1", "f2"], 2, []), search(["g1"], 1, [])]));
    expect(r.matches.map((m) => `${m.index}${m.text}`)).toEqual(["1a1", "2f1", "3f2", "4a2", "5a3", "6g1"]);
    expect(r).toMatchObject({ totalMatches: 6, truncated: false, frames: [] });
  });

  test("the limit is global; a full list still counts the frames' matches", async () => {
    const asked: number[] = [];
    const top = search(["a1", "a2"], 5, [ph(0, 1), ph(1, 5)]);
    const r = await mergeSearch(top, 2, frames([search(["f1"], 4, []), search(["g1"], 3, [])], asked));
    expect(asked).toEqual([1, 1]);
    expect(r.matches.map((m) => m.text)).toEqual(["a1", "f1"]);
    expect(r).toMatchObject({ totalMatches: 12, truncated: true });
  });

  test("the selector's scope may lie only inside a frame", async () => {
    const top = search([], 0, [ph(0, 0, false), ph(1, 0, false)], false);
    const unscoped = await mergeSearch(top, 20, frames<SearchResult>([undefined, undefined]));
    expect(unscoped.scoped).toBe(false);
    const inner = await mergeSearch(top, 20, frames([undefined, search(["in"], 1, [])]));
    expect(inner).toMatchObject({ scoped: true, totalMatches: 1, matches: [{ index: 1, text: "in" }] });
  });

  test("find merges elements the same way", async () => {
    const el = (name: string): FoundElement => ({
      index: 0,
      tagName: "button",
      role: "button",
      name,
      text: name,
      visible: true,
      enabled: true,
      x: 0,
      y: 0,
      width: 0,
      height: 0,
      attributes: [],
    });
    const top: FindResult = { elements: [el("top")], total: 1, truncated: false, frames: [ph(0, 0)] };
    const inner: FindResult = { elements: [el("in")], total: 1, truncated: false, frames: [] };
    const r = await mergeFind(top, 20, frames([inner]));
    expect(r.elements.map((e) => `${e.index} ${e.name}`)).toEqual(["1 in", "2 top"]);
    expect(r).toMatchObject({ total: 2, truncated: false });
  });
});
