/**
 * Real-widget fixture pages, the kind of page the form page does not show (issue 29): widget
 * code, its timers and animations, and a page that never stops moving.
 *
 *  /widgets  jQuery UI as the library draws it (the `jquery` and `jquery-ui` devDependencies,
 *            served from node_modules, as test/e2e/jquery-ui-pages.ts does): an autocomplete
 *            with the library's default 300 ms delay, a datepicker with its default fadeIn, a
 *            sortable list.
 *  /react    React 19 as built from the devDependencies (test/support/react-bundle.ts): a cart
 *            button, a controlled name field and a button that asks the server for the stock
 *            and renders its answer, with React's one listener on the root.
 *  /choices  a native select whose change handler says the choice, and jQuery UI's menu, whose
 *            parent item opens its submenu 300 ms after the pointer came over it.
 *  /live     a ticking episode timer (text and bar every 100 ms), an endless CSS spinner, a JS
 *            animation moving a box every frame, and a button whose click also flashes a short
 *            CSS animation: what MiniWoB++ episodes run while an agent acts.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { REACT_BUNDLE } from "../../test/support/react-bundle.ts";

const root = join(import.meta.dir, "../../node_modules");
const mod = (p: string) => join(root, p);

/** Names the widget scenarios act on. */
export const WIDGET = {
  city: "City",
  cityText: "Ap",
  /** A suggestion the autocomplete shows for cityText: the effect to see. */
  suggestion: "Apricot Hill",
  date: "Date",
  /** The datepicker's "next month" link: only there once the calendar is open. */
  calendar: "Next",
  sortFirst: "Ann",
  sortLast: "Cid",
  liveButton: "Add item",
  liveField: "Full name",
  reactButton: "Add to cart",
  reactField: "Your name",
  reactLoad: "Check stock",
  /** What the page shows once the server's answer is rendered. */
  reactLoaded: "tins left",
  speed: "Speed",
  speedOption: "Fast",
  menuParent: "Books",
  /** An item of the parent's submenu: there once the submenu opened (300 ms after the pointer came). */
  menuChild: "Fiction",
  menuLeaf: "Home",
} as const;

const HEAD = `<link rel=stylesheet href="/lib/jquery-ui.css"><script src="/lib/jquery.js"></script><script src="/lib/jquery-ui.js"></script>`;

function widgetsPage(): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Widgets</title>${HEAD}
<style>body{font:14px sans-serif;margin:16px}#list{list-style:none;padding:0;width:220px}#list li{cursor:move;height:28px;line-height:28px;padding:0 8px;margin:2px 0}</style></head><body>
<h1>Book a trip</h1>
<p><label for=city>${WIDGET.city}</label> <input id=city></p>
<p><label for=date>${WIDGET.date}</label> <input id=date></p>
<h2>Order of stops</h2>
<ul id=list><li class=ui-state-default>${WIDGET.sortFirst}</li><li class=ui-state-default>Bob</li><li class=ui-state-default>${WIDGET.sortLast}</li></ul>
<p id=order>Ann,Bob,Cid</p>
<script>
$("#city").autocomplete({ source: ["Apple Valley", "${WIDGET.suggestion}", "Ashford", "Boston", "Cairo"] });
$("#date").datepicker({ defaultDate: new Date(2026, 11, 1) });
$("#list").sortable({ update: function () { $("#order").text($("#list li").map(function () { return this.textContent; }).get().join(",")); } });
</script>
</body></html>`;
}

/** A native select whose change handler says the choice, and jQuery UI's menu with a submenu it opens on hover. */
function choicesPage(): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Choices</title>${HEAD}
<style>body{font:14px sans-serif;margin:16px}</style></head><body>
<p><label for=speed>${WIDGET.speed}</label> <select id=speed><option>Slow</option><option>Medium</option><option>${WIDGET.speedOption}</option></select></p>
<p id=speedout>Speed: Slow</p>
<ul id=menu style="width:160px"><li><div>${WIDGET.menuLeaf}</div></li><li><div>${WIDGET.menuParent}</div><ul><li><div>${WIDGET.menuChild}</div></li><li><div>Poetry</div></li></ul></li><li><div>Music</div></li></ul>
<script>
$("#speed").on("change", function () { $("#speedout").text("Speed: " + this.value); });
$("#menu").menu();
</script>
</body></html>`;
}

/** Untimed between repetitions: the widgets back as they were, the same elements (refs stay valid). */
export const WIDGET_RESET = {
  city: `($("#city").autocomplete("close").val(""), 0)`,
  date: `($("#date").datepicker("hide").blur().val(""), $.datepicker._curInst && $("#ui-datepicker-div").stop(true, true).hide(), 0)`,
  live: `(document.getElementById("fullname").value = "", document.getElementById("greet").textContent = "Hello, stranger", 0)`,
  // Through React's own input event, so its state (and the greeting) goes back too.
  // The stock goes back through React's state too (the page listens for this event).
  stock: `(dispatchEvent(new Event("bench-reset")), 0)`,
  react: `(((el) => (Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value").set.call(el, ""), el.dispatchEvent(new Event("input", { bubbles: true }))))(document.getElementById("who")), 0)`,
  speed: `($("#speed").val("Slow"), $("#speedout").text("Speed: Slow"), 0)`,
  // After the pointer rests on a leaf item (hover.to): the submenu closed (in a 0 ms timeout, before the look that
  // follows), no item active.
  menu: `($("#menu").menu("collapseAll", null, true), 0)`,
  sort: `(["Ann","Bob","Cid"].forEach(function (n) { var l = document.getElementById("list"); l.appendChild([].find.call(l.children, function (e) { return e.textContent === n; })); }), $("#order").text("Ann,Bob,Cid"), 0)`,
};

function reactPage(): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title>
<style>body{font:14px sans-serif;margin:16px}</style></head><body><div id=root></div>
<script src="/lib/react.js"></script>
<script>
  const h = React.createElement, { useState, useEffect } = React;
  function Shop() {
    const [n, setN] = useState(0), [name, setName] = useState(""), [stock, setStock] = useState(null);
    useEffect(() => {
      const reset = () => setStock(null);
      addEventListener("bench-reset", reset);
      return () => removeEventListener("bench-reset", reset);
    }, []);
    const check = () => fetch("/api/stock").then((r) => r.json()).then((d) => setStock(d.tins));
    return h("main", null,
      h("h1", null, "Tea shop"),
      h("p", null, "Assam, 250 g ", h("button", { onClick: () => setN(n + 1) }, "${WIDGET.reactButton}"),
        " ", h("button", { onClick: check }, "${WIDGET.reactLoad}")),
      h("p", null, stock === null ? "Stock not checked" : stock + " ${WIDGET.reactLoaded}"),
      h("p", null, n === 0 ? "Your cart is empty" : "Cart: " + n + (n === 1 ? " item" : " items")),
      h("p", null, h("label", { htmlFor: "who" }, "${WIDGET.reactField}"), " ",
        h("input", { id: "who", value: name, onChange: (e) => setName(e.target.value) })),
      h("p", null, name ? "Hello, " + name + "!" : "Tell us your name"));
  }
  createRoot(document.getElementById("root")).render(h(Shop));
</script>
</body></html>`;
}

function livePage(): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Live</title>
<style>body{font:14px sans-serif;margin:16px}
#bar{height:6px;background:#08c}
.spin{width:20px;height:20px;border:3px solid #ccc;border-top-color:#08c;border-radius:50%;animation:spin 1s linear infinite;display:inline-block}
@keyframes spin{to{transform:rotate(360deg)}}
#box{width:16px;height:16px;background:#c60;position:relative}
@keyframes flash{from{background:#ff0}to{background:transparent}}
.flash{animation:flash .15s ease-out}
</style></head><body>
<div id=query>Click "Add item", then enter your name.</div>
<p>Time left: <span id=left>60.0</span> s</p><div id=bar></div>
<p><span class=spin></span> <span id=status>Loading more…</span></p>
<div id=box></div>
<p><button type=button id=add>${WIDGET.liveButton}</button> Items: <output id=count>0</output></p>
<p><label>${WIDGET.liveField} <input type=text id=fullname></label></p>
<p id=greet>Hello, stranger</p>
<script>
  var t0 = Date.now(), n = 0;
  setInterval(function () {
    var left = Math.max(0, 60 - (Date.now() - t0) / 1000) ;
    if (left === 0) t0 = Date.now();
    document.getElementById("left").textContent = left.toFixed(1);
    document.getElementById("bar").style.width = (left / 60 * 100).toFixed(1) + "%";
  }, 100);
  (function move(ts) { document.getElementById("box").style.left = (Math.sin(ts / 300) * 100 + 100).toFixed(0) + "px"; requestAnimationFrame(move); })(0);
  document.getElementById("add").addEventListener("click", function () {
    n++; var c = document.getElementById("count"); c.textContent = String(n);
    c.classList.remove("flash"); void c.offsetWidth; c.classList.add("flash");
  });
  document.getElementById("fullname").addEventListener("input", function (e) {
    document.getElementById("greet").textContent = "Hello, " + e.target.value;
  });
</script>
</body></html>`;
}

const asset = (file: string, type: string) => ({
  body: readFileSync(mod(file)),
  type,
});

/** Path → page or asset, for the fixture server. */
export function widgetRoutes(): Record<string, { body: string | Buffer; type: string }> {
  const html = (body: string) => ({ body, type: "text/html; charset=utf-8" });
  return {
    "/widgets": html(widgetsPage()),
    "/live": html(livePage()),
    "/choices": html(choicesPage()),
    "/react": html(reactPage()),
    "/lib/react.js": { body: REACT_BUNDLE, type: "text/javascript" },
    // A local API that answers at once, as a page's own backend would on this machine.
    "/api/stock": { body: JSON.stringify({ tins: 12 }), type: "application/json" },
    "/lib/jquery.js": asset("jquery/dist/jquery.min.js", "text/javascript"),
    "/lib/jquery-ui.js": asset("jquery-ui/dist/jquery-ui.min.js", "text/javascript"),
    "/lib/jquery-ui.css": asset("jquery-ui/dist/themes/base/jquery-ui.min.css", "text/css"),
    // The theme's icons, so the page loads without errors.
    ...Object.fromEntries(
      readdirSync(mod("jquery-ui/dist/themes/base/images")).map((f) => [
        `/lib/images/${f}`,
        asset(`jquery-ui/dist/themes/base/images/${f}`, "image/png"),
      ]),
    ),
  };
}
