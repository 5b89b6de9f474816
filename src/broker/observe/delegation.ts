import type { CdpSession } from "../../cdp/session.ts";
import type { DelegationScan } from "../../page/snapshot/listener-mark.ts";

/**
 * Delegated clickables the listener list cannot name: jQuery's `.on(type, selector, fn)` (selector in `jQuery._data`)
 * and React 17+ (handlers in each element's props) live in the page's own world, so one expression there reads the
 * containers with their selectors and the elements with click props, by document-order index and tag; our world checks
 * them. Bounded; a lying page costs at most a wrong mark, never a click.
 */
const SCAN = `(function () {
  var ACT = { click: 1, mousedown: 1, mouseup: 1, pointerdown: 1, pointerup: 1, touchstart: 1, touchend: 1 };
  var all = document.getElementsByTagName("*");
  var n = all.length, out = { n: n, d: [], h: [] };
  if (n > 100000) return JSON.stringify(out);
  var $ = window.jQuery, data = $ && typeof $._data === "function" ? $._data : null;
  var direct = false;
  var sels = function (node) {
    var ev = data(node, "events"), s = [];
    direct = false;
    if (!ev || typeof ev !== "object") return s;
    for (var t in ev) {
      if (!ACT[t] || !ev[t] || typeof ev[t].length !== "number") continue;
      for (var i = 0; i < ev[t].length && i < 50; i++) {
        var sel = ev[t][i] && ev[t][i].selector;
        if (typeof sel === "string" && sel.length <= 300 && s.indexOf(sel) < 0) s.push(sel);
        else if (!sel) direct = true;
      }
    }
    return s.slice(0, 20);
  };
  if (data) { var ds = sels(document); if (ds.length) out.d.push([-1, ds]); }
  var react = false;
  for (var j = 0; j < n && j < 300 && !react; j++) {
    var ks = Object.keys(all[j]);
    for (var q = 0; q < ks.length; q++) if (ks[q].indexOf("__react") === 0 || ks[q] === "_reactRootContainer") { react = true; break; }
  }
  if (!data && !react) return JSON.stringify(out);
  for (var i = 0; i < n; i++) {
    var el = all[i];
    if (data && out.d.length < 50) { var s = sels(el); if (s.length) out.d.push(direct ? [i, s, el.localName, 1] : [i, s, el.localName]); }
    if (!react || out.h.length >= 300) continue;
    var keys = Object.keys(el);
    for (var k = 0; k < keys.length; k++) {
      if (keys[k].indexOf("__reactProps$") !== 0) continue;
      var p = el[keys[k]];
      if (p && (p.onClick || p.onMouseDown || p.onMouseUp || p.onPointerDown || p.onPointerUp || p.onTouchStart)) out.h.push([i, el.localName]);
      break;
    }
  }
  return JSON.stringify(out);
})()`;

/** The page world's delegation (top frame of a session only); undefined when it has none or will not say. */
export async function delegationScan(session: CdpSession): Promise<DelegationScan | undefined> {
  try {
    const r = await session.send(
      "Runtime.evaluate",
      { expression: SCAN, returnByValue: true, timeout: 500, silent: true },
      { timeoutMs: 2000 },
    );
    if (r.exceptionDetails || typeof r.result.value !== "string" || r.result.value.length > 200_000) return undefined;
    const scan = JSON.parse(r.result.value) as DelegationScan;
    return Array.isArray(scan.d) && Array.isArray(scan.h) && (scan.d.length > 0 || scan.h.length > 0)
      ? scan
      : undefined;
  } catch {
    return undefined;
  }
}
