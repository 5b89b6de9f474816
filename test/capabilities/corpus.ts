/**
 * The capability corpus: one small local page per observation case, what `bp snapshot` must
 * list on it (by role + name) and what it must not. Pages are served by the test itself on two
 * origins (`a` for every case, `b` for the cross-origin frame), so nothing depends on the network.
 *
 * Changing a case (its id, targets or traps) changes the corpus: the baseline gate fails until
 * the baseline is rewritten on purpose (see docs/capabilities.md).
 */

/** An expected control. `role` lists the roles that count (DOM-only controls have no fixed role). */
export interface Target {
  role: string | readonly string[];
  name: string;
  /** The listed value must equal this. */
  value?: string;
  /** The listed states (`s`) must include this word. */
  state?: string;
  /** Must be listed as inside a frame (`f`). */
  frame?: true;
  /**
   * Not listed by name but inside a folded run: found when the snapshot holds exactly one fold of
   * this role with at least `minCount` entries, and `bp click <last ref of the fold>` reaches this
   * control (the page records the clicked row's name in `document.body.dataset.hit`).
   */
  inFold?: { minCount: number };
}

export interface Case {
  id: string;
  title: string;
  /** Page path on origin `a`. */
  path: string;
  expect: readonly Target[];
  /** Names of controls that are present in the DOM but must not be listed (hidden, decoration, text). */
  forbid: readonly string[];
}

export interface Origins {
  a: string;
  b: string;
}

export function targetKey(t: Target): string {
  const role = typeof t.role === "string" ? t.role : t.role.join("|");
  const extra = [
    t.value !== undefined ? `value=${JSON.stringify(t.value)}` : "",
    t.state ?? "",
    t.frame ? "in frame" : "",
    t.inFold ? "in fold" : "",
  ];
  return [`${role} ${JSON.stringify(t.name)}`, ...extra.filter(Boolean)].join(" ");
}

import { MINI_JQUERY, REAL_JQUERY } from "../e2e/widget-pages.ts";

const doc = (title: string, body: string): string =>
  `<!doctype html><html><head><meta charset=utf-8><title>${title}</title></head><body>${body}</body></html>`;

const ICON = "display:inline-block;width:24px;height:24px;background:#888;margin:4px";

const ROWS = Array.from(
  { length: 300 },
  (_, i) => `<li><button onclick="document.body.dataset.hit=this.textContent">Row ${i + 1}</button></li>`,
).join("");

/** A framework-style controlled input: the framework owns the value and undoes any other edit. */
const CONTROLLED = `
<label for=email>Email</label> <input id=email autocomplete=off>
<input aria-label="Email mirror" hidden>
<script>
  const input = document.getElementById("email");
  const native = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value");
  const state = { email: "ann@example.com" };
  const render = () => native.set.call(input, state.email);
  render();
  // Like React's value tracker: page writes go through the framework, which re-renders its state.
  Object.defineProperty(input, "value", { configurable: true, get() { return native.get.call(this); }, set() { window.__intercepted = (window.__intercepted || 0) + 1; render(); } });
  // The change handler rejects every edit (a controlled input with a stale state): a rollback.
  input.addEventListener("input", () => queueMicrotask(render));
</script>`;

const SHADOW = `
<div id=host><button slot=extra>Slotted action</button></div>
<script>
  const root = document.getElementById("host").attachShadow({ mode: "open" });
  root.innerHTML = '<button>Shadow save</button><input aria-label="Shadow search"><button style="display:none">Shadow hidden</button><slot name=extra></slot><div id=inner></div>';
  root.getElementById("inner").attachShadow({ mode: "open" }).innerHTML = '<a href="#nested">Nested link</a>';
</script>`;

const HIDDEN = `
<button>Visible button</button>
<button style="display:none">Display none</button>
<button style="visibility:hidden">Visibility hidden</button>
<button aria-hidden="true">Aria hidden</button>
<div inert><button>Inert child</button> <a href="/cap/hidden_traps">Inert link</a></div>
<button style="width:0;height:0;padding:0;border:0;overflow:hidden">Zero size</button>
<button style="position:absolute;left:-9999px;top:0">Off screen</button>
<button hidden>Hidden attribute</button>
<details><summary>More</summary><button>Inside closed details</button></details>
<div style="content-visibility:hidden;height:30px"><button>Content-visibility hidden</button></div>
<div style="visibility:hidden"><button style="visibility:visible">Visible override</button></div>
<button disabled>Disabled button</button>
<button style="position:absolute;top:3000px">Below the fold</button>`;

/** Clickables bound only through addEventListener, and listened elements that must stay out. */
const LISTENER_ONLY = `
<a id=prev>Prev month</a> <a id=next>Next month</a>
<input aria-label="City" value="Ap"><ul id=ac><li>Apple Valley</li><li>Apricot Hill</li></ul>
<div id=chip style="display:inline-block">Chip red</div>
<div hidden><div id=hchip>Hidden chip</div></div>
<div inert><a id=iprev>Inert prev</a></div>
<div id=wrap><p>Wrapper text</p><button>Real button</button></div>
<script>
  const hit = (e) => { document.body.dataset.hit = e.currentTarget.textContent; };
  for (const id of ["prev", "next", "chip", "hchip", "iprev", "wrap"]) document.getElementById(id).addEventListener("click", hit);
  for (const li of document.querySelectorAll("#ac li")) li.addEventListener("mousedown", hit);
</script>`;

/** jQuery's `.on(type, selector)` (the test's stand-in, or the real package when installed): icons inside clickable rows. */
const DELEGATED = `${"<script>"}${REAL_JQUERY ?? MINI_JQUERY}</script>
<style>.row{cursor:pointer;padding:4px}.icon{display:inline-block;width:16px;height:16px;background:#fc0;margin:0 4px}</style>
<div id=inbox>
  <div class=row id=r1><span class="icon icon-star star"></span><b>Ann</b> Lunch <span class="icon icon-forward fwd" title="Forward"></span></div>
  <div class=row id=r2><span class="icon icon-trash del" title="Delete mail"></span><b>Bob</b> Build</div>
</div>
<p>Inbox status line</p>
<span class="star" hidden title="Hidden star"></span>
<script>
  $(".row").on("click", function () { document.body.dataset.hit = "open"; });
  $(document).on("click", ".star", function (e) { e.stopPropagation(); document.body.dataset.hit = "star"; });
  $("#inbox").on("mousedown", ".fwd, .del", function (e) { e.stopPropagation(); document.body.dataset.hit = this.title; });
</script>`;

/** Widget items: a jQuery UI menu's items (tabindex=-1 wrappers, handler on the list), a toolbar, a datepicker's data-handler Prev/Next. */
const WIDGET_ITEMS = `
<ul id=menu class="ui-menu" style="list-style:none;padding:0"><li class=ui-menu-item><div tabindex=-1 class=ui-menu-item-wrapper>Apple Valley</div></li><li class=ui-menu-item><div tabindex=-1 class=ui-menu-item-wrapper>Apricot Hill</div></li></ul>
<div role=toolbar id=tb><span>Bold</span> <span>Italic</span></div>
<div><a class="ui-datepicker-prev" data-handler="prev" data-event="click" title="Prev"><span>Prev</span></a> <span>March 2026</span>
<a class="ui-datepicker-next" data-handler="next" data-event="click" title="Next"><span>Next</span></a></div>
<div hidden><a data-handler="today" data-event="click">Hidden today</a></div>
<p>Caption text</p>
<script>
  document.getElementById("menu").addEventListener("click", function (e) { document.body.dataset.hit = e.target.textContent; });
  document.getElementById("tb").addEventListener("click", function (e) { document.body.dataset.hit = e.target.textContent; });
</script>`;

/** jQuery UI's menu after init: the <ul> itself focusable (tabindex=0), items handled by a listener on it; a focusable list with no listener beside it. */
const FOCUSABLE_MENU = `
<ul id=menu class="ui-menu" tabindex=0 style="list-style:none;padding:0"><li class=ui-menu-item><div tabindex=-1 class=ui-menu-item-wrapper>Boston</div></li><li class=ui-menu-item><div tabindex=-1 class=ui-menu-item-wrapper>Berlin</div></li></ul>
<ul tabindex=0><li>Plain entry</li><li>Other entry</li></ul>
<p>Menu caption</p>
<script>
  document.getElementById("menu").addEventListener("click", function (e) { document.body.dataset.hit = e.target.textContent; });
</script>`;

/** React 17+: one listener on the root, onClick in each element's props. */
const REACT_ROOT = `<div id=root><div class=card><span class=like>Like</span> <span class=share>Share</span> <span class=plain>Just text</span></div></div>
<script>
  var root = document.getElementById("root");
  root.__reactContainer$k1 = {};
  document.querySelector(".like").__reactProps$k1 = { onClick: function () { document.body.dataset.hit = "like"; } };
  document.querySelector(".share").__reactProps$k1 = { onClick: function () { document.body.dataset.hit = "share"; } };
  document.querySelector(".plain").__reactProps$k1 = { children: "Just text" };
  root.addEventListener("click", function (e) { for (var t = e.target; t && t !== root; t = t.parentNode) if (t.__reactProps$k1 && t.__reactProps$k1.onClick) return t.__reactProps$k1.onClick(e); });
</script>`;

/** HTML5 drag and drop: draggable cards and a drop zone. */
const DRAG_DROP = `
<div draggable="true" class=card style="width:120px;height:30px;background:#eee;margin:4px">Card one</div>
<div draggable="true" class=card style="width:120px;height:30px;background:#eee;margin:4px">Card two</div>
<div id=bin style="width:200px;height:80px;border:2px dashed #999" aria-label="Trash">Drop here</div>
<p>Plain paragraph</p>
<script>
  document.querySelectorAll(".card").forEach(function (c) { c.addEventListener("dragstart", function (e) { e.dataTransfer.setData("text/plain", c.textContent); }); });
  var bin = document.getElementById("bin");
  bin.addEventListener("dragover", function (e) { e.preventDefault(); });
  bin.addEventListener("drop", function (e) { e.preventDefault(); document.body.dataset.hit = e.dataTransfer.getData("text/plain"); });
</script>`;

/** Every page of the corpus and its probes, by path. */
export function corpusPages(origins: () => Origins): Record<string, string | ((url: URL) => string)> {
  return {
    "/cap/ax_only": doc(
      "AX only",
      `<div style="${ICON}" role=button tabindex=0 aria-label="Close dialog"></div>` +
        `<span style="${ICON}" role=switch aria-checked=false tabindex=0 aria-label="Dark mode"></span>` +
        `<div style="${ICON}" role=button tabindex=0 aria-labelledby=del-label></div><span id=del-label hidden>Delete row</span>` +
        `<button><svg width=16 height=16><title>Search</title><rect width=16 height=16></rect></svg></button>` +
        `<div style="${ICON}" role=img aria-label="Company logo"></div>`,
    ),
    "/cap/dom_only": doc(
      "DOM only",
      `<div onclick="document.body.dataset.hit='buy'" style="cursor:pointer;display:inline-block;padding:4px"><span>Buy</span> <b>now</b></div>` +
        `<div id=cart style="cursor:pointer;display:inline-block;padding:4px">Add to cart</div>` +
        `<div id=menu style="display:inline-block;padding:4px">Open menu</div>` +
        `<div>Price: 10 EUR</div>` +
        `<script>for (const id of ["cart", "menu"]) document.getElementById(id).addEventListener("click", () => { document.body.dataset.hit = id; });</script>`,
    ),
    "/cap/shadow_dom": doc("Shadow DOM", SHADOW),
    "/cap/same_origin_iframe": doc(
      "Same-origin frame",
      `<p>Outer page</p><iframe src="/cap/frame" title="Same frame"></iframe>`,
    ),
    "/cap/cross_origin_iframe": () =>
      doc(
        "Cross-origin frame",
        `<p>Outer page</p><iframe src="${origins().b}/cap/frame" title="Cross frame"></iframe>`,
      ),
    "/cap/frame": doc(
      "Frame",
      `<button>Frame button</button> <input aria-label="Frame input"> <button style="display:none">Frame hidden</button>`,
    ),
    "/cap/overlay": doc(
      "Overlay",
      `<button id=pay onclick="document.body.dataset.hit='pay'">Pay now</button>` +
        `<div id=cookie-banner style="position:fixed;inset:0;background:rgba(0,0,0,.6)">` +
        `<div style="background:#fff;margin:120px auto;width:320px;padding:16px"><span>We use cookies</span> ` +
        `<button onclick="document.getElementById('cookie-banner').remove()">Accept cookies</button></div></div>`,
    ),
    "/cap/contenteditable": doc(
      "Contenteditable",
      `<div contenteditable=true style="border:1px solid;min-height:40px"><p>Draft text</p></div>` +
        `<div contenteditable=true aria-label="Comment box" style="border:1px solid;min-height:40px"></div>` +
        `<div contenteditable=false>Read only note</div>`,
    ),
    "/cap/controlled_input": doc("Controlled input", CONTROLLED),
    "/cap/navigation": doc("Navigation", `<button>Stay here</button> <a href="/cap/arrived">Next page</a>`),
    "/cap/arrived": doc("Arrived", `<button onclick="document.body.dataset.hit='arrived'">Arrived</button>`),
    "/cap/document_replacement": doc(
      "Replace me",
      `<button id=old onclick="document.body.dataset.hit='old'">Old button</button> ` +
        `<button onclick="document.open();document.write('<title>Replaced</title><button>New button</button>');document.close()">Replace document</button>`,
    ),
    "/cap/long_list": doc("Long list", `<h1>Results</h1><ul>${ROWS}</ul>`),
    "/cap/hidden_traps": doc("Hidden traps", HIDDEN),
    "/cap/listener_only": doc("Listener only", LISTENER_ONLY),
    "/cap/delegated": doc("Delegated", DELEGATED),
    "/cap/widget_items": doc("Widget items", WIDGET_ITEMS),
    "/cap/focusable_menu": doc("Focusable menu", FOCUSABLE_MENU),
    "/cap/react_root": doc("React root", REACT_ROOT),
    "/cap/drag_drop": doc("Drag and drop", DRAG_DROP),
    "/cap/accordion": doc(
      "Accordion",
      `<style>#panel { height: 0; overflow: hidden; transition: height 350ms ease } #panel.open { height: 60px }</style>` +
        `<button onclick="document.getElementById('panel').classList.add('open')">Shipping</button>` +
        `<div id=panel><div style="height:30px"></div><button>Choose carrier</button></div>`,
    ),
    "/cap/same_document": doc(
      "Same document",
      `<a href="#details">Details</a><div style="height:2000px"></div><h2 id=details>Details</h2>`,
    ),
    "/cap/frame_change": () =>
      doc("Frame change", `<iframe src="${origins().b}/cap/frame_button" title="Change frame"></iframe>`),
    "/cap/frame_button": doc(
      "Frame button",
      `<button onclick="this.textContent = 'Changed inside'">Change me</button>`,
    ),
    // Observation truth: clicks the page never received on the element (issue 23).
    "/cap/hover_swap": doc(
      "Hover swap",
      // The hover image is swapped in by the page's own pointer handler (a DOM change), as icon sets do.
      `<style>.ico img{width:40px;height:40px;display:block}.ico img[hidden]{display:none}</style>` +
        `<span class=ico><img class=off alt="Settings" src="data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='40' height='40'/%3E"><img class=on hidden alt="Settings hover" src="data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='40' height='40'/%3E"></span>` +
        `<script>const off = document.querySelector(".off"), on = document.querySelector(".on");` +
        `off.addEventListener("mouseover", () => { off.hidden = true; on.hidden = false; });` +
        `off.addEventListener("click", () => { document.body.dataset.hit = "Settings"; })</script>`,
    ),
    "/cap/replaced_button": doc(
      "Replaced button",
      `<div><button id=buy>Buy</button></div>` +
        `<script>buy.addEventListener("pointerdown", () => { const n = document.createElement("button"); n.textContent = "Buy"; buy.replaceWith(n); }); buy.addEventListener("click", () => { document.body.dataset.hit = "Buy"; })</script>`,
    ),
    "/cap/dead_button": doc(
      "Dead button",
      `<button>Nothing</button><label>Size <select><option>S</option><option>M</option></select></label><input aria-label="Name">`,
    ),
    "/cap/short_run": doc(
      "Short run",
      Array.from({ length: 12 }, (_, i) => `<label><input type=checkbox> Topping ${i + 1}</label><br>`).join(""),
    ),
    "/cap/frames_numbered": () =>
      doc("Numbered frames", `<iframe hidden src="/cap/frame"></iframe><iframe src="/cap/nest" title="Nest"></iframe>`),
    "/cap/nest": () => doc("Nest", `<iframe src="${origins().b}/cap/frame" title="Inner"></iframe>`),
  };
}

const CLICKABLE_ROLES = ["button", "generic"] as const;

export const CASES: readonly Case[] = [
  {
    id: "ax_only",
    title: "no text content: aria-label, aria-labelledby to hidden text, svg <title>",
    path: "/cap/ax_only",
    expect: [
      { role: "button", name: "Close dialog" },
      { role: "switch", name: "Dark mode" },
      { role: "button", name: "Delete row" },
      { role: "button", name: "Search" },
    ],
    forbid: ["Company logo"],
  },
  {
    id: "dom_only",
    title: "clickable divs, no role: onclick attribute; listener + cursor:pointer; listener only",
    path: "/cap/dom_only",
    expect: [
      { role: CLICKABLE_ROLES, name: "Buy now" },
      { role: CLICKABLE_ROLES, name: "Add to cart" },
      { role: CLICKABLE_ROLES, name: "Open menu" },
    ],
    forbid: ["Buy", "now", "Price: 10 EUR"],
  },
  {
    id: "shadow_dom",
    title: "open shadow root, nested shadow root, slotted light-DOM button",
    path: "/cap/shadow_dom",
    expect: [
      { role: "button", name: "Shadow save" },
      { role: "textbox", name: "Shadow search" },
      { role: "link", name: "Nested link" },
      { role: "button", name: "Slotted action" },
    ],
    forbid: ["Shadow hidden"],
  },
  {
    id: "same_origin_iframe",
    title: "controls inside a same-origin iframe",
    path: "/cap/same_origin_iframe",
    expect: [
      { role: "button", name: "Frame button", frame: true },
      { role: "textbox", name: "Frame input", frame: true },
    ],
    forbid: ["Frame hidden"],
  },
  {
    id: "cross_origin_iframe",
    title: "controls inside a cross-origin (out-of-process) iframe",
    path: "/cap/cross_origin_iframe",
    expect: [
      { role: "button", name: "Frame button", frame: true },
      { role: "textbox", name: "Frame input", frame: true },
    ],
    forbid: ["Frame hidden"],
  },
  {
    id: "overlay",
    title: "fixed cookie banner covering a button (the covered button is still listed)",
    path: "/cap/overlay",
    expect: [
      { role: "button", name: "Pay now" },
      { role: "button", name: "Accept cookies" },
    ],
    forbid: ["We use cookies"],
  },
  {
    id: "contenteditable",
    title: "contenteditable editors (unlabelled and labelled)",
    path: "/cap/contenteditable",
    expect: [
      { role: "textbox", name: "", value: "Draft text" },
      { role: "textbox", name: "Comment box" },
    ],
    forbid: ["Read only note"],
  },
  {
    id: "controlled_input",
    title: "framework-controlled input (value property setter intercepted by the page)",
    path: "/cap/controlled_input",
    expect: [{ role: "textbox", name: "Email", value: "ann@example.com" }],
    forbid: ["Email mirror"],
  },
  {
    id: "navigation",
    title: "page with a link to another page",
    path: "/cap/navigation",
    expect: [
      { role: "button", name: "Stay here" },
      { role: "link", name: "Next page" },
    ],
    forbid: [],
  },
  {
    id: "document_replacement",
    title: "page that can replace its document (document.open/write)",
    path: "/cap/document_replacement",
    expect: [
      { role: "button", name: "Old button" },
      { role: "button", name: "Replace document" },
    ],
    forbid: [],
  },
  {
    id: "long_list",
    title: "300 same-shaped rows: one fold line, refs inside it clickable",
    path: "/cap/long_list",
    expect: [
      { role: "button", name: "Row 1" },
      { role: "button", name: "Row 300", inFold: { minCount: 290 } },
    ],
    forbid: [],
  },
  {
    id: "listener_only",
    title: "addEventListener only: <a> without href (calendar Prev/Next), autocomplete items, a div chip",
    path: "/cap/listener_only",
    expect: [
      { role: ["link", "generic"], name: "Prev month" },
      { role: ["link", "generic"], name: "Next month" },
      { role: ["listitem", "generic"], name: "Apple Valley" },
      { role: ["listitem", "generic"], name: "Apricot Hill" },
      { role: CLICKABLE_ROLES, name: "Chip red" },
      { role: "button", name: "Real button" },
    ],
    forbid: ["Hidden chip", "Inert prev", "Wrapper text Real button"],
  },
  {
    id: "delegated",
    title: "jQuery .on(type, selector): icons with no text inside clickable rows, on the document and on a container",
    path: "/cap/delegated",
    expect: [
      { role: CLICKABLE_ROLES, name: "Ann Lunch" },
      { role: CLICKABLE_ROLES, name: "icon star" },
      { role: CLICKABLE_ROLES, name: "Forward" },
      { role: CLICKABLE_ROLES, name: "Delete mail" },
      { role: CLICKABLE_ROLES, name: "Bob Build" },
    ],
    forbid: ["Ann Lunch Bob Build", "Inbox status line", "Hidden star"],
  },
  {
    id: "widget_items",
    title:
      "leaf items of widgets: a jQuery UI menu (tabindex=-1 wrappers), a toolbar, a datepicker's data-handler Prev/Next",
    path: "/cap/widget_items",
    expect: [
      { role: ["listitem", "generic"], name: "Apple Valley" },
      { role: ["listitem", "generic"], name: "Apricot Hill" },
      { role: CLICKABLE_ROLES, name: "Bold" },
      { role: CLICKABLE_ROLES, name: "Italic" },
      { role: ["link", "generic"], name: "Prev" },
      { role: ["link", "generic"], name: "Next" },
    ],
    forbid: ["Hidden today", "Caption text", "March 2026"],
  },
  {
    id: "focusable_menu",
    title: "items of a focusable list (jQuery UI's menu is a tabindex=0 <ul>) with a listener on the list",
    path: "/cap/focusable_menu",
    expect: [
      { role: ["listitem", "generic"], name: "Boston" },
      { role: ["listitem", "generic"], name: "Berlin" },
    ],
    forbid: ["Plain entry", "Other entry", "Menu caption"],
  },
  {
    id: "react_root",
    title: "React 17+: one root listener, onClick in each element's props",
    path: "/cap/react_root",
    expect: [
      { role: CLICKABLE_ROLES, name: "Like" },
      { role: CLICKABLE_ROLES, name: "Share" },
    ],
    forbid: ["Just text", "Like Share Just text"],
  },
  {
    id: "drag_drop",
    title: "HTML5 draggables and their drop zone",
    path: "/cap/drag_drop",
    expect: [
      { role: CLICKABLE_ROLES, name: "Card one" },
      { role: CLICKABLE_ROLES, name: "Card two" },
      { role: CLICKABLE_ROLES, name: "Trash" },
    ],
    forbid: ["Plain paragraph"],
  },
  {
    id: "short_run",
    title: "12 same-shaped checkboxes: the snapshot fits, so nothing folds and every name is listed",
    path: "/cap/short_run",
    expect: Array.from({ length: 12 }, (_, i) => ({ role: "checkbox", name: `Topping ${i + 1}` })),
    forbid: [],
  },
  {
    id: "frames_numbered",
    title: "a hidden iframe before a nested cross-origin one: f is the number 'bp frame' lists",
    path: "/cap/frames_numbered",
    expect: [
      { role: "button", name: "Frame button", frame: true },
      { role: "textbox", name: "Frame input", frame: true },
    ],
    forbid: ["Frame hidden"],
  },
  {
    id: "hidden_traps",
    title:
      "display:none, visibility:hidden, aria-hidden, inert, zero-size, off-screen, hidden, closed details, content-visibility; disabled",
    path: "/cap/hidden_traps",
    expect: [
      { role: "button", name: "Visible button" },
      { role: "button", name: "Visible override" },
      { role: "button", name: "Disabled button", state: "disabled" },
      { role: "button", name: "Below the fold" },
    ],
    forbid: [
      "Display none",
      "Visibility hidden",
      "Aria hidden",
      "Inert child",
      "Inert link",
      "Zero size",
      "Off screen",
      "Hidden attribute",
      "Inside closed details",
      "Content-visibility hidden",
    ],
  },
];
