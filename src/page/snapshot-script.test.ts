import { afterAll, describe, expect, test } from "bun:test";
import { Window } from "happy-dom";
import { pageSnapshot, SNAPSHOT_SOURCE } from "./snapshot-script.ts";
import type {
  PageWindow,
  SnapshotElement,
  SnapshotFold,
  SnapshotFrame,
  SnapshotOptions,
  SnapshotResult,
} from "./types.ts";

// happy-dom windows are created here, per test, never through a global preload.
const opened: Window[] = [];
function page(html: string, url = "https://shop.example/"): { w: Window; win: PageWindow } {
  const w = new Window({ url });
  opened.push(w);
  w.document.body.innerHTML = html;
  return { w, win: w as unknown as PageWindow };
}
afterAll(async () => {
  for (const w of opened) await w.happyDOM.close();
});

const NO_LAYOUT: SnapshotOptions = { layout: false };
function snap(win: PageWindow, opts: SnapshotOptions = {}): SnapshotResult {
  return pageSnapshot(win, { ...NO_LAYOUT, ...opts });
}
function els(r: SnapshotResult): SnapshotElement[] {
  return r.elements.filter((e): e is SnapshotElement => e.kind === "element");
}
function byName(r: SnapshotResult, name: string): SnapshotElement {
  const e = els(r).find((x) => x.name === name);
  if (!e) throw new Error(`no element named ${name}: ${els(r).map((x) => x.name).join(" | ")}`);
  return e;
}
function names(r: SnapshotResult): string[] {
  return els(r).map((e) => e.name);
}

describe("roles and accessible names", () => {
  test("native controls get HTML-AAM roles and accname names", () => {
    const { win } = page(`
      <a href="/home">Home</a>
      <a href="/about"><img src="a.png" alt="About us"></a>
      <a>not a link</a>
      <button>Save</button>
      <button><svg aria-label="Close"></svg></button>
      <label for="u">User name</label><input id="u" value="bob">
      <label>Email <input type="email" name="e"></label>
      <input type="search" placeholder="Search products">
      <input type="text" title="Titled">
      <input type="checkbox" aria-label="Agree" checked>
      <input type="radio" aria-label="Red">
      <input type="range" aria-label="Volume" value="3">
      <input type="number" aria-label="Qty" value="2">
      <input list="dl" aria-label="City"><datalist id="dl"><option>Paris</option></datalist>
      <select aria-label="Size"><option>S</option><option selected>M</option></select>
      <select multiple aria-label="Tags"><option selected>a</option><option selected>b</option></select>
      <textarea aria-label="Notes">hello</textarea>
      <input type="submit">
      <input type="reset">
      <input type="button" value="Go">
      <input type="image" alt="Send">
      <input type="hidden" value="secret">
      <span id="lb1">Billing</span><span id="lb2">address</span>
      <input aria-labelledby="lb1 lb2" aria-label="ignored">
    `);
    const r = snap(win);
    const rn = els(r).map((e) => `${e.role}:${e.name}`);
    expect(rn).toEqual([
      "link:Home",
      "link:About us",
      "button:Save",
      "button:Close",
      "textbox:User name",
      "textbox:Email",
      "searchbox:Search products",
      "textbox:Titled",
      "checkbox:Agree",
      "radio:Red",
      "slider:Volume",
      "spinbutton:Qty",
      "combobox:City",
      "combobox:Size",
      "listbox:Tags",
      "textbox:Notes",
      "button:Submit",
      "button:Reset",
      "button:Go",
      "button:Send",
      "textbox:Billing address",
    ]);
    expect(byName(r, "User name").value).toBe("bob");
    expect(byName(r, "Agree").checked).toBe(true);
    expect(byName(r, "Red").checked).toBe(false);
    expect(byName(r, "Size").value).toBe("M");
    expect(byName(r, "Tags").value).toBe("a, b");
    expect(byName(r, "Notes").value).toBe("hello");
    expect(byName(r, "Volume").value).toBe("3");
  });

  test("ARIA widgets use their explicit role and states", () => {
    const { win } = page(`
      <div role="switch" aria-checked="true" tabindex="0">Wi-Fi</div>
      <div role="tablist"><div role="tab" aria-selected="true">One</div><div role="tab" aria-selected="false">Two</div></div>
      <div role="menu"><div role="menuitem">Copy</div><div role="menuitemcheckbox" aria-checked="mixed">Wrap</div></div>
      <div role="button" aria-pressed="true" tabindex="0">Bold</div>
      <div role="button" aria-expanded="false">Menu</div>
      <div role="tree"><div role="treeitem" aria-expanded="true">Root</div></div>
      <div role="combobox" aria-label="Country" aria-expanded="false">France</div>
      <div role="textbox" contenteditable="true" aria-label="Message">Hi there</div>
      <div contenteditable="true" aria-label="Plain editor">typed</div>
      <div role="slider" aria-label="Zoom" aria-valuenow="40" aria-valuetext="40%"></div>
      <h2 tabindex="0">Focusable heading</h2>
      <details open><summary>Open details</summary>x</details>
    `);
    const r = snap(win);
    const rn = els(r).map((e) => `${e.role}:${e.name}`);
    expect(rn).toEqual([
      "switch:Wi-Fi",
      "tab:One",
      "tab:Two",
      "menuitem:Copy",
      "menuitemcheckbox:Wrap",
      "button:Bold",
      "button:Menu",
      "treeitem:Root",
      "combobox:Country",
      "textbox:Message",
      "textbox:Plain editor",
      "slider:Zoom",
      "heading:Focusable heading",
      "button:Open details",
    ]);
    expect(byName(r, "Wi-Fi").checked).toBe(true);
    expect(byName(r, "One").selected).toBe(true);
    expect(byName(r, "Two").selected).toBe(false);
    expect(byName(r, "Wrap").checked).toBe("mixed");
    expect(byName(r, "Bold").pressed).toBe(true);
    expect(byName(r, "Menu").expanded).toBe(false);
    expect(byName(r, "Root").expanded).toBe(true);
    expect(byName(r, "Country").value).toBe("France");
    expect(byName(r, "Message").value).toBe("Hi there");
    expect(byName(r, "Plain editor").value).toBe("typed");
    expect(byName(r, "Zoom").value).toBe("40%");
    expect(byName(r, "Open details").expanded).toBe(true);
  });

  test("DOM-only clickables: onclick and cursor:pointer, without duplicating pointer children", () => {
    const { win } = page(`
      <div onclick="go()">Open card</div>
      <div style="cursor:pointer"><span>Pointer <b>card</b></span> <span style="cursor:pointer">child</span></div>
      <a href="/x" style="cursor:pointer"><span style="cursor:pointer">Link text</span></a>
      <div>plain text</div>
    `);
    const r = snap(win);
    expect(els(r).map((e) => `${e.role}:${e.name}:${e.source ?? ""}`)).toEqual([
      "generic:Open card:dom",
      "generic:Pointer card child:dom",
      "link:Link text:",
    ]);
  });

  test("names are whitespace-collapsed and capped", () => {
    const long = "word ".repeat(100);
    const { win } = page(`<button>  Add\n\n   to   cart  </button><button>${long}</button>`);
    const r = snap(win);
    expect(names(r)[0]).toBe("Add to cart");
    const capped = names(r)[1] as string;
    expect(capped.length).toBeLessThanOrEqual(120);
    expect(capped.endsWith("…")).toBe(true);
  });

  test("indentation whitespace does not eat the name budget", () => {
    const pad = "\n" + " ".repeat(300);
    const { win } = page(`<button>${pad}<span>${pad}Add${pad}</span>${pad}<span>to cart</span>${pad}</button>`);
    expect(names(snap(win))).toEqual(["Add to cart"]);
  });

  test("values are bounded", () => {
    const { win } = page(`<input aria-label="Big" value="${"x".repeat(1000)}">`);
    const v = byName(snap(win), "Big").value as string;
    expect(v.length).toBeLessThanOrEqual(200);
  });
});

describe("sensitive values", () => {
  test("a password value is never echoed, only its length", () => {
    const { w, win } = page(`<label>Password <input type="password" id="p"></label>
      <input aria-label="Card" autocomplete="cc-number" value="4111111111111111">`);
    const p = w.document.getElementById("p") as unknown as { value: string };
    p.value = "hunter2-secret";
    const r = snap(win);
    const pw = byName(r, "Password");
    expect(pw.value).toBeUndefined();
    expect(pw.sensitive).toBe(true);
    expect(pw.valueLength).toBe(14);
    const card = byName(r, "Card");
    expect(card.value).toBeUndefined();
    expect(card.valueLength).toBe(16);
    const all = JSON.stringify(r);
    expect(all).not.toContain("hunter2");
    expect(all).not.toContain("4111111111111111");
  });
});

describe("visibility, inertness and disabled traps", () => {
  test("hidden, inert and aria-hidden subtrees are skipped; disabled controls are kept and marked", () => {
    const { win } = page(`
      <style>.gone { display: none } .ghost { visibility: hidden } .clear { opacity: 0 }</style>
      <button>Visible</button>
      <div class="gone"><button>In display none</button></div>
      <div class="ghost"><button>In visibility hidden</button><button style="visibility:visible">Revisible</button></div>
      <div class="clear"><button>In opacity 0</button></div>
      <div aria-hidden="true"><button>In aria-hidden</button></div>
      <div inert><button>In inert</button></div>
      <button hidden>Hidden attribute</button>
      <template><button>In template</button></template>
      <details><summary>Closed</summary><button>In closed details</button></details>
      <button disabled>Disabled native</button>
      <div role="button" aria-disabled="true">Disabled aria</div>
      <div aria-disabled="true"><div role="link">Inherited aria-disabled</div></div>
      <fieldset disabled><input aria-label="In disabled fieldset"><a href="/x">Link in fieldset</a></fieldset>
    `);
    const r = snap(win);
    expect(names(r)).toEqual([
      "Visible",
      "Revisible",
      "Closed",
      "Disabled native",
      "Disabled aria",
      "Inherited aria-disabled",
      "In disabled fieldset",
      "Link in fieldset",
    ]);
    expect(byName(r, "Visible").disabled).toBeUndefined();
    expect(byName(r, "Disabled native").disabled).toBe(true);
    expect(byName(r, "Disabled aria").disabled).toBe(true);
    expect(byName(r, "Inherited aria-disabled").disabled).toBe(true);
    expect(byName(r, "In disabled fieldset").disabled).toBe(true);
    expect(byName(r, "Link in fieldset").disabled).toBeUndefined();
  });

  test("a label stands in for its visually hidden checkbox", () => {
    const { win } = page(`
      <label class="switch"><input type="checkbox" style="display:none" checked><span>Subscribe</span></label>
      <input type="radio" id="r1" style="opacity:0"><label for="r1">Express shipping</label>
      <label><input type="checkbox"> Visible box</label>
    `);
    const r = snap(win);
    expect(els(r).map((e) => `${e.role}:${e.name}:${e.via ?? ""}`)).toEqual([
      "checkbox:Subscribe:label",
      "radio:Express shipping:label",
      "checkbox:Visible box:",
    ]);
    expect(byName(r, "Subscribe").checked).toBe(true);
    expect(byName(r, "Express shipping").checked).toBe(false);
  });

  test("an open modal <dialog> makes the rest of the page inert", () => {
    const { w, win } = page(`<button>Behind</button><dialog id="d"><button>Confirm</button></dialog>`);
    const d = w.document.getElementById("d") as unknown as { showModal?: () => void; setAttribute(n: string, v: string): void };
    if (typeof d.showModal === "function") d.showModal();
    else d.setAttribute("open", "");
    const r = snap(win);
    const modal = r.hints.find((h) => h.type === "modal_overlay");
    expect(modal).toBeDefined();
    expect(modal?.refs).toEqual([byName(r, "Confirm").ref]);
    let isModal = false;
    try {
      isModal = (w.document.getElementById("d") as unknown as { matches(s: string): boolean }).matches(":modal");
    } catch {
      isModal = false;
    }
    // happy-dom may not implement :modal; when it does, the background is inert.
    if (isModal) expect(names(r)).toEqual(["Confirm"]);
    else expect(names(r)).toContain("Behind");
  });
});

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
    const { w, win } = page(`<button>Top</button><iframe srcdoc="<button>Inside frame</button>"></iframe><button>Bottom</button>`);
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
    const { win } = page(`<button>Checkout</button>` + rows(300, (i) => `<li><span>Item ${i}</span><button>Add to cart</button></li>`));
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
    expect(ac?.refs).toEqual([byName(r, "Search").ref, listbox?.ref ?? -1, byName(r, "Apple").ref, byName(r, "Apricot").ref]);
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
    const { w, win } = page(`<button>Good one</button><div id="evil"><button>Child of evil</button></div><button id="bad">Bad</button><button>Good two</button>`);
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

  test("SNAPSHOT_SOURCE is self-contained: it runs from its text alone", () => {
    const { win } = page(`<a href="/">Home</a><button>Go</button>`);
    expect(SNAPSHOT_SOURCE).not.toMatch(/\brequire\(|\bimport\b|__/);
    const fn = new Function(`"use strict"; return ${SNAPSHOT_SOURCE};`)() as typeof pageSnapshot;
    const r = fn(win, { layout: false });
    expect(names(r)).toEqual(["Home", "Go"]);
    // Same registry as the module function: refs agree.
    expect(snap(win).candidateRefs).toEqual(r.candidateRefs);
  });

  test("cost grows linearly with page size", () => {
    const build = (n: number): PageWindow => {
      let html = "";
      for (let i = 0; i < n / 5; i++) {
        html += `<section><div class="row"><span>Item ${i}</span><a href="/i/${i}">Open</a></div><p>text</p></section>`;
      }
      return page(html).win;
    };
    const time = (win: PageWindow): number => {
      const t = performance.now();
      const r = snap(win);
      expect(r.truncated).toBe(false);
      return performance.now() - t;
    };
    // Fresh windows for each measurement: happy-dom caches computed styles per window.
    time(build(1000)); // warm up the JIT
    const tSmall = Math.max(time(build(1000)), 1);
    const tLarge = time(build(10000));
    expect(tLarge).toBeLessThan(25 * tSmall);
  });
});

