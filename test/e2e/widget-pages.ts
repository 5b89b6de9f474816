/**
 * Widget pages built the way ordinary widget libraries build them: handlers on an ancestor
 * (jQuery's `.on(type, selector, fn)`, React's root listener), `data-handler` bindings, icon
 * spans with no text, HTML5 drag and drop. `MINI_JQUERY` mimics the part of jQuery that matters
 * here: one real listener on the container, the selector kept in jQuery's own record
 * (`jQuery._data(el, "events")[type][i].selector`), matched against the event's path on dispatch.
 * When the real `jquery` package is installed, `REAL_JQUERY` holds its source and the pages use it.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

const jqPath = join(import.meta.dir, "../../node_modules/jquery/dist/jquery.min.js");
export const REAL_JQUERY: string | undefined = existsSync(jqPath) ? readFileSync(jqPath, "utf8") : undefined;

export const MINI_JQUERY = `(function () {
  var KEY = "jQuery" + String(Math.random()).slice(2);
  function data(el) { return el[KEY] || (el[KEY] = { events: {} }); }
  function J(nodes) { this.nodes = nodes; }
  J.prototype.on = function (type, selector, fn) {
    if (typeof selector === "function") { fn = selector; selector = undefined; }
    this.nodes.forEach(function (el) {
      var ev = data(el).events;
      if (!ev[type]) {
        ev[type] = [];
        el.addEventListener(type, function (e) {
          ev[type].forEach(function (h) {
            if (!h.selector) return h.handler.call(el, e);
            for (var t = e.target; t && t !== el; t = t.parentNode) if (t.matches && t.matches(h.selector)) return h.handler.call(t, e);
          });
        });
      }
      ev[type].push({ type: type, selector: selector, handler: fn });
    });
    return this;
  };
  function $(x) { return new J(typeof x === "string" ? Array.prototype.slice.call(document.querySelectorAll(x)) : [x]); }
  $._data = function (el, name) { var d = el[KEY]; return d && name ? d[name] : d; };
  window.jQuery = window.$ = $;
})();`;

const jq = () => `<script>${REAL_JQUERY ?? MINI_JQUERY}</script>`;

/** A mail list: rows open a mail (direct listener, pointer cursor); star and forward icons are delegated. */
export const MAIL = () => `<!doctype html><title>Mail</title>${jq()}
<style>.row{cursor:pointer;padding:4px;border-bottom:1px solid #ccc}.icon{display:inline-block;width:16px;height:16px;background:#fc0;margin:0 4px}</style>
<div id=inbox>
  <div class=row id=r1><span class="icon icon-star star"></span><b>Ann</b> Lunch on Friday <span class="icon icon-forward fwd"></span></div>
  <div class=row id=r2><span class="icon icon-star star"></span><b>Bob</b> Build is green <span class="icon icon-forward fwd"></span></div>
</div>
<div id=notes style="padding:4px">Notes pane <span class="icon icon-pin pin"></span></div>
<p id=status></p>
<script>
  var say = function (t) { document.body.dataset.hit = t; document.getElementById("status").textContent = t; };
  $(".row").on("click", function (e) { if (!e.target.classList.contains("icon")) say("open " + this.id); });
  $(document).on("click", ".star", function (e) { e.stopPropagation(); say("star " + this.parentNode.id); });
  $("#inbox").on("mousedown", ".fwd", function (e) { e.stopPropagation(); say("forward " + this.parentNode.id); });
  // A container with a handler of its own beside a delegated one: both are controls.
  $("#notes").on("click", function (e) { if (e.target === this) say("notes"); }).on("click", ".pin", function () { say("pin"); });
</script>`;

/** An autocomplete menu the way jQuery UI renders it: items with a tabindex=-1 wrapper, a delegated handler on the list. */
export const AUTOCOMPLETE = () => `<!doctype html><title>Autocomplete</title>${jq()}
<label>City <input id=city></label>
<ul id=menu class="ui-menu ui-widget" style="list-style:none;padding:0"></ul>
<script>
  var cities = ["Apple Valley", "Apricot Hill", "Ashford"];
  document.getElementById("city").addEventListener("input", function () {
    var q = this.value.toLowerCase();
    document.getElementById("menu").innerHTML = cities.filter(function (c) { return q && c.toLowerCase().indexOf(q) === 0; })
      .map(function (c) { return '<li class="ui-menu-item"><div tabindex="-1" class="ui-menu-item-wrapper">' + c + "</div></li>"; }).join("");
  });
  $("#menu").on("click", ".ui-menu-item", function () { document.getElementById("city").value = this.textContent; document.body.dataset.hit = this.textContent; document.getElementById("menu").innerHTML = ""; });
</script>`;

const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

/** A datepicker as jQuery UI draws it: Prev/Next `<a>` without href bound through data-handler, the month redrawn whole on every turn. */
export const DATEPICKER = () => `<!doctype html><title>Dates</title>
<label>Date <input id=date readonly></label>
<div id=dp></div>
<script>
  var MONTHS = ${JSON.stringify(MONTHS)};
  var y = 2026, m = 11;
  function draw() {
    var days = new Date(y, m + 1, 0).getDate(), cells = "";
    for (var d = 1; d <= days; d++) cells += (d % 7 === 1 ? "<tr>" : "") + '<td data-handler="selectDay" data-event="click"><a class="ui-state-default" href="#">' + d + "</a></td>";
    document.getElementById("dp").innerHTML =
      '<div class="ui-datepicker-header"><a class="ui-datepicker-prev ui-corner-all" data-handler="prev" data-event="click" title="Prev"><span class="ui-icon">Prev</span></a>' +
      '<a class="ui-datepicker-next ui-corner-all" data-handler="next" data-event="click" title="Next"><span class="ui-icon">Next</span></a>' +
      '<div class="ui-datepicker-title">' + MONTHS[m] + " " + y + "</div></div><table><tbody>" + cells + "</tbody></table>";
    document.querySelectorAll("#dp [data-handler]").forEach(function (el) {
      el.addEventListener(el.getAttribute("data-event"), function (e) {
        e.preventDefault();
        var h = el.getAttribute("data-handler");
        if (h === "prev") { m--; if (m < 0) { m = 11; y--; } draw(); }
        else if (h === "next") { m++; if (m > 11) { m = 0; y++; } draw(); }
        else document.getElementById("date").value = (m + 1) + "/" + el.textContent + "/" + y;
      });
    });
  }
  draw();
</script>`;

/** React 17+ style: one listener on the root, handlers in each element's props. */
export const REACTISH = `<!doctype html><title>Reactish</title>
<div id=root><div class=card><span class=like>Like</span> <span class=share>Share</span> <span class=plain>Just text</span></div></div>
<script>
  var root = document.getElementById("root");
  root.__reactContainer$k1 = {};
  var on = function (sel, name) { document.querySelector(sel).__reactProps$k1 = { onClick: function () { document.body.dataset.hit = name; } }; };
  on(".like", "like"); on(".share", "share");
  // Like renders an Undo of its own, clickable through its props only.
  document.querySelector(".like").__reactProps$k1.onClick = function () {
    document.body.dataset.hit = "like";
    var u = document.createElement("span"); u.className = "undo"; u.textContent = "Undo";
    u.__reactProps$k1 = { onClick: function () { document.body.dataset.hit = "undo"; } };
    document.querySelector(".card").appendChild(u);
  };
  document.querySelector(".plain").__reactProps$k1 = { children: "Just text" };
  root.addEventListener("click", function (e) {
    for (var t = e.target; t && t !== root; t = t.parentNode) if (t.__reactProps$k1 && t.__reactProps$k1.onClick) return t.__reactProps$k1.onClick(e);
  });
</script>`;

/** A toolbar with a listener on the bar; HTML5 draggables and a drop zone. */
export const TOOLBAR_DND = `<!doctype html><title>Toolbar</title>
<div role=toolbar id=tb><span>Bold</span> <span>Italic</span></div>
<button id=save><span id=savelabel>Save draft</span></button>
<div id=cards>
  <div draggable="true" class=card id=c1 style="width:120px;height:30px;background:#eee;margin:4px">Card one</div>
  <div draggable="true" class=card id=c2 style="width:120px;height:30px;background:#eee;margin:4px">Card two</div>
</div>
<div id=bin style="width:200px;height:80px;border:2px dashed #999;margin-top:20px" aria-label="Trash">Drop here</div>
<p>Plain paragraph</p>
<script>
  document.getElementById("tb").addEventListener("click", function (e) { document.body.dataset.hit = e.target.textContent; });
  // A listener on a button's label (a ripple, a tracker) does not make the label a control of its own.
  document.getElementById("savelabel").addEventListener("mousedown", function () {});
  document.querySelectorAll(".card").forEach(function (c) { c.addEventListener("dragstart", function (e) { e.dataTransfer.setData("text/plain", c.id); }); });
  var bin = document.getElementById("bin");
  bin.addEventListener("dragover", function (e) { e.preventDefault(); });
  bin.addEventListener("drop", function (e) { e.preventDefault(); var id = e.dataTransfer.getData("text/plain"); document.body.dataset.hit = "dropped " + id; document.getElementById(id).remove(); });
</script>`;

/** A pointer-driven sortable list (as jQuery UI's sortable: mousedown on the list, the drop slot from the pointer against each item's middle). */
export const SORTABLE = `<!doctype html><title>Sortable</title>
<style>#list{list-style:none;padding:0;width:200px}#list li{height:30px;line-height:30px;background:#eef;margin:2px 0;cursor:move}</style>
<ul id=list><li>Ann</li><li>Bob</li><li>Cid</li></ul>
<script>
  var list = document.getElementById("list"), held = null;
  var order = function () { document.body.dataset.order = Array.prototype.map.call(list.children, function (li) { return li.textContent; }).join(","); };
  list.addEventListener("mousedown", function (e) { if (e.target.tagName === "LI") { held = e.target; e.preventDefault(); } });
  document.addEventListener("mouseup", function (e) {
    if (!held) return;
    var items = Array.prototype.filter.call(list.children, function (li) { return li !== held; }), before = null;
    for (var i = 0; i < items.length; i++) { var r = items[i].getBoundingClientRect(); if (e.clientY <= r.top + r.height / 2) { before = items[i]; break; } }
    list.insertBefore(held, before);
    held = null;
    order();
  });
  order();
</script>`;

export const DUPLICATES = `<!doctype html><title>Dups</title>
<button onclick="document.body.dataset.hit='d1'">Delete</button> <button onclick="document.body.dataset.hit='d2'">Delete</button>
<button onclick="document.body.dataset.hit='all'">Delete all</button>
<button onclick="this.textContent = Number(this.textContent) + 1">0</button>`;

/** MiniWoB's collapsible sections: headers open a section whose links are `<span>`s delegated from the area. */
export const ACCORDION = () => `<!doctype html><title>Sections</title>${jq()}
<div id=area>
  <h3 class=hdr>Section #1</h3><div class=body style="display:none"><p>Lorem <span class=alink>ipsum</span> dolor.</p></div>
  <h3 class=hdr>Section #2</h3><div class=body style="display:none"><p>Sit <span class=alink>amet</span> elit.</p></div>
</div>
<script>
  $("#area").on("click", "h3.hdr", function () { var b = this.nextElementSibling; b.style.display = b.style.display === "none" ? "block" : "none"; });
  $("#area").on("click", "span.alink", function () { document.body.dataset.hit = this.textContent; });
</script>`;
