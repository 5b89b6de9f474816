/**
 * The element state's `popup`: a hovered trigger whose popup is still closed, so `bp hover` waits for a menu a
 * hover-intent timer opens (src/broker/act/hover.ts).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { closePages, page } from "../../../test/support/happy-dom.ts";
import { bundled } from "../../../test/support/page-bundle.ts";

const act = bundled<(win: unknown, el: unknown, arg: Record<string, unknown>) => Record<string, unknown>>("act");

afterAll(closePages);

const popupOf = (html: string, selector: string): unknown => {
  const { w, $ } = page(html);
  return act(w, $(selector), { op: "state" }).popup;
};

describe("a trigger's popup, closed or shown", () => {
  test("a menu item with a submenu next to it (jQuery UI): closed while the submenu is hidden, not once it shows", () => {
    const item = (shown: boolean) =>
      `<ul role=menu><li><div role=menuitem aria-haspopup=true id=books>Books</div><ul role=menu${shown ? "" : ' style="display:none"'}><li>Fiction</li></ul></li></ul>`;
    expect(popupOf(item(false), "#books")).toBe(true);
    expect(popupOf(item(true), "#books")).toBeUndefined();
  });

  test("expanded by its own account, or a popup it names is shown: not closed", () => {
    expect(
      popupOf(`<button aria-haspopup=menu aria-expanded=true id=b>Menu</button><ul role=menu><li>A</li></ul>`, "#b"),
    ).toBeUndefined();
    const named = (hidden: boolean) =>
      `<button aria-haspopup=listbox aria-controls=lb id=b>Pick</button><p>between</p><div role=listbox id=lb${hidden ? ' style="display:none"' : ""}><div role=option>A</div></div>`;
    expect(popupOf(named(true), "#b")).toBe(true);
    expect(popupOf(named(false), "#b")).toBeUndefined();
  });

  test("a link inside the list item that says it has a popup (a nav menu) is a closed trigger", () => {
    const nav = `<ul><li aria-haspopup=true><a href="#" id=a>Products</a><ul style="display:none"><li><a href="#">Phones</a></li></ul></li></ul>`;
    expect(popupOf(nav, "#a")).toBe(true);
  });

  test("no popup: aria-haspopup false or empty, none at all, or a label whose control has one", () => {
    expect(popupOf(`<button aria-haspopup=False id=b>Go</button>`, "#b")).toBeUndefined();
    expect(popupOf(`<button aria-haspopup="" id=b>Go</button>`, "#b")).toBeUndefined();
    expect(popupOf(`<button id=b>Go</button><ul role=menu style="display:none"></ul>`, "#b")).toBeUndefined();
    expect(
      popupOf(
        `<label for=c id=l>City</label><input id=c role=combobox aria-haspopup=listbox><div role=listbox hidden></div>`,
        "#l",
      ),
    ).toBeUndefined();
  });
});
