import { afterAll, describe, expect, test } from "bun:test";
import { byName, closePages, els, names, page, snap } from "../../../test/support/happy-dom.ts";

// Roles, names, values and visibility; the walk's structure (shadow DOM, frames, folding,
// limits, hints) is tested in snapshot/walk.test.ts, the bundled text in ../bundle.test.ts.

afterAll(closePages);

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
    const pad = `\n${" ".repeat(300)}`;
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

  test("a second snapshot of the same document sees styles changed since the first", () => {
    // Computed styles are kept across snapshots (snapshot/styles.ts): only right while what
    // they answer is the element's style now, not when they were first asked for.
    const { w, win } = page(`
      <style>.gone { display: none } .clear { opacity: 0 }</style>
      <button id="a">Alpha</button><button id="b">Beta</button><div id="c" class="gone"><button>Gamma</button></div>
      <div id="p">Pick</div>
    `);
    expect(names(snap(win))).toEqual(["Alpha", "Beta"]);
    const el = (id: string) =>
      w.document.getElementById(id) as unknown as { style: { display: string; cursor: string }; className: string };
    el("a").style.display = "none";
    el("b").className = "clear";
    el("c").className = "";
    el("p").style.cursor = "pointer";
    expect(names(snap(win))).toEqual(["Gamma", "Pick"]);
    el("a").style.display = "";
    el("p").style.cursor = "";
    expect(names(snap(win))).toEqual(["Alpha", "Gamma"]);
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
    const d = w.document.getElementById("d") as unknown as {
      showModal?: () => void;
      setAttribute(n: string, v: string): void;
    };
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
