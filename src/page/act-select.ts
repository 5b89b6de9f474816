/**
 * Page-side dropdown handling for `bp dropdown` and `bp select`, run in our isolated world as
 * `(SELECT_SOURCE)(win, el, arg)` with the ref's element (or null: the control found earlier).
 *
 * A ref may be a native <select> (or its option, label or wrapper), an ARIA listbox, or a
 * combobox / listbox button whose popup list is found through aria-controls, aria-owns,
 * aria-activedescendant or a descendant listbox. The control found is kept in our world's
 * slot, so later steps (after the broker opens the popup) need no ref.
 *
 * ops: "list" options; "find" one option (kept in the target slot for the pointer probe);
 * "waitOption" until it is rendered and visible (bounded, event-driven); "setNative" a
 * native option through the element with input+change events; "selected" for readback.
 */
export const SELECT_SOURCE = String.raw`(function choose(win, el, arg) {
  var CONTROL = Symbol.for("browser-pilot.select.v1"), TARGET = Symbol.for("browser-pilot.target.v1");
  var LIMIT = arg.limit || 200;
  function norm(s) { return String(s == null ? "" : s).replace(/\s+/g, " ").trim(); }
  function role(e) { return e && e.getAttribute ? String(e.getAttribute("role") || "").toLowerCase() : ""; }
  function byIds(ids, from) {
    var root = from.getRootNode ? from.getRootNode() : from.ownerDocument, out = [];
    String(ids || "").split(/\s+/).forEach(function (id) {
      if (!id) return;
      var hit = (root && root.getElementById ? root.getElementById(id) : null) || from.ownerDocument.getElementById(id);
      if (hit) out.push(hit);
    });
    return out;
  }
  function listboxIn(e) {
    if (!e) return null;
    if (role(e) === "listbox") return e;
    return e.querySelector ? e.querySelector("[role=listbox]") : null;
  }
  function control(e) {
    if (!e || e.nodeType !== 1) return null;
    if (e.localName === "select") return { kind: "native", select: e, owner: e };
    if (e.localName === "option" && e.closest("select")) return control(e.closest("select"));
    try { if (e.localName === "label" && e.control && e.control.localName === "select") return control(e.control); } catch (x) {}
    var r = role(e);
    if (r === "option" && e.closest("[role=listbox]")) return control(e.closest("[role=listbox]"));
    if (r === "listbox") return { kind: "aria", listbox: e, owner: e };
    if (r === "combobox" || /^(listbox|true)$/.test(String(e.getAttribute("aria-haspopup") || ""))) {
      var lb = null, refs = byIds(e.getAttribute("aria-controls"), e).concat(byIds(e.getAttribute("aria-owns"), e));
      for (var i = 0; i < refs.length && !lb; i++) lb = listboxIn(refs[i]);
      if (!lb) { var ad = byIds(e.getAttribute("aria-activedescendant"), e)[0]; if (ad) lb = ad.closest("[role=listbox]"); }
      if (!lb) lb = listboxIn(e.parentElement && e.parentElement.querySelector("[role=listbox]") ? e.parentElement : e);
      return { kind: "aria", listbox: lb, owner: e };
    }
    var inner = e.querySelector ? e.querySelector("select") : null;
    if (inner) return control(inner);
    return null;
  }
  function visible(o) {
    var r = o.getBoundingClientRect(); if (!(r.width > 0 && r.height > 0)) return false;
    var cs = o.ownerDocument.defaultView.getComputedStyle(o); return cs.visibility !== "hidden" && cs.display !== "none";
  }
  function options(c) {
    var out = [];
    if (c.kind === "native") {
      var os = c.select.options;
      for (var i = 0; i < os.length; i++) {
        var o = os[i], g = o.parentNode && o.parentNode.localName === "optgroup" ? o.parentNode : null;
        out.push({ el: o, index: i, label: norm(o.label || o.text), value: String(o.value), selected: !!o.selected, disabled: !!o.disabled || !!(g && g.disabled) });
      }
      return out;
    }
    if (!c.listbox) return out;
    var list = c.listbox.querySelectorAll("[role=option]");
    for (var j = 0; j < list.length; j++) {
      var a = list[j], label = norm(a.getAttribute("aria-label") || a.textContent);
      out.push({ el: a, index: j, label: label, value: String(a.getAttribute("data-value") || a.getAttribute("value") || label),
        selected: a.getAttribute("aria-selected") === "true" || a.getAttribute("aria-checked") === "true", disabled: a.getAttribute("aria-disabled") === "true" });
    }
    return out;
  }
  function pick(list) {
    var want = norm(arg.option), lw = want.toLowerCase(), hits = [];
    for (var i = 0; i < list.length; i++) {
      var o = list[i];
      if (arg.by === "index") { if (String(o.index) === want) hits.push(o); continue; }
      var have = arg.by === "value" ? o.value : o.label;
      var ok = arg.by === "value" ? (arg.contains ? have.indexOf(want) >= 0 : have === want) : (arg.contains ? have.toLowerCase().indexOf(lw) >= 0 : have.toLowerCase() === lw);
      if (ok) hits.push(o);
    }
    for (var k = 0; k < hits.length; k++) if (!hits[k].disabled) return hits[k];
    return hits[0] || null;
  }
  function ownerText(c) {
    var o = c.owner; if (!o) return "";
    return norm(o.localName === "input" || o.localName === "textarea" ? o.value : (o.getAttribute("aria-label") ? "" : o.textContent));
  }
  function bare(o) { return { index: o.index, label: o.label.slice(0, 200), value: o.value.slice(0, 200), selected: o.selected, disabled: o.disabled }; }

  var c;
  if (el) { c = control(el); if (c) win[CONTROL] = c; } else c = win[CONTROL];
  if (!c) return { ok: false, reason: el && !el.isConnected ? "detached" : "not_a_dropdown", tag: el ? String(el.localName) : "" };
  if (c.kind === "aria" && !c.listbox) { var again = control(c.owner); if (again) c = win[CONTROL] = again; }
  var expanded = c.kind === "aria" && c.owner.getAttribute("aria-expanded") === "true";
  var multiple = c.kind === "native" ? !!c.select.multiple : !!(c.listbox && c.listbox.getAttribute("aria-multiselectable") === "true");
  var list = options(c);
  var shown = c.kind === "native" || list.some(function (o) { return visible(o.el); });
  var info = { ok: true, kind: c.kind, expanded: expanded, multiple: multiple, requiresOpen: !shown, disabled: c.kind === "native" ? !!c.select.disabled : c.owner.getAttribute("aria-disabled") === "true" };

  if (arg.op === "list") {
    info.options = list.slice(0, LIMIT).map(bare); info.truncated = list.length > LIMIT; return info;
  }
  if (arg.op === "find" || arg.op === "waitOption") {
    var found = function () { var l = options(c); var o = pick(l); return o && (c.kind === "native" || visible(o.el)) ? o : null; };
    var done = function (o) {
      if (o) win[TARGET] = { el: o.el };
      info.found = !!o; if (o) { info.option = bare(o); info.visible = c.kind === "native" || visible(o.el); }
      info.available = list.length;
      return info;
    };
    if (arg.op === "find") { var any = pick(list); return done(any && (found() || any)); }
    var now = found(); if (now) return done(now);
    return new Promise(function (resolve) {
      var doc = c.owner.ownerDocument, obs = null, t = 0;
      var finish = function (o) { if (obs) obs.disconnect(); win.clearTimeout(t); list = options(c); resolve(done(o)); };
      obs = new win.MutationObserver(function () { var o = found(); if (o) finish(o); });
      obs.observe(doc, { subtree: true, childList: true, attributes: true });
      t = win.setTimeout(function () { finish(found()); }, arg.maxMs || 1500);
    });
  }
  if (arg.op === "setNative") {
    var target = list[arg.index];
    if (!target) return { ok: false, reason: "option_not_found" };
    if (multiple) target.el.selected = true; else c.select.selectedIndex = arg.index;
    c.select.dispatchEvent(new win.Event("input", { bubbles: true, composed: true }));
    c.select.dispatchEvent(new win.Event("change", { bubbles: true }));
  }
  if (arg.op === "setNative" || arg.op === "selected") {
    var sel = options(c).filter(function (o) { return o.selected; });
    var t2 = win[TARGET] && win[TARGET].el;
    var opt = t2 && t2.isConnected ? { selected: t2.getAttribute && (c.kind === "native" ? !!t2.selected : t2.getAttribute("aria-selected")), connected: true } : { connected: false };
    return { ok: true, kind: c.kind, selected: sel.slice(0, 20).map(function (o) { return o.label.slice(0, 200); }), target: opt, ownerText: ownerText(c).slice(0, 500), expanded: c.kind === "aria" && c.owner.getAttribute("aria-expanded") === "true" };
  }
  return { ok: false, reason: "unknown_op" };
})`;
