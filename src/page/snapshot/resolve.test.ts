import { afterAll, describe, expect, test } from "bun:test";
import { closePages, page } from "../../../test/support/happy-dom.ts";
import { pageResolveRef } from "./resolve.ts";
import { snapshotMain as pageSnapshot } from "./main.ts";
import { bundled } from "../../../test/support/page-bundle.ts";
import type { PageElement, PageWindow, SnapshotElement, SnapshotResult } from "../types.ts";

afterAll(closePages);

function snap(win: PageWindow): SnapshotResult {
  return pageSnapshot(win, { layout: false, fold: false, limit: 1000 });
}
function refsByName(r: SnapshotResult): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of r.elements) if (e.kind === "element") out[(e as SnapshotElement).name] = e.ref;
  return out;
}

describe("ref registry", () => {
  test("a fresh document numbers candidates in document order from 1", () => {
    const { win } = page(`<button>A</button><a href="/b">B</a><input aria-label="C">`);
    expect(refsByName(snap(win))).toEqual({ A: 1, B: 2, C: 3 });
  });

  test("refs are stable across observations; a new node gets the next unused number", () => {
    const { w, win } = page(`<button>A</button><button id="b">B</button><button>C</button>`);
    expect(refsByName(snap(win))).toEqual({ A: 1, B: 2, C: 3 });
    const d = w.document.createElement("button");
    d.textContent = "D";
    w.document.body.insertBefore(d, w.document.getElementById("b"));
    const second = snap(win);
    expect(refsByName(second)).toEqual({ A: 1, D: 4, B: 2, C: 3 });
    // Document order is kept in the listing even though numbers are not monotonic.
    expect(second.elements.map((e) => (e.kind === "fold" ? e.firstRef : e.ref))).toEqual([1, 4, 2, 3]);
  });

  test("numbers are never reused after removal, and a removed node does not resolve", () => {
    const { w, win } = page(`<button>A</button><button id="b">B</button><button>C</button>`);
    snap(win);
    const b = w.document.getElementById("b");
    b?.remove();
    const e = w.document.createElement("button");
    e.textContent = "E";
    w.document.body.appendChild(e);
    expect(refsByName(snap(win))).toEqual({ A: 1, C: 3, E: 4 });
    expect(pageResolveRef(win, 2)).toEqual({ element: null, reason: "node_detached" });
    expect(pageResolveRef(win, 4).element).toBe(e as unknown as PageElement);
  });

  test("hidden elements keep their number while hidden and resolve while connected", () => {
    const { w, win } = page(`<button>A</button><button id="b">B</button>`);
    snap(win);
    w.document.getElementById("b")?.setAttribute("style", "display:none");
    expect(refsByName(snap(win))).toEqual({ A: 1 });
    expect(pageResolveRef(win, 2).reason).toBeNull();
    w.document.getElementById("b")?.removeAttribute("style");
    expect(refsByName(snap(win))).toEqual({ A: 1, B: 2 });
  });

  test("unknown refs: never issued, out of range, or no registry yet", () => {
    const { win } = page(`<button>A</button>`);
    expect(pageResolveRef(win, 1)).toEqual({ element: null, reason: "unknown_ref" });
    snap(win);
    expect(pageResolveRef(win, 1).reason).toBeNull();
    expect(pageResolveRef(win, 2)).toEqual({ element: null, reason: "unknown_ref" });
    expect(pageResolveRef(win, 0)).toEqual({ element: null, reason: "unknown_ref" });
    expect(pageResolveRef(win, -3)).toEqual({ element: null, reason: "unknown_ref" });
    expect(pageResolveRef(win, Number.NaN)).toEqual({ element: null, reason: "unknown_ref" });
  });

  test("each window has its own registry, invisible to enumeration", () => {
    const a = page(`<button>A</button>`);
    const b = page(`<button>B1</button><button>B2</button>`);
    snap(a.win);
    expect(refsByName(snap(b.win))).toEqual({ B1: 1, B2: 2 });
    expect(Object.keys(a.w)).not.toContain("browser-pilot.ref-registry.v1");
    const sym = Object.getOwnPropertySymbols(a.w).find((s) => String(s).includes("browser-pilot"));
    expect(sym).toBeDefined();
    if (sym) expect(Object.getOwnPropertyDescriptor(a.w, sym)?.enumerable).toBe(false);
  });

  test("elements of an inlined frame stop resolving when the iframe goes away", async () => {
    const { w, win } = page(`<button>Top</button><iframe srcdoc="<button>Inner</button>"></iframe>`);
    await new Promise((r) => setTimeout(r, 10));
    const iframe = w.document.querySelector("iframe");
    const inner = snap(win).elements.find((e): e is SnapshotElement => e.kind === "element" && e.name === "Inner");
    if (!inner || !iframe) return; // this happy-dom build did not load srcdoc
    expect(pageResolveRef(win, inner.ref).reason).toBeNull();
    iframe.remove();
    expect(pageResolveRef(win, inner.ref)).toEqual({ element: null, reason: "node_detached" });
  });

  test("every folded element is registered and resolvable", () => {
    let html = "<ul>";
    for (let i = 0; i < 300; i++) html += `<li><button>Add to cart</button></li>`;
    const { win } = page(`${html}</ul>`);
    const r = pageSnapshot(win, { layout: false });
    const fold = r.elements.find((e) => e.kind === "fold");
    expect(fold?.kind).toBe("fold");
    if (fold?.kind !== "fold") return;
    for (const ref of fold.refs) expect(pageResolveRef(win, ref).element).not.toBeNull();
  });
});

describe("the bundled resolver", () => {
  test("shares the bundled snapshot's registry", () => {
    const { w, win } = page(`<button>A</button><button id="b">B</button>`);
    bundled<typeof pageSnapshot>("snapshot")(win, { layout: false });
    const resolve = bundled<typeof pageResolveRef>("resolve");
    expect(resolve(win, 2).element).toBe(w.document.getElementById("b") as unknown as PageElement);
    expect(bundled<(w: PageWindow, ref: number) => PageElement | null>("refElement")(win, 2)).toBe(
      w.document.getElementById("b") as unknown as PageElement,
    );
    w.document.getElementById("b")?.remove();
    expect(resolve(win, 2).reason).toBe("node_detached");
    expect(resolve(win, Number.NaN).reason).toBe("unknown_ref");
  });
});
