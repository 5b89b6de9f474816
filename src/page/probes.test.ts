import { afterAll, describe, expect, test } from "bun:test";
import type { Window } from "happy-dom";
import type { authField, focusedFrame, selectorRect, slotElement, waitSelector, waitText } from "./probes.ts";
import { bundled } from "../../test/support/page-bundle.ts";
import { closePages, page } from "../../test/support/happy-dom.ts";

// The bundled functions, as the browser gets them. happy-dom has no layout, so boxes are 0:
// visibility by box is covered end to end in Chromium (wait, screenshot, handoff tests).

afterAll(closePages);
type Win = Parameters<typeof waitText>[0];
const win = (w: Window) => w as unknown as Win;

describe("page probes", () => {
  test("waitText finds collapsed, case-folded text and gives its context", () => {
    const { w } = page(`<p>Order   <b>Confirmed</b> today</p>`);
    const find = bundled<typeof waitText>("waitText");
    expect(find(win(w), { needle: "order confirmed" })?.context).toContain("Confirmed");
    expect(find(win(w), { needle: "shipped" })).toBeNull();
  });

  test("waitSelector: the first match, invalid selectors reported, visibility asked for", () => {
    const { w } = page(`<div class=a>x</div>`);
    const find = bundled<typeof waitSelector>("waitSelector");
    expect(find(win(w), { css: ".a" })).toEqual({ tagName: "div", visible: false });
    expect(find(win(w), { css: ".a", visible: true })).toBeNull();
    expect(find(win(w), { css: "div[" })).toEqual({ invalid: true });
    expect(find(win(w), { css: ".none" })).toBeNull();
  });

  test("selectorRect, authField, slotElement and focusedFrame", () => {
    const { w } = page(`<input id=i><input type=password>`);
    expect(bundled<typeof selectorRect>("selectorRect")(win(w), { selector: "#i" })).toEqual({
      x: 0,
      y: 0,
      width: 0,
      height: 0,
    });
    expect(bundled<typeof selectorRect>("selectorRect")(win(w), { selector: "[" })).toEqual({ error: "syntax" });
    expect(bundled<typeof selectorRect>("selectorRect")(win(w), { selector: "#none" })).toBeNull();
    // Zero-size in happy-dom, so not visible.
    expect(bundled<typeof authField>("authField")(win(w))).toBe(false);
    const input = w.document.getElementById("i") as unknown as { focus(): void } | null;
    Reflect.set(w, Symbol.for("browser-pilot.target.v1"), { el: input });
    expect(bundled<typeof slotElement>("slotElement")(win(w), "browser-pilot.target.v1") as unknown).toBe(input);
    expect(bundled<typeof slotElement>("slotElement")(win(w), "browser-pilot.nothing")).toBeNull();
    input?.focus();
    expect(bundled<typeof focusedFrame>("focusedFrame")(win(w))).toBeNull();
  });
});
