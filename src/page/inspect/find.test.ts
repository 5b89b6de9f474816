import { afterAll, describe, expect, test } from "bun:test";
import { closePages, doc as page } from "../../../test/support/happy-dom.ts";
import { pageFind, type FindOptions, type FindResult, type LocateResult } from "./find.ts";
import type { InspectError } from "./read.ts";
import type { PageWindow } from "../types.ts";

afterAll(closePages);

function find(win: PageWindow, selector: string, opts: Partial<FindOptions> = {}): FindResult {
  const r = pageFind(win, { layout: false, selector, ...opts });
  if ("error" in r) throw new Error(`unexpected ${r.error}`);
  return r as FindResult;
}

describe("pageFind", () => {
  test("describes matches: tag, role, name, text, state, default attributes", () => {
    const { win } = page(`
      <label for="q">Search</label><input id="q" name="q" type="search" placeholder="Find…" data-testid="search-box">
      <button class="primary" disabled>Go <b>now</b></button>
      <a href="/help" title="Help page">Help</a>
      <div role="tab" aria-disabled="true" aria-label="Settings tab">S</div>
      <span id="lbl">Labelled by me</span><div role="button" aria-labelledby="lbl">x</div>`);
    const r = find(win, "input, button, a, [role]");
    expect(r.total).toBe(5);
    expect(r.truncated).toBe(false);
    const [input, button, link, tab, labelled] = r.elements;
    expect(input).toMatchObject({
      index: 1,
      tagName: "input",
      role: "searchbox",
      name: "Search",
      text: "",
      visible: true,
      enabled: true,
      attributes: [
        { name: "id", value: "q" },
        { name: "name", value: "q" },
        { name: "type", value: "search" },
        { name: "placeholder", value: "Find…" },
        { name: "data-testid", value: "search-box" },
      ],
    });
    expect(button).toMatchObject({
      tagName: "button",
      role: "button",
      name: "Go now",
      text: "Go now",
      enabled: false,
      attributes: [{ name: "class", value: "primary" }],
    });
    expect(link).toMatchObject({ role: "link", name: "Help", attributes: [{ name: "href", value: "/help" }] });
    expect(tab).toMatchObject({ role: "tab", name: "Settings tab", enabled: false });
    expect(labelled).toMatchObject({ role: "button", name: "Labelled by me" });
  });

  test("a file or color input is a button, as in snapshot", () => {
    const { win } = page(`<input type="file"><input type="color"><input type="email">`);
    expect(find(win, "input").elements.map((e) => e.role)).toEqual(["button", "button", "textbox"]);
  });

  test("chosen attributes, long values cut to 2048", () => {
    const { win } = page(`<div data-x="${"v".repeat(3000)}" aria-label="A" id="d">t</div>`);
    const e = find(win, "#d", { attributes: ["data-x", "aria-label", "missing"] }).elements[0];
    expect(e?.attributes.map((a) => a.name)).toEqual(["data-x", "aria-label"]);
    expect(e?.attributes[0]?.value.length).toBe(2048);
  });

  test("limit caps elements, total counts all; text bounded to 500", () => {
    const { win } = page(`${`<p class="x">${"word ".repeat(200)}</p>`.repeat(30)}`);
    const r = find(win, "p.x", { limit: 3 });
    expect(r.total).toBe(30);
    expect(r.elements.length).toBe(3);
    expect(r.truncated).toBe(true);
    expect(r.elements[0]?.text.length).toBe(500);
  });

  test("hidden elements are reported as not visible", () => {
    const { win } = page(
      `<div hidden><button id="a">A</button></div><button id="b" style="visibility:hidden">B</button><button id="c">C</button>`,
    );
    expect(find(win, "button").elements.map((e) => e.visible)).toEqual([false, false, true]);
  });

  test("pierces open shadow roots unless shadow is false; same-origin frames too", async () => {
    const { w, win } = page(
      `<x-host><button>light</button></x-host><iframe srcdoc="<button>framed</button>"></iframe>`,
    );
    const host = w.document.querySelector("x-host") as unknown as { attachShadow(o: object): { innerHTML: string } };
    host.attachShadow({ mode: "open" }).innerHTML = `<button>shadow</button><slot></slot>`;
    await w.happyDOM.waitUntilComplete();
    expect(find(win, "button").elements.map((e) => e.text)).toEqual(["shadow", "light", "framed"]);
    expect(find(win, "button", { shadow: false }).elements.map((e) => e.text)).toEqual(["light", "framed"]);
  });

  test("invalid selector is reported; no match is an empty list", () => {
    const { win } = page(`<p>x</p>`);
    expect((pageFind(win, { layout: false, selector: "p[" }) as InspectError).error).toBe("invalid_selector");
    expect(find(win, "article")).toMatchObject({ elements: [], total: 0, truncated: false });
  });

  test("locate: first match in composed order, scrolled into view; miss is no_match", () => {
    const { w, win } = page(`<p id="t">x</p><p>y</p>`);
    let scrolled: unknown;
    const t = w.document.getElementById("t") as unknown as { scrollIntoView(o: unknown): void };
    const proto = Object.getPrototypeOf(Object.getPrototypeOf(Object.getPrototypeOf(t))) as {
      scrollIntoView(o: unknown): void;
    };
    const orig = proto.scrollIntoView;
    proto.scrollIntoView = (o: unknown) => {
      scrolled = o;
    };
    try {
      const r = pageFind(win, { layout: false, selector: "p", mode: "locate" }) as LocateResult;
      expect(r).toEqual({ x: 0, y: 0, top: 0, left: 0, width: 0, height: 0 });
      expect(scrolled).toEqual({ block: "center", inline: "center" });
    } finally {
      proto.scrollIntoView = orig;
    }
    expect((pageFind(win, { layout: false, selector: "#none", mode: "locate" }) as InspectError).error).toBe(
      "no_match",
    );
  });

  test("a hostile element is still listed, with what could be read", () => {
    const { w, win } = page(`<button id="a">A</button><button id="bad">B</button><button id="c">C</button>`);
    const bad = w.document.getElementById("bad") as unknown as object;
    const proto = (w as unknown as { Element: { prototype: { getAttribute(this: object, n: string): string | null } } })
      .Element.prototype;
    const orig = proto.getAttribute;
    proto.getAttribute = function (this: object, n: string) {
      if (this === bad) throw new Error("hostile");
      return orig.call(this, n);
    };
    try {
      const r = find(win, "button");
      expect(r.total).toBe(3);
      expect(r.elements.map((e) => e.tagName)).toEqual(["button", "button", "button"]);
      expect(r.elements[2]?.name).toBe("C");
    } finally {
      proto.getAttribute = orig;
    }
  });
});
