import { afterAll, describe, expect, test } from "bun:test";
import { closePages, crossOrigin, doc } from "../../../test/support/happy-dom.ts";
import { type FindResult, pageFind } from "./find.ts";
import { type InspectError, pageRead, type ReadResult } from "./read.ts";
import { pageSearch, type SearchResult } from "./search.ts";
import type { PageWindow } from "../types.ts";
import { pageFrameElement } from "./compose.ts";

// Cross-origin iframes: the page scripts leave a placeholder where the frame's content belongs
// and the iframe element on our window, for the broker to descend through the frame's session.

afterAll(closePages);

/** A page whose iframes with a `data-xo` attribute behave as cross-origin: a window, no document. */
function page(html: string): PageWindow {
  const { w, win } = doc(html);
  for (const el of w.document.querySelectorAll("iframe[data-xo]")) crossOrigin(el);
  return win;
}

const FRAMES = `<main><p>Before kittens</p><iframe id="one" data-xo></iframe><p>Between kittens</p><iframe id="two" data-xo></iframe>
  <iframe id="gone"></iframe><p>After kittens</p></main><footer><iframe id="out" data-xo></iframe></footer>`;

describe("cross-origin iframe placeholders", () => {
  test("read: the characters before each frame; the element stays reachable by its slot", () => {
    const win = page(FRAMES);
    const r = pageRead(win, { layout: false }) as ReadResult;
    expect(r.text).toBe("Before kittens\nBetween kittens\nAfter kittens");
    // The frame outside the main content (in the footer) is not read.
    expect(r.frames).toEqual([
      { slot: 0, at: 14, x: 0, y: 0 },
      { slot: 1, at: 30, x: 0, y: 0 },
    ]);
    expect((pageFrameElement(win, 1) as unknown as { id: string }).id).toBe("two");
    expect(pageFrameElement(win, 2)).toBeNull();
  });

  test("read: `whole` reads the body, as inside a frame", () => {
    const r = pageRead(page(`<nav>Menu</nav><main>Main</main><div>Rest</div>`), {
      layout: false,
      whole: true,
    }) as ReadResult;
    expect(r.text).toBe("Main\nRest");
  });

  test("read: a frame at the very start still separates the text after it", () => {
    const r = pageRead(page(`<main><iframe data-xo></iframe>Text</main>`), { layout: false }) as ReadResult;
    expect(r).toMatchObject({ text: "Text", frames: [{ at: 0 }] });
  });

  test("search: the matches before each frame; no match spans a frame", () => {
    const win = page(FRAMES);
    const r = pageSearch(win, { layout: false, query: "kittens" }) as SearchResult;
    expect(r.totalMatches).toBe(3);
    expect(r.frames.map((f) => [f.slot, f.at, f.scoped])).toEqual([
      [0, 1, true],
      [1, 2, true],
      [2, 3, true],
    ]);
    expect(r.matches.map((m) => m.context)).toEqual(["Before kittens", "Between kittens", "After kittens"]);
    expect((pageSearch(win, { layout: false, query: "kittens between" }) as SearchResult).totalMatches).toBe(0);
    expect(pageFrameElement(win, 2)).not.toBeNull();
  });

  test("search: a frame outside the selector's scope may still hold it", () => {
    const win = page(FRAMES);
    const r = pageSearch(win, { layout: false, query: "kittens", selector: "footer" }) as SearchResult;
    expect(r).toMatchObject({ totalMatches: 0, scoped: true, frames: [{}, {}, { slot: 2, scoped: true }] });
    expect(r.frames.map((f) => f.scoped)).toEqual([false, false, true]);
    const none = pageSearch(win, { layout: false, query: "kittens", selector: "#nothing" }) as SearchResult;
    expect(none).toMatchObject({ totalMatches: 0, scoped: false });
    expect(none.frames.length).toBe(3);
    const plain = pageSearch(page(`<p>kittens</p>`), {
      layout: false,
      query: "kittens",
      selector: "#nothing",
    }) as InspectError;
    expect(plain.error).toBe("no_match");
  });

  test("find: the matches before each frame, the iframe itself included", () => {
    const r = pageFind(page(FRAMES), { layout: false, selector: "p, #two" }) as FindResult;
    expect(r.total).toBe(4);
    expect(r.frames.map((f) => [f.slot, f.at])).toEqual([
      [0, 1],
      [1, 3],
      [2, 4],
    ]);
  });

  test("a run without cross-origin frames clears the list left by the previous run", () => {
    const win = page(FRAMES);
    pageFind(win, { layout: false, selector: "p" });
    expect(pageFrameElement(win, 0)).not.toBeNull();
    for (const el of Array.from(win.document.querySelectorAll("iframe")))
      (el as unknown as { remove(): void }).remove();
    pageRead(win, { layout: false });
    expect(pageFrameElement(win, 0)).toBeNull();
  });
});
