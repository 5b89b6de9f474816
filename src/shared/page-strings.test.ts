import { describe, expect, test } from "bun:test";
import { boundTitle, boundUrl, cutString, MAX_TITLE, MAX_URL } from "./page-strings.ts";
import { BpError } from "./errors.ts";

/** Whether a string holds half a surrogate pair (what a cut through an emoji leaves). */
const lone = (s: string) => /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);

describe("cutting page strings", () => {
  test("a cut never leaves half an emoji; a cut between characters keeps the limit", () => {
    expect(cutString("ab😀cd", 3)).toBe("ab");
    expect(cutString("ab😀cd", 4)).toBe("ab😀");
    expect(cutString("abcdef", 3)).toBe("abc");
    expect(cutString("ab", 3)).toBe("ab");
  });

  test("titles, URLs and error messages cut at an emoji stay whole text", () => {
    const title = `${"t".repeat(MAX_TITLE - 1)}😀 tail`;
    expect(lone(boundTitle(title))).toBe(false);
    expect(boundTitle(title)).toBe(`${"t".repeat(MAX_TITLE - 1)}…`);
    expect(lone(boundUrl(`https://x.test/${"u".repeat(MAX_URL - 16)}😀`))).toBe(false);
    expect(lone(String(new BpError("invalid_argument", `${"m".repeat(599)}😀 more`).toJSON().error))).toBe(false);
  });
});
