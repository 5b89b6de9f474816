/**
 * Page-side scrolling for `bp scroll`, run in our isolated world as `(SCROLL_SOURCE)(win, el, arg)`
 * (`el`: the ref's element, or null for the page / `arg.selector`). Scrolls are instant, so
 * the positions read afterwards are final; the page still gets its scroll events.
 *
 * arg: { mode: "relative", direction, amount, unit } | { mode: "position", to: "start"|"end" }
 *    | { mode: "text", text, exact }, plus optional selector.
 * A page whose document does not scroll (an app shell with its own scrolling pane) scrolls
 * the pane under the viewport's centre, else the largest visible scrollable element.
 */
export const SCROLL_SOURCE = String.raw`(function scroll(win, el, arg) {
  var doc = win.document, root = doc.scrollingElement || doc.documentElement;
  var MAX_NODES = 200000;
  function parentOf(n) { return n.parentNode ? (n.parentNode.nodeType === 11 ? n.parentNode.host : n.parentNode) : null; }
  function canScroll(n, axis) {
    if (!n || n.nodeType !== 1) return false;
    if (n === root || n === doc.body) return pageCanScroll(axis);
    var cs = win.getComputedStyle(n), ov = axis === "y" ? cs.overflowY : cs.overflowX;
    if (!/(auto|scroll|overlay)/.test(ov)) return false;
    return axis === "y" ? n.scrollHeight > n.clientHeight + 1 : n.scrollWidth > n.clientWidth + 1;
  }
  function pageCanScroll(axis) {
    var max = axis === "y" ? root.scrollHeight - win.innerHeight : root.scrollWidth - win.innerWidth;
    if (max < 1) return false;
    var ov = win.getComputedStyle(root)[axis === "y" ? "overflowY" : "overflowX"];
    return ov !== "hidden" && ov !== "clip";
  }
  function ancestorScroller(n, axis) {
    for (var c = n, i = 0; c && c.nodeType === 1 && i < 4096; c = parentOf(c), i++) {
      if (c === root || c === doc.body) return null;
      if (canScroll(c, axis)) return c;
    }
    return null;
  }
  function fallbackScroller(axis) {
    var hit = doc.elementFromPoint(win.innerWidth / 2, win.innerHeight / 2);
    var c = hit ? ancestorScroller(hit, axis) : null;
    if (c) return c;
    var best = null, area = 0, all = doc.querySelectorAll("*");
    for (var i = 0; i < all.length && i < MAX_NODES; i++) {
      if (!canScroll(all[i], axis)) continue;
      var r = all[i].getBoundingClientRect();
      var a = Math.max(0, Math.min(r.right, win.innerWidth) - Math.max(r.left, 0)) * Math.max(0, Math.min(r.bottom, win.innerHeight) - Math.max(r.top, 0));
      if (a > area) { area = a; best = all[i]; }
    }
    return best;
  }
  function pos(c) { return c ? { x: c.scrollLeft, y: c.scrollTop } : { x: win.scrollX, y: win.scrollY }; }
  function moveTo(c, left, top) { var o = { left: left, top: top, behavior: "instant" }; if (c) c.scrollTo(o); else win.scrollTo(o); }
  function norm(s) { return String(s).replace(/\s+/g, " ").trim(); }
  function result(target, before, after, extra) {
    var out = { ok: true, target: target, beforeX: Math.round(before.x), beforeY: Math.round(before.y), afterX: Math.round(after.x), afterY: Math.round(after.y) };
    out.deltaX = out.afterX - out.beforeX; out.deltaY = out.afterY - out.beforeY;
    out.moved = out.deltaX !== 0 || out.deltaY !== 0;
    for (var k in extra) out[k] = extra[k];
    return out;
  }
  function findText() {
    var q = norm(arg.text), ql = q.toLowerCase(), found = [], count = 0;
    function matches(t) { return arg.exact ? t === q : t.toLowerCase().indexOf(ql) >= 0; }
    function visit(n) {
      if (++count > MAX_NODES || found.length >= 50) return;
      if (n.nodeType === 3) { if (matches(norm(n.data)) && n.parentElement) found.push(n.parentElement); return; }
      if (n.nodeType === 1 && /^(script|style|noscript|template|head)$/.test(n.localName)) return;
      if (n.shadowRoot) visit(n.shadowRoot);
      for (var c = n.firstChild; c; c = c.nextSibling) visit(c);
    }
    visit(doc.body || doc.documentElement);
    if (!found.length) {
      // Text split across elements ("Total <b>42</b>"): the smallest element holding all of it.
      var all = doc.body ? doc.body.querySelectorAll("*") : [], best = null;
      for (var i = 0; i < all.length && i < MAX_NODES; i++) {
        var e = all[i]; if (/^(script|style|noscript|template)$/.test(e.localName)) continue;
        var t = norm(e.textContent || "");
        if (matches(t) && (!best || t.length < norm(best.textContent || "").length)) best = e;
      }
      if (best) found.push(best);
    }
    for (var j = 0; j < found.length; j++) if (visible(found[j])) return found[j];
    return found[0] || null;
  }
  function visible(e) {
    var r = e.getBoundingClientRect(); if (!(r.width > 0 && r.height > 0)) return false;
    var cs = win.getComputedStyle(e); return cs.visibility !== "hidden" && cs.visibility !== "collapse";
  }
  function inView(e) {
    if (!visible(e)) return false;
    var r = e.getBoundingClientRect();
    return r.bottom > 0 && r.right > 0 && r.top < win.innerHeight && r.left < win.innerWidth;
  }

  if (!el && arg.selector) {
    try { el = doc.querySelector(arg.selector); } catch (x) { return { ok: false, reason: "selector_invalid" }; }
    if (!el) return { ok: false, reason: "selector_no_match" };
  }
  if (arg.mode === "text") {
    var hit = findText();
    if (!hit) { var p0 = pos(null); return result("text", p0, p0, { reason: "text_not_found" }); }
    var pb = pos(null), rb = hit.getBoundingClientRect();
    try { hit.scrollIntoView({ block: "center", inline: "nearest", behavior: "instant" }); } catch (x) {}
    var pa = pos(null), ra = hit.getBoundingClientRect();
    // The content moved by (rb - ra): that is the scroll, whichever container made it.
    var res = { ok: true, target: "text", beforeX: Math.round(pb.x), beforeY: Math.round(pb.y), afterX: Math.round(pa.x), afterY: Math.round(pa.y),
      deltaX: Math.round(rb.left - ra.left), deltaY: Math.round(rb.top - ra.top), matchedText: norm(hit.textContent || "").slice(0, 200) };
    res.moved = res.deltaX !== 0 || res.deltaY !== 0;
    if (!inView(hit)) res.reason = "text_not_revealed";
    return res;
  }
  var axis = arg.mode === "relative" && (arg.direction === "left" || arg.direction === "right") ? "x" : "y";
  var c = null, target = "page";
  if (el) {
    if (!el.isConnected) return { ok: false, reason: "detached" };
    c = canScroll(el, axis) ? el : ancestorScroller(el, axis);
    if (c === root || c === doc.body) c = null;
    target = c ? "element" : "page";
  } else if (!pageCanScroll(axis)) {
    c = fallbackScroller(axis);
    if (c) target = "element";
  }
  var before = pos(c);
  if (arg.mode === "position") {
    var end = axis === "y" ? (c || root).scrollHeight : (c || root).scrollWidth;
    moveTo(c, axis === "x" ? (arg.to === "end" ? end : 0) : before.x, axis === "y" ? (arg.to === "end" ? end : 0) : before.y);
  } else {
    var size = axis === "y" ? (c ? c.clientHeight : win.innerHeight) : (c ? c.clientWidth : win.innerWidth);
    var d = (arg.unit === "pixels" ? arg.amount : arg.amount * size) * (arg.direction === "up" || arg.direction === "left" ? -1 : 1);
    moveTo(c, before.x + (axis === "x" ? d : 0), before.y + (axis === "y" ? d : 0));
  }
  return result(target, before, pos(c), {});
})`;
