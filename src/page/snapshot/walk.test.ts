import { afterAll, describe, expect, test } from "bun:test";
import type { PageWindow, SnapshotElement, SnapshotFold, SnapshotFrame } from "../types.ts";
import { countWork } from "../../../test/support/work-count.ts";
import { byName, closePages, els, names, page, snap } from "../../../test/support/happy-dom.ts";

afterAll(closePages);

describe("shadow DOM and frames", () => {
  test("open shadow roots are walked in composed order, with slotted light DOM", () => {
    const { w, win } = page(`<button>Before</button><x-card><button>Slotted</button></x-card><button>After</button>`);
    const host = w.document.querySelector("x-card");
    if (!host) throw new Error("no host");
    const root = host.attachShadow({ mode: "open" });
    root.innerHTML = `<label for="q">Query</label><input id="q"><slot></slot><button aria-labelledby="t">x</button><span id="t">Shadow labelled</span>`;
    const r = snap(win);
    expect(names(r)).toEqual(["Before", "Query", "Slotted", "Shadow labelled", "After"]);
  });

  test("same-origin iframes are inlined with a frame path", async () => {
    const { w, win } = page(
      `<button>Top</button><iframe srcdoc="<button>Inside frame</button>"></iframe><button>Bottom</button>`,
    );
    await new Promise((r) => setTimeout(r, 10));
    const iframe = w.document.querySelector("iframe") as unknown as { contentDocument: unknown };
    const r = snap(win);
    if (!iframe.contentDocument) {
      // This happy-dom build did not load srcdoc; the stubbed cross-origin test covers placeholders.
      expect(names(r)).toEqual(["Top", "Bottom"]);
      return;
    }
    expect(names(r)).toEqual(["Top", "Inside frame", "Bottom"]);
    expect(byName(r, "Inside frame").frame).toBe("1");
    expect(byName(r, "Top").frame).toBeUndefined();
    expect(r.stats.frames).toBe(1);
  });

  test("cross-origin iframes become placeholders with geometry and a ref", () => {
    const { w, win } = page(`<button>Top</button><iframe title="Payment" src="https://pay.example/card"></iframe>`);
    const iframe = w.document.querySelector("iframe");
    if (!iframe) throw new Error("no iframe");
    // Stub what Chromium shows an isolated world for a cross-origin frame.
    Object.defineProperty(iframe, "contentDocument", { get: () => null });
    Object.defineProperty(iframe, "contentWindow", { get: () => ({}) });
    const r = snap(win);
    const frame = r.elements.find((e): e is SnapshotFrame => e.kind === "frame");
    expect(frame).toBeDefined();
    expect(frame?.reason).toBe("cross_origin");
    expect(frame?.name).toBe("Payment");
    expect(frame?.src).toBe("https://pay.example/card");
    expect(frame?.frame).toBe("1");
    expect(typeof frame?.ref).toBe("number");
    expect(frame?.offset).toEqual({ x: 0, y: 0 });
  });
});

describe("folding, limits and truncation", () => {
  const rows = (n: number, row: (i: number) => string): string => {
    let s = "<ul>";
    for (let i = 0; i < n; i++) s += row(i);
    return s + "</ul>";
  };

  test("300 same-shaped rows fold into one addressable entry", () => {
    const { win } = page(
      `<button>Checkout</button>` + rows(300, (i) => `<li><span>Item ${i}</span><button>Add to cart</button></li>`),
    );
    const r = snap(win);
    expect(r.totalCandidates).toBe(301);
    expect(r.truncated).toBe(false);
    const fold = r.elements.find((e): e is SnapshotFold => e.kind === "fold");
    expect(fold).toBeDefined();
    if (!fold) return;
    expect(fold.count).toBe(299);
    expect(fold.role).toBe("button");
    expect(fold.samples).toEqual(["Add to cart"]);
    expect(fold.refs.length).toBe(299);
    expect(fold.firstRef).toBe(fold.refs[0] as number);
    expect(fold.lastRef).toBe(fold.refs[298] as number);
    // Checkout, the first row's button (shown as the example), the fold.
    expect(r.elements.length).toBe(3);
    expect(new Set(r.candidateRefs).size).toBe(301);
  });

  test("runs with a period (link + button per row) fold too, and can be expanded", () => {
    const { win } = page(rows(40, (i) => `<li><a href="/p/${i}">Product ${i}</a><button>Add</button></li>`));
    const r = snap(win);
    const fold = r.elements.find((e): e is SnapshotFold => e.kind === "fold");
    expect(fold?.period).toBe(2);
    expect(fold?.roles).toEqual(["link", "button"]);
    expect(fold?.count).toBe(78);
    const expanded = snap(win, { expand: [fold?.firstRef ?? 0], limit: 1000 });
    expect(expanded.elements.some((e) => e.kind === "fold")).toBe(false);
    expect(expanded.elements.length).toBe(80);
    // Refs do not move between the folded and the expanded view.
    expect(expanded.candidateRefs).toEqual(r.candidateRefs);
  });

  test("a run folds only when the snapshot would not fit: 12 checkboxes are all listed by name", () => {
    const { win } = page(rows(12, (i) => `<li><label><input type=checkbox> Topping ${i}</label></li>`));
    const r = snap(win);
    expect(r.elements.every((e) => e.kind === "element")).toBe(true);
    expect(r.elements.map((e) => (e.kind === "element" ? e.name : ""))).toEqual(
      Array.from({ length: 12 }, (_, i) => `Topping ${i}`),
    );
  });

  test("--expand lists a window around the ref, even far down the page; the rest stays folded", () => {
    const { win } = page(rows(300, (i) => `<li><button>Row ${i}</button></li>`));
    const folded = snap(win);
    const fold = folded.elements.find((e): e is SnapshotFold => e.kind === "fold");
    const target = fold?.refs[248] ?? 0;
    const r = snap(win, { expand: [target] });
    const names = r.elements.map((e) => (e.kind === "element" ? e.name : "fold"));
    expect(names).toContain("Row 249");
    expect(names).toContain("Row 239");
    expect(names).toContain("Row 259");
    expect(names).not.toContain("Row 200");
    expect(r.elements.filter((e) => e.kind === "fold").length).toBe(2);
    expect(r.elements.length).toBeLessThanOrEqual(50);
    // The same numbers as in the folded view.
    expect(r.elements.find((e): e is SnapshotElement => e.kind === "element" && e.name === "Row 249")?.ref).toBe(
      target,
    );
  });

  test("--find lists the matching elements with their refs, unfolded", () => {
    const { win } = page(
      `<input aria-label="Query" value="needle in value">` + rows(300, (i) => `<li><button>Row ${i}</button></li>`),
    );
    const all = snap(win);
    const r = snap(win, { find: "ROW 25" });
    expect(r.elements.map((e) => (e.kind === "element" ? e.name : "")).sort()).toEqual(
      ["Row 25", ...Array.from({ length: 10 }, (_, i) => `Row ${250 + i}`)].sort(),
    );
    expect(r.totalCandidates).toBe(all.totalCandidates);
    expect(snap(win, { find: "needle" }).elements.map((e) => (e.kind === "element" ? e.name : ""))).toEqual(["Query"]);
  });

  test("short runs are not folded", () => {
    const { win } = page(rows(7, () => `<li><button>Same</button></li>`));
    expect(snap(win).elements.every((e) => e.kind === "element")).toBe(true);
  });

  test("limit truncates with element_limit and keeps the total", () => {
    let html = "";
    for (let i = 0; i < 100; i++) html += `<button>B${i}</button>`;
    const { win } = page(html);
    const r = snap(win, { limit: 10, fold: false });
    expect(r.elements.length).toBe(10);
    expect(r.truncated).toBe(true);
    expect(r.truncationReasons).toEqual(["element_limit"]);
    expect(r.totalCandidates).toBe(100);
    expect(snap(win, { fold: false }).elements.length).toBe(50);
    expect(snap(win, { limit: 100000, fold: false }).elements.length).toBe(100);
  });

  test("work limit stops the walk with work_limit, in canonical order", () => {
    let html = "";
    for (let i = 0; i < 200; i++) html += `<div><button>B${i}</button></div>`;
    const { win } = page(html);
    const r = snap(win, { workLimit: 50, limit: 5, fold: false });
    expect(r.truncated).toBe(true);
    expect(r.truncationReasons).toEqual(["element_limit", "work_limit"]);
    expect(r.stats.visitedNodes).toBeLessThanOrEqual(50);
  });

  test("byte budget stops emission with byte_limit", () => {
    let html = "";
    for (let i = 0; i < 50; i++) html += `<button>${"n".repeat(100)}${i}</button>`;
    const { win } = page(html);
    const r = snap(win, { maxBytes: 1024, fold: false });
    expect(r.truncationReasons).toEqual(["byte_limit"]);
    expect(r.elements.length).toBeLessThan(50);
  });
});

describe("hints", () => {
  test("modal, authentication, autocomplete and filter hints are bounded and reference refs", () => {
    const { win } = page(`
      <form id="login"><input name="user" aria-label="User"><input type="password" aria-label="Pass"><button>Sign in</button></form>
      <input role="combobox" aria-label="Search" aria-expanded="true" aria-controls="lb">
      <div role="listbox" id="lb"><div role="option">Apple</div><div role="option">Apricot</div></div>
      <aside class="search-filters">
        <label><input type="checkbox"> Red</label><label><input type="checkbox"> Blue</label>
        <label><input type="checkbox"> Green</label><select aria-label="Sort by"><option>Price</option></select>
      </aside>
      <div role="dialog" aria-modal="true"><button>Accept cookies</button></div>
    `);
    const r = snap(win);
    const types = r.hints.map((h) => h.type);
    expect(types).toEqual(["modal_overlay", "authentication_surface", "autocomplete", "filter_controls"]);
    const [modal, auth, ac, filter] = r.hints;
    expect(modal?.confidence).toBe("strong");
    expect(modal?.blocking).toBe(true);
    expect(modal?.refs).toEqual([byName(r, "Accept cookies").ref]);
    expect(auth?.confidence).toBe("strong");
    expect(auth?.refs).toContain(byName(r, "Pass").ref);
    const listbox = els(r).find((e) => e.role === "listbox");
    expect(ac?.confidence).toBe("strong");
    expect(ac?.refs).toEqual([
      byName(r, "Search").ref,
      listbox?.ref ?? -1,
      byName(r, "Apple").ref,
      byName(r, "Apricot").ref,
    ]);
    expect(filter?.refs.length).toBe(4);
    for (const h of r.hints) expect(h.refs.length).toBeLessThanOrEqual(8);
    expect(r.hints.length).toBeLessThanOrEqual(5);
  });

  test("a plain page has no hints", () => {
    const { win } = page(`<a href="/">Home</a><button>Go</button>`);
    expect(snap(win).hints).toEqual([]);
  });
});

describe("robustness", () => {
  test("a hostile element does not break the snapshot", () => {
    const { w, win } = page(
      `<button>Good one</button><div id="evil"><button>Child of evil</button></div><button id="bad">Bad</button><button>Good two</button>`,
    );
    const evil = w.document.getElementById("evil");
    const bad = w.document.getElementById("bad");
    if (!evil || !bad) throw new Error("fixture");
    Object.defineProperty(evil, "localName", {
      configurable: true,
      get() {
        throw new Error("hostile localName");
      },
    });
    Object.defineProperty(bad, "getAttribute", {
      configurable: true,
      value() {
        throw new Error("hostile getAttribute");
      },
    });
    const r = snap(win);
    // Let happy-dom tear the window down normally afterwards.
    Reflect.deleteProperty(evil, "localName");
    Reflect.deleteProperty(bad, "getAttribute");
    expect(names(r)).toEqual(["Good one", "Child of evil", "Good two"]);
    expect(r.stats.errors).toBe(2);
  });

  test("focus is reported", () => {
    const { w, win } = page(`<input aria-label="A"><input aria-label="B" id="b">`);
    (w.document.getElementById("b") as unknown as { focus(): void }).focus();
    const r = snap(win);
    expect(byName(r, "B").focused).toBe(true);
    expect(byName(r, "A").focused).toBeUndefined();
  });

  test("page geometry is reported", () => {
    const { win } = page(`<button>x</button>`);
    const g = snap(win).page;
    expect(g.viewportWidth).toBeGreaterThan(0);
    expect(g.viewportHeight).toBeGreaterThan(0);
    expect(g.scrollY).toBe(0);
    expect(g.pixelsAbove).toBe(0);
  });

  test("cost grows linearly with page size", () => {
    const build = (n: number): PageWindow => {
      let html = "";
      for (let i = 0; i < n / 5; i++) {
        html += `<section><div class="row"><span>Item ${i}</span><a href="/i/${i}">Open</a></div><p>text</p></section>`;
      }
      return page(html).win;
    };
    // Counted DOM accesses, not time (see test/support/work-count.ts): a quadratic walk would grow 100×.
    const work = (win: PageWindow): number => {
      const { result, ops } = countWork(win, () => snap(win));
      expect(result.truncated).toBe(false);
      return ops;
    };
    expect(work(build(2000))).toBeLessThan(11 * work(build(200)));
  });
});
