import { afterAll, describe, expect, test } from "bun:test";
import { closePages, page } from "../../../test/support/happy-dom.ts";
import { bundled } from "../../../test/support/page-bundle.ts";

type Script = (win: unknown, el: unknown, arg: Record<string, unknown>) => Record<string, unknown>;
const scroll = bundled<Script>("scroll");

afterAll(closePages);
const VIEWPORT = { width: 800, height: 600 };

// happy-dom has no layout, so positions stay 0; Chromium covers real scrolling end to end.
describe("page scroll", () => {
  test("selector errors come back as reasons, not exceptions", () => {
    const { w } = page(`<div id=a></div>`, VIEWPORT);
    expect(
      scroll(w, null, { mode: "relative", direction: "down", amount: 1, unit: "viewport", selector: "[[" }),
    ).toEqual({ ok: false, reason: "selector_invalid" });
    expect(
      scroll(w, null, { mode: "relative", direction: "down", amount: 1, unit: "viewport", selector: "#nope" }),
    ).toEqual({ ok: false, reason: "selector_no_match" });
  });

  test("text search: not found, found across elements, exact is case-sensitive, scripts ignored", () => {
    const { w } = page(`<p>Total <b>42</b> items</p><script>var secret = "needle"</script><p>Needle</p>`, VIEWPORT);
    expect(scroll(w, null, { mode: "text", text: "haystack" })).toMatchObject({
      ok: true,
      target: "text",
      moved: false,
      reason: "text_not_found",
    });
    expect(scroll(w, null, { mode: "text", text: "total 42" })).toMatchObject({
      ok: true,
      matchedText: "Total 42 items",
    });
    expect(scroll(w, null, { mode: "text", text: "needle", exact: true })).toMatchObject({ reason: "text_not_found" });
    expect(scroll(w, null, { mode: "text", text: "Needle", exact: true })).toMatchObject({ matchedText: "Needle" });
  });
});
