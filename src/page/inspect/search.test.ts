import { afterAll, describe, expect, test } from "bun:test";
import { closePages, doc as page } from "../../../test/support/happy-dom.ts";
import type { InspectError } from "./read.ts";
import { pageSearch, type SearchOptions, type SearchResult } from "./search.ts";
import type { PageWindow } from "../types.ts";
import { countWork } from "../../../test/support/work-count.ts";

afterAll(closePages);

function search(win: PageWindow, query: string, opts: Partial<SearchOptions> = {}): SearchResult {
  const r = pageSearch(win, { layout: false, query, ...opts });
  if ("error" in r) throw new Error(`unexpected ${r.error}`);
  return r;
}

describe("pageSearch", () => {
  test("finds text across inline elements and whitespace, case-insensitive by default", () => {
    const { win } = page(`<title>Shop</title><p>Add <b>to</b>
      cart now</p><button>ADD TO CART</button><script>add to cart</script>`);
    const r = search(win, "add to  cart");
    expect(r.title).toBe("Shop");
    expect(r.totalMatches).toBe(2);
    expect(r.matches.map((m) => m.text)).toEqual(["Add to cart", "ADD TO CART"]);
    expect(r.matches[0]).toMatchObject({
      index: 1,
      tagName: "p",
      visible: true,
      context: "Add to cart now ADD TO CART",
    });
    expect(r.matches[1]?.tagName).toBe("button");
    expect(r.truncated).toBe(false);
  });

  test("block boundaries separate words; hidden text is not searched", () => {
    const { win } = page(`<div>foo</div><div>bar</div><p hidden>foobar</p><p style="display:none">foobar</p>`);
    expect(search(win, "foobar").totalMatches).toBe(0);
    expect(search(win, "foo bar").totalMatches).toBe(1);
  });

  test("case-sensitive and whole-word", () => {
    const { win } = page(`<p>Cat cat concatenate CAT cat_food</p>`);
    expect(search(win, "cat").totalMatches).toBe(5);
    expect(search(win, "cat", { caseSensitive: true }).totalMatches).toBe(3);
    expect(search(win, "cat", { wholeWord: true }).totalMatches).toBe(3);
    expect(search(win, "Cat", { wholeWord: true, caseSensitive: true }).totalMatches).toBe(1);
  });

  test("limit caps matches, totalMatches counts all, context is bounded", () => {
    const { win } = page(`<p>${"needle hay ".repeat(300)}</p>`);
    const r = search(win, "needle", { limit: 30 });
    expect(r.totalMatches).toBe(300);
    expect(r.matches.length).toBe(30);
    expect(r.truncated).toBe(true);
    // 120 characters either side of the match: the 5th starts at 44, the 30th well inside.
    expect(r.matches[4]?.context.length).toBe(44 + 6 + 120);
    expect(r.matches[29]?.context.length).toBe(120 + 6 + 120);
    const long = search(win, "needle hay ".repeat(40).trim(), { limit: 1 });
    expect(long.matches[0]?.context.length).toBeLessThanOrEqual(500);
  });

  test("selector scopes the search; miss and invalid are reported", () => {
    const { win } = page(`<div id="a">apple</div><div id="b">apple <span class="c">apple</span></div>`);
    expect(search(win, "apple", { selector: "#b" }).totalMatches).toBe(2);
    expect(search(win, "apple", { selector: ".c" }).totalMatches).toBe(1);
    expect((pageSearch(win, { layout: false, query: "apple", selector: "#zzz" }) as InspectError).error).toBe(
      "no_match",
    );
    expect((pageSearch(win, { layout: false, query: "apple", selector: "[" }) as InspectError).error).toBe(
      "invalid_selector",
    );
  });

  test("open shadow DOM and same-origin iframes are searched", async () => {
    const { w, win } = page(`<x-box></x-box><iframe srcdoc="<p>framed treasure</p>"></iframe>`);
    const host = w.document.querySelector("x-box") as unknown as { attachShadow(o: object): { innerHTML: string } };
    host.attachShadow({ mode: "open" }).innerHTML = `<em>shadow treasure</em>`;
    await w.happyDOM.waitUntilComplete();
    const r = search(win, "treasure");
    expect(r.totalMatches).toBe(2);
    expect(r.matches.map((m) => m.tagName)).toEqual(["em", "p"]);
    expect(r.matches[0]?.context).toBe("shadow treasure framed treasure");
  });

  test("KMP handles self-overlapping queries", () => {
    const { win } = page(`<p>aaab aab abab ababab</p>`);
    expect(search(win, "aab").totalMatches).toBe(2);
    expect(search(win, "abab").totalMatches).toBe(2);
  });

  test("an empty query finds nothing", () => {
    const { win } = page(`<p>x</p>`);
    expect(search(win, "   ").totalMatches).toBe(0);
  });

  test("a hostile node does not stop the search", () => {
    const { w, win } = page(`<p>one match</p><p id="bad">match</p><p>two match</p>`);
    const bad = w.document.getElementById("bad") as unknown as object;
    const proto = (w as unknown as { Element: { prototype: { getAttribute(this: object, n: string): string | null } } })
      .Element.prototype;
    const orig = proto.getAttribute;
    proto.getAttribute = function (this: object, n: string) {
      if (this === bad) throw new Error("hostile");
      return orig.call(this, n);
    };
    try {
      expect(search(win, "match").totalMatches).toBe(2);
    } finally {
      proto.getAttribute = orig;
    }
  });

  // Work is counted (DOM and character accesses), never timed: see test/support/work-count.ts.
  test("linear time on a large page: work grows with the text, not with text × query", () => {
    const work = (n: number, query: string): number => {
      const { win } = page(`<p>${"a".repeat(n)}</p>`);
      const { result, ops } = countWork(win, () => search(win, query));
      expect(result.totalMatches).toBe(0);
      return ops;
    };
    const long = `${"a".repeat(400)}b`;
    const small = work(10_000, long);
    const large = work(100_000, long);
    expect(large).toBeLessThan(11 * small);
    // A naive scan compares up to 400 characters at each position; KMP a few.
    expect(large).toBeLessThan(1.5 * work(100_000, `${"a".repeat(40)}b`));
  });

  test("linear time with many text nodes", () => {
    const work = (k: number): number => {
      const { win } = page(`<div>${"<span>alpha beta </span><i>gamma</i> ".repeat(k)}<b>needle</b></div>`);
      const { result, ops } = countWork(win, () => search(win, "needle"));
      expect(result.totalMatches).toBe(1);
      expect(result.matches[0]?.tagName).toBe("b");
      return ops;
    };
    expect(work(1_000)).toBeLessThan(11 * work(100));
  });
});
