import { afterAll, describe, expect, test } from "bun:test";
import { listenedFresh, markListened, remarkListened } from "./listener-mark.ts";
import { closePages, page } from "../../../test/support/happy-dom.ts";
import type { PageElement } from "../types.ts";

afterAll(closePages);

const byId = (w: { document: { getElementById(id: string): unknown } }, id: string) =>
  w.document.getElementById(id) as unknown as PageElement;

describe("listener marks say whether they still hold", () => {
  test("until an element is added to the document or a shadow root; text and attribute changes do not count", async () => {
    const { w, win } = page(`<div id=chip>Chip</div><p id=out>0</p><div id=host></div>`);
    const host = w.document.getElementById("host");
    const shadow = host?.attachShadow({ mode: "open" });
    expect(listenedFresh(win)).toBe(false);
    expect(markListened(win, [byId(w, "chip")])).toBe(1);
    expect(listenedFresh(win)).toBe(true);
    const out = w.document.getElementById("out");
    if (out) out.textContent = "1";
    out?.setAttribute("class", "changed");
    await Promise.resolve();
    expect(listenedFresh(win)).toBe(true);
    shadow?.append(w.document.createElement("span"));
    expect(listenedFresh(win)).toBe(false);
    // Marked again: fresh until the next element, wherever it lands.
    markListened(win, []);
    expect(listenedFresh(win)).toBe(true);
    w.document.body.append(w.document.createElement("div"));
    await new Promise((r) => setTimeout(r, 0));
    expect(listenedFresh(win)).toBe(false);
  });

  test("made again from the elements handed over last time: a listened list's new item is marked too", async () => {
    const { w, win } = page(`<ul id=menu><li id=a>A</li></ul><div id=chip>Chip</div>`);
    const marked = (id: string) =>
      (Reflect.get(win, Symbol.for("browser-pilot.listened.v1")) as { set: WeakSet<object> }).set.has(byId(w, id));
    expect(remarkListened(win)).toBe(false);
    expect(markListened(win, [byId(w, "menu"), byId(w, "chip")])).toBe(2);
    const li = w.document.createElement("li");
    li.id = "b";
    w.document.getElementById("menu")?.append(li);
    await new Promise((r) => setTimeout(r, 0));
    expect(listenedFresh(win)).toBe(false);
    expect(marked("b")).toBe(false);
    expect(remarkListened(win)).toBe(true);
    expect(listenedFresh(win)).toBe(true);
    expect([marked("a"), marked("b"), marked("chip")]).toEqual([true, true, true]);
    // A chip that now holds a control is a wrapper, not a control of its own.
    w.document.getElementById("chip")?.append(w.document.createElement("button"));
    expect(remarkListened(win)).toBe(true);
    expect(marked("chip")).toBe(false);
  });

  test("marks of another document never hold", () => {
    const { w, win } = page(`<div id=chip>Chip</div>`);
    markListened(win, [byId(w, "chip")]);
    const other = page(`<p>other</p>`);
    Object.defineProperty(other.win, Symbol.for("browser-pilot.listened.v1"), {
      value: Reflect.get(win, Symbol.for("browser-pilot.listened.v1")),
    });
    expect(listenedFresh(other.win)).toBe(false);
  });

  test("marks an older build left in the document (no elements to mark again from) are not made again", () => {
    const { w, win } = page(`<div id=chip>Chip</div>`);
    Object.defineProperty(win, Symbol.for("browser-pilot.listened.v1"), {
      value: { doc: w.document, set: new WeakSet() },
      configurable: true,
      writable: true,
    });
    expect(listenedFresh(win)).toBe(false);
    expect(remarkListened(win)).toBe(false);
    expect(markListened(win, [byId(w, "chip")])).toBe(1);
    expect(listenedFresh(win)).toBe(true);
  });
});
