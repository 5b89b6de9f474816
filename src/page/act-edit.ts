/**
 * Page-side pieces of text input (type, keyboard, press), run in our isolated world as
 * `(EDIT_SOURCE)(win, el, arg)`; `el` is the ref's element, or null to use what has focus.
 * JavaScript source text for the same reason as ACT_SOURCE (no DOM library in this build).
 *
 * A composite action keeps a slot on our world's window: the element it edits, the element
 * that had focus when it was pinned, and a random token. The world dies with its document,
 * so a missing slot means the document was replaced; a different focused element means focus
 * moved. Values never leave the page: reads return lengths and a match flag only.
 *
 * ops:
 *  - "prepare": find the editable target (the element, its label's control, or one editable
 *    descendant), classify it and store it; "focus" focuses it (after the page is pinned).
 *  - "active": the same for the element that has focus (keyboard, press).
 *  - "pin": remember the focused element; "check": is the slot and the focus unchanged?
 *  - "select": select all of the target's content; "caretEnd": caret to the end.
 *  - "setValue": value controls (date, color, range…) through the native setter plus events.
 *  - "read": the target's length now and whether it holds what was expected.
 *  - "state": focus and control state of the focused element, for press effects.
 */
export const EDIT_SOURCE = String.raw`(function edit(win, el, arg) {
  var KEY = Symbol.for("browser-pilot.edit.v1");
  var doc = win.document;
  var TEXTY = /^(text|search|email|url|tel|password|number|)$/;
  var VALUE_CONTROLS = /^(date|time|datetime-local|month|week|color|range)$/;
  function deepActive() {
    var a = doc.activeElement;
    for (var i = 0; a && i < 64; i++) {
      var inner = null;
      if (a.shadowRoot && a.shadowRoot.activeElement) inner = a.shadowRoot.activeElement;
      else if (a.localName === "iframe" || a.localName === "frame") { try { inner = a.contentDocument && a.contentDocument.activeElement; } catch (e) { inner = null; } }
      if (!inner || inner === a) break;
      a = inner;
    }
    return a || null;
  }
  function composedContains(a, b) {
    for (var n = b, i = 0; n && i < 4096; i++) {
      if (n === a) return true;
      n = n.parentNode ? (n.parentNode.nodeType === 11 ? n.parentNode.host : n.parentNode) : null;
    }
    return false;
  }
  function classify(t) {
    if (!t || t.nodeType !== 1) return { kind: "unsupported", mode: "none" };
    var tag = t.localName, type = String(t.type || "").toLowerCase();
    var ac = String((t.getAttribute && t.getAttribute("autocomplete")) || "").toLowerCase();
    var sensitive = (tag === "input" && type === "password") || /password|one-time-code/.test(ac);
    if (tag === "textarea") return { kind: "input", mode: "text", sensitive: sensitive, singleLine: false };
    if (tag === "input" && TEXTY.test(type)) return { kind: "input", mode: "text", sensitive: sensitive, singleLine: true, trims: type === "email" || type === "url" };
    if (tag === "input" && VALUE_CONTROLS.test(type)) return { kind: "input", mode: "setter", sensitive: false, singleLine: true };
    if (t.isContentEditable) return { kind: "contenteditable", mode: "editable", sensitive: sensitive };
    return { kind: "unsupported", mode: "none", sensitive: sensitive };
  }
  function editTarget(e) {
    if (!e) return null;
    if (classify(e).mode !== "none") return e;
    try { if (e.localName === "label" && e.control && classify(e.control).mode !== "none") return e.control; } catch (x) {}
    var found = e.querySelectorAll ? e.querySelectorAll("input, textarea, [contenteditable]") : [];
    for (var i = 0; i < found.length; i++) if (classify(found[i]).mode !== "none") return found[i];
    return null;
  }
  function text(t) { return t.localName === "input" || t.localName === "textarea" ? String(t.value) : String(t.textContent || ""); }
  function squash(s) { return String(s).replace(/\s+/g, ""); }
  function isFocused(t) { var a = deepActive(); return !!a && (a === t || composedContains(t, a)); }
  function describe(t, c) {
    var out = { kind: c.kind, mode: c.mode, sensitive: !!c.sensitive, length: t && c.mode !== "none" ? text(t).length : 0, focused: !!t && isFocused(t) };
    if (t) {
      try {
        out.disabled = t.disabled === true || t.getAttribute("aria-disabled") === "true" || !!(t.closest && t.closest("[inert], fieldset[disabled]"));
        out.readOnly = t.readOnly === true || t.getAttribute("aria-readonly") === "true";
        out.tag = String(t.localName).slice(0, 40);
      } catch (x) {}
    }
    return out;
  }
  function slot() { var s = win[KEY]; return s && s.token === arg.token ? s : null; }
  function selectAll(t) {
    if (t.localName === "input" || t.localName === "textarea") { try { t.select(); return true; } catch (x) { return false; } }
    var sel = (t.getRootNode && t.getRootNode().getSelection) ? t.getRootNode().getSelection() : t.ownerDocument.defaultView.getSelection();
    var r = t.ownerDocument.createRange(); r.selectNodeContents(t); sel.removeAllRanges(); sel.addRange(r); return true;
  }
  function caretEnd(t) {
    if (t.localName === "input" || t.localName === "textarea") {
      try { var n = String(t.value).length; t.setSelectionRange(n, n); return true; } catch (x) { return false; }
    }
    var sel = t.ownerDocument.defaultView.getSelection();
    var r = t.ownerDocument.createRange(); r.selectNodeContents(t); r.collapse(false); sel.removeAllRanges(); sel.addRange(r); return true;
  }
  function selection(t) {
    try { if (t && (t.localName === "input" || t.localName === "textarea")) return t.selectionStart + ":" + t.selectionEnd; } catch (x) {}
    try { var s = win.getSelection(); return s.rangeCount + ":" + String(s).length; } catch (x) { return ""; }
  }
  function controlState(t) {
    var s = {};
    if (!t || t.nodeType !== 1) return s;
    try {
      if (t.localName === "input" && (t.type === "checkbox" || t.type === "radio")) s.checked = !!t.checked;
      else if (t.getAttribute("aria-checked") !== null) s.checked = t.getAttribute("aria-checked");
      if (t.getAttribute("aria-expanded") !== null) s.expanded = t.getAttribute("aria-expanded");
      if (t.getAttribute("aria-selected") !== null) s.selected = t.getAttribute("aria-selected");
      if (t.getAttribute("aria-pressed") !== null) s.pressed = t.getAttribute("aria-pressed");
      if (t.localName === "select") s.value = String(t.value).slice(0, 200);
    } catch (x) {}
    return s;
  }

  if (arg.op === "prepare" || arg.op === "active") {
    var active = deepActive();
    var t = arg.op === "prepare" ? editTarget(el) : active;
    if (arg.op === "prepare" && !t) return { ok: false, reason: el && el.isConnected ? "not_editable" : "detached", tag: el ? String(el.localName) : "" };
    var c = classify(t);
    win[KEY] = { token: arg.token, target: t, pinned: active, before: t && c.mode !== "none" ? text(t) : "" };
    var d = describe(t, c); d.ok = true; d.selection = selection(t); d.control = controlState(t);
    return d;
  }
  var s = slot();
  if (!s) return { ok: false, reason: "document_replaced" };
  if (arg.op === "focus") { if (s.target && !isFocused(s.target)) { try { s.target.focus(); } catch (x) {} } return { ok: true, focused: !!s.target && isFocused(s.target) }; }
  if (arg.op === "pin") { s.pinned = deepActive(); return { ok: true, focused: !!s.target && isFocused(s.target) }; }
  if (arg.op === "check") {
    if (!s.target || (s.target !== s.pinned && !s.target.isConnected)) return { ok: false, reason: "target_detached" };
    return deepActive() === s.pinned ? { ok: true } : { ok: false, reason: "focus_changed" };
  }
  var tg = s.target;
  if (arg.op === "select") return { ok: !!tg && selectAll(tg) };
  if (arg.op === "caretEnd") return { ok: !!tg && caretEnd(tg) };
  if (arg.op === "setValue") {
    var proto = Object.getPrototypeOf(tg), desc = null;
    for (var p = proto; p && !desc; p = Object.getPrototypeOf(p)) desc = Object.getOwnPropertyDescriptor(p, "value");
    if (desc && desc.set) desc.set.call(tg, arg.value); else tg.value = arg.value;
    tg.dispatchEvent(new win.Event("input", { bubbles: true, composed: true }));
    tg.dispatchEvent(new win.Event("change", { bubbles: true }));
    return { ok: true };
  }
  if (arg.op === "read") {
    // "replace": exactly the text; "append": what was there before plus the text; "contains".
    var cls = classify(tg), now = tg && cls.mode !== "none" ? text(tg) : "";
    var want = arg.mode === "append" ? s.before + String(arg.text) : String(arg.text);
    if (cls.singleLine) want = want.replace(/[\r\n]/g, "");
    if (cls.trims) want = want.trim();
    var matched;
    if (cls.mode === "editable") matched = arg.mode === "contains" ? squash(now).indexOf(squash(want)) >= 0 : squash(now) === squash(want);
    else matched = arg.mode === "contains" ? now.indexOf(want) >= 0 : now === want;
    return { ok: true, connected: !!tg && tg.isConnected, length: now.length, expectedLength: arg.mode === "contains" ? s.before.length + want.length : want.length, matched: matched, readable: cls.mode !== "none", focused: !!tg && isFocused(tg) };
  }
  if (arg.op === "state") {
    var now2 = deepActive();
    return { ok: true, sameFocus: now2 === s.pinned, length: tg && classify(tg).mode !== "none" ? text(tg).length : 0, selection: selection(tg), control: controlState(tg), focusControl: controlState(now2) };
  }
  return { ok: false, reason: "unknown_op" };
})`;
