/**
 * Pages built with the real jQuery UI (the `jquery` and `jquery-ui` devDependencies), served
 * from node_modules at test time: autocomplete, datepicker, sortable, tabs, accordion and menu as the
 * library draws them, with its base theme.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const mod = (p: string) => join(import.meta.dir, "../../node_modules", p);
const asset = (file: string, type: string) => () =>
  new Response(readFileSync(mod(file)), { headers: { "content-type": type } });

const HEAD = `<link rel=stylesheet href="/lib/jquery-ui.css"><script src="/lib/jquery.js"></script><script src="/lib/jquery-ui.js"></script>`;

const AUTOCOMPLETE = `<!doctype html><title>Autocomplete</title>${HEAD}
<label for=city>City</label> <input id=city>
<script>$("#city").autocomplete({ source: ["Apple Valley", "Apricot Hill", "Ashford", "Boston"], delay: 0 });</script>`;

// A fixed default month so the titles do not depend on today.
const DATEPICKER = `<!doctype html><title>Datepicker</title>${HEAD}
<label for=date>Date</label> <input id=date>
<script>$("#date").datepicker({ defaultDate: new Date(2026, 11, 1) });</script>`;

const SORTABLE = `<!doctype html><title>Sortable</title>${HEAD}
<style>#list{list-style:none;padding:0;width:200px}#list li{height:30px;line-height:30px;background:#eef;margin:2px 0}</style>
<ul id=list><li class=ui-state-default>Ann</li><li class=ui-state-default>Bob</li><li class=ui-state-default>Cid</li></ul>
<script>$("#list").sortable({ update: function () { document.body.dataset.order = $("#list li").map(function () { return this.textContent; }).get().join(","); } });</script>`;

const TABS = `<!doctype html><title>Tabs</title>${HEAD}
<div id=tabs><ul><li><a href="#t1">Nunc</a></li><li><a href="#t2">Proin</a></li></ul>
<div id=t1><p>First panel text</p></div><div id=t2><p>Second panel text</p></div></div>
<div id=acc><h3>Alpha</h3><div><p>Alpha body</p></div><h3>Beta</h3><div><p>Beta body</p></div></div>
<script>$("#tabs").tabs(); $("#acc").accordion({ animate: false });</script>`;

// The accordion animates as the library does by default (a 400 ms height animation by script, its
// values rounded, so some frames change nothing); its links are spans with a delegated handler.
const ACCORDION = `<!doctype html><title>Accordion</title>${HEAD}
<style>.lnk{color:#00e;text-decoration:underline}</style>
<div id=acc>${[1, 2, 3].map((i) => `<h3>Part ${i}</h3><div><p><span class=lnk>go-${i}a</span> <span class=lnk>go-${i}b</span></p></div>`).join("")}</div>
<p id=picked></p>
<script>$("#acc").accordion(); $("#acc").on("click", ".lnk", function () { $("#picked").text("Picked " + this.textContent); });</script>`;

// A menu as the library draws it: a parent item opens its submenu 300 ms after the pointer came over it (its
// hover-intent delay), and marks itself active at once.
const MENU = `<!doctype html><title>Menu</title>${HEAD}
<ul id=menu style="width:160px"><li><div>Home</div></li><li><div>Books</div><ul><li><div>Fiction</div></li><li><div>Poetry</div></li></ul></li><li><div>Music</div></li></ul>
<p id=picked></p>
<script>$("#menu").menu({ select: function (e, ui) { $("#picked").text("Picked " + ui.item.children("div").first().text()); } });</script>`;

export const JQUERY_UI_PAGES = {
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
  "/ui/ac": AUTOCOMPLETE,
  "/ui/dp": DATEPICKER,
  "/ui/sort": SORTABLE,
  "/ui/tabs": TABS,
  "/ui/accordion": ACCORDION,
  "/ui/menu": MENU,
};
