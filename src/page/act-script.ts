/**
 * Page-side checks for actions, run in our isolated world as `(ACT_SOURCE)(win, el, arg)`.
 * Kept as JavaScript source text: it runs in the page, and this project compiles without the
 * DOM library, so typing it would mean re-declaring the DOM. Unit tests run the same text
 * against happy-dom.
 *
 * ops:
 *  - "probe": scroll into view (unless arg.noScroll), then prove the element can take a pointer event: laid out,
 *    visible, enabled, and the topmost element at sampled points (else name the obstruction).
 *  - "state": the observable state an action may change (checked, value length, focus, …).
 *  - "hovered": whether the element is under the pointer now.
 */
export const ACT_SOURCE = String.raw`(function act(win, el, arg) {
  var doc = win.document;
  function describe(n) {
    if (!n || n.nodeType !== 1) return null;
    var out = { tagName: String(n.localName || "").slice(0, 40) };
    try {
      var id = n.getAttribute("id"); if (id) out.id = String(id).slice(0, 80);
      var role = n.getAttribute("role"); if (role) out.role = String(role).slice(0, 40);
      var label = n.getAttribute("aria-label") || n.getAttribute("title") || (n.textContent || "");
      label = String(label).replace(/\s+/g, " ").trim(); if (label) out.name = label.slice(0, 80);
    } catch (e) {}
    return out;
  }
  function composedParent(n) {
    if (n.parentNode) return n.parentNode.nodeType === 11 ? n.parentNode.host : n.parentNode;
    return null;
  }
  function composedContains(a, b) {
    for (var n = b; n; n = composedParent(n)) if (n === a) return true;
    return false;
  }
  function labelFor(n) {
    try { if (n.labels && n.labels.length) return n.labels; } catch (e) {}
    return [];
  }
  function accepts(hit) {
    if (!hit) return false;
    if (composedContains(el, hit)) return true;
    var labels = labelFor(el);
    for (var i = 0; i < labels.length; i++) if (composedContains(labels[i], hit)) return true;
    if (el.localName === "label" && el.control && composedContains(el.control, hit)) return true;
    return false;
  }
  function hitAt(x, y) {
    var root = el.getRootNode ? el.getRootNode() : doc;
    var hit = (root && root.elementFromPoint ? root : el.ownerDocument).elementFromPoint(x, y);
    // Descend through open shadow roots the way the browser's hit test does.
    for (var i = 0; hit && hit.shadowRoot && i < 32; i++) {
      var inner = hit.shadowRoot.elementFromPoint(x, y);
      if (!inner || inner === hit) break;
      hit = inner;
    }
    return hit;
  }
  function frameOffset(d) {
    var x = 0, y = 0;
    try {
      for (var w = d.defaultView, i = 0; w && w.frameElement && i < 32; w = w.parent, i++) {
        var fe = w.frameElement, r = fe.getBoundingClientRect();
        x += r.left + fe.clientLeft; y += r.top + fe.clientTop;
      }
    } catch (e) {}
    return { x: x, y: y };
  }
  function state() {
    var s = { connected: !!el.isConnected };
    // A label standing in for a visually hidden control reports the control's state.
    var target = el;
    try { if (el.localName === "label" && el.control) el = el.control; } catch (e) {}
    try {
      var tag = el.localName, type = String(el.type || "").toLowerCase();
      if (tag === "input" && (type === "checkbox" || type === "radio")) s.checked = el.indeterminate ? "mixed" : !!el.checked;
      else if (el.getAttribute("aria-checked") !== null) s.checked = el.getAttribute("aria-checked");
      if (tag === "option") s.selected = !!el.selected;
      else if (el.getAttribute("aria-selected") !== null) s.selected = el.getAttribute("aria-selected");
      if (el.getAttribute("aria-pressed") !== null) s.pressed = el.getAttribute("aria-pressed");
      if (el.getAttribute("aria-expanded") !== null) s.expanded = el.getAttribute("aria-expanded");
      if (tag === "select") s.value = String(el.value);
      else if ((tag === "input" || tag === "textarea") && typeof el.value === "string") s.valueLength = el.value.length;
      var active = el.ownerDocument.activeElement;
      for (var a = active, i = 0; a && a.shadowRoot && a.shadowRoot.activeElement && i < 32; i++) a = a.shadowRoot.activeElement;
      s.focused = a === el || composedContains(el, a);
      s.kind = tag === "input" && (type === "checkbox" || type === "radio") ? type
        : el.getAttribute("role") === "switch" ? "switch" : tag === "option" ? "option" : tag === "select" ? "select"
        : /^(button|a|input|textarea|summary)$/.test(tag) ? "control" : "other";
    } catch (e) {}
    el = target;
    return s;
  }
  if (arg.op === "state") return state();
  if (arg.op === "hovered") { try { return !!el && el.matches(":hover"); } catch (e) { return false; } }
  if (!el || !el.isConnected) return { ok: false, reason: "detached" };
  if (!arg.noScroll) try { el.scrollIntoView({ block: "center", inline: "center", behavior: "instant" }); } catch (e) {}
  var view = el.ownerDocument.defaultView || win;
  var cs = view.getComputedStyle(el);
  if (cs.display === "none" || cs.visibility === "hidden" || cs.visibility === "collapse") return { ok: false, reason: "not_visible" };
  var disabled = false;
  try {
    disabled = el.disabled === true || el.getAttribute("aria-disabled") === "true" || !!(el.closest && el.closest("[inert]"));
    if (!disabled && el.closest) { var fs = el.closest("fieldset[disabled]"); if (fs) disabled = true; }
  } catch (e) {}
  if (disabled && arg.requireEnabled !== false) return { ok: false, reason: "disabled" };
  var rects = el.getClientRects(), best = null, area = 0;
  var vw = view.innerWidth, vh = view.innerHeight;
  for (var i = 0; i < rects.length; i++) {
    var r = rects[i];
    var l = Math.max(0, r.left), t = Math.max(0, r.top), rr = Math.min(vw, r.right), b = Math.min(vh, r.bottom);
    if (rr - l > 0 && b - t > 0 && (rr - l) * (b - t) > area) { area = (rr - l) * (b - t); best = { l: l, t: t, r: rr, b: b }; }
  }
  if (!best) return { ok: false, reason: rects.length ? "outside_viewport" : "no_layout" };
  var cx = (best.l + best.r) / 2, cy = (best.t + best.b) / 2;
  var w4 = (best.r - best.l) / 4, h4 = (best.b - best.t) / 4;
  var points = [[cx, cy], [cx - w4, cy - h4], [cx + w4, cy - h4], [cx - w4, cy + h4], [cx + w4, cy + h4]];
  var obstruction = null, chosen = null;
  for (var j = 0; j < points.length; j++) {
    var hit = hitAt(points[j][0], points[j][1]);
    if (accepts(hit)) { chosen = points[j]; break; }
    if (!obstruction && hit) obstruction = describe(hit);
  }
  if (!chosen) return { ok: false, reason: "obscured", obstruction: obstruction };
  var off = frameOffset(el.ownerDocument);
  var hidden = false;
  try { hidden = win.document.visibilityState === "hidden"; } catch (e) {}
  return { ok: true, x: chosen[0] + off.x, y: chosen[1] + off.y, state: state(), target: describe(el), hidden: hidden };
})`;

/**
 * DOM-quiet detection around an action. "install" (before dispatch) starts a mutation
 * observer kept on our world's window under `arg.id`, and counts rendered frames. "poll"
 * reports how long the DOM has been quiet, counted from the first poll (less `arg.after`) so a
 * long dispatch (a drag, a key sequence) cannot use up the quiet period; with `finish` it
 * also disconnects. It also counts the animations (CSS transitions, CSS and Web animations)
 * that began since install and are still running with a finite end, so an accordion that
 * opens through a transition is observed open.
 *
 * "settle" (right after dispatch) waits in the page, on its own frames and mutation records,
 * until the DOM is settled, and answers the poll with `settled`:
 *  - nothing changed since the settle began (the action's handlers ran synchronously, inside
 *    the dispatch): `syncQuietFor` ms and at least one rendered frame (and the task after it)
 *    with no mutation, so a timer the action started that steps faster than that is caught;
 *    with `syncQuietFor` 0 (typing), a rendered frame after the last change (its animation-
 *    frame callbacks ran) and the task after it, or a frame since the settle began when the
 *    action changed nothing;
 *  - the page changed on its own after the dispatch (timers, a response, JS animation steps):
 *    `quietFor` ms and `frames` rendered frames without a mutation;
 *  - and in both cases no animation the action began still running.
 * It gives up at `max` ms (`settled` true, `capped` true): an endlessly busy page is observed
 * as it is. A page that renders no frames falls back to time alone. With `finish` the watchers
 * disconnect once settled; with `linger` they stay that many ms (for a settle after the
 * network) and then disconnect on their own. An observer nobody finishes disconnects itself
 * after a minute.
 *
 * "late" waits up to `windowMs` (and as many rendered frames as that window holds, within
 * twice the window) for the first mutation: `{ changed }`.
 */
export const QUIET_SOURCE = String.raw`(function quiet(win, arg) {
  var K = Symbol.for("browser-pilot.quiet.v1"), held = win[K] || (win[K] = {});
  if (arg.op === "install") {
    var t0 = 0;
    try { t0 = Number(win.document.timeline.currentTime) || 0; } catch (e) {}
    var st = { mutations: 0, last: 0, mark: 0, obs: null, t0: t0, frames: 0, mutFrame: 0, wake: null };
    st.obs = new win.MutationObserver(function (list) {
      st.mutations += list.length; st.last = Date.now(); st.mutFrame = st.frames;
      if (st.wake) st.wake();
    });
    // Rendered frames since the last mutation: on a loaded machine timers and frames both run
    // late, so quiet is also counted in frames, not only in milliseconds.
    var tick = function () { st.frames++; if (held[arg.id] === st) win.requestAnimationFrame(tick); if (st.wake) st.wake(); };
    try { win.requestAnimationFrame(tick); } catch (e) {}
    try { st.obs.observe(win.document, { subtree: true, childList: true, attributes: true, characterData: true }); } catch (e) {}
    win.setTimeout(function () { if (held[arg.id] === st) { st.obs.disconnect(); delete held[arg.id]; } }, 60000);
    held[arg.id] = st;
    return true;
  }
  var sts = [];
  (arg.ids || []).forEach(function (id) { if (held[id]) sts.push(held[id]); });
  if (!sts.length) return null;
  function finish() { (arg.ids || []).forEach(function (id) { if (held[id]) { held[id].obs.disconnect(); delete held[id]; } }); }
  // Any later call on these watchers cancels a pending linger.
  sts.forEach(function (s) { s.linger = (s.linger || 0) + 1; });
  // Kept a while for the broker to settle again (a response may land), then gone on its own.
  function linger(ms) {
    (arg.ids || []).forEach(function (id) {
      var s = held[id]; if (!s) return;
      var seq = s.linger;
      win.setTimeout(function () { if (held[id] === s && s.linger === seq) { s.obs.disconnect(); delete held[id]; } }, ms);
    });
  }
  function measure(after) {
    var now = Date.now(), last = 0, m = 0, from = Infinity, framesQuiet = Infinity, rendering = false, frames = 0;
    sts.forEach(function (s) { framesQuiet = Math.min(framesQuiet, s.frames - s.mutFrame); if (s.frames > 0) rendering = true; frames = Math.max(frames, s.frames); });
    sts.forEach(function (s) { if (s.t0 < from) from = s.t0; });
    var animating = 0;
    try {
      var list = win.document.getAnimations ? win.document.getAnimations() : [];
      for (var i = 0; i < list.length && i < 500; i++) {
        var a = list[i];
        if (a.playState !== "running" && a.playState !== "pending") continue;
        if (a.startTime !== null && a.startTime < from - 50) continue;
        var end = a.effect && a.effect.getComputedTiming ? a.effect.getComputedTiming().endTime : Infinity;
        if (typeof end === "number" && isFinite(end)) animating++;
      }
    } catch (e) {}
    sts.forEach(function (s) {
      if (!s.mark) s.mark = now - (after > 0 ? after : 0);
      last = Math.max(last, s.mark, s.last);
      // The earliest observer saw every mutation the later ones did.
      if (s.mutations > m) m = s.mutations;
    });
    return { quietFor: now - last, mutations: m, animating: animating, framesQuiet: rendering ? framesQuiet : -1, frames: frames, last: last };
  }
  function out(p, extra) {
    var r = { quietFor: p.quietFor, mutations: p.mutations, animating: p.animating, framesQuiet: p.framesQuiet };
    for (var k in extra) r[k] = extra[k];
    return r;
  }
  if (arg.op === "late") {
    var m0 = measure(0).mutations, f0 = measure(0).frames, tl = Date.now();
    var frames = Math.round(arg.windowMs / 17);
    return new Promise(function (resolve) {
      var done = false, timer = 0;
      function check() {
        if (done) return;
        var p = measure(0), el = Date.now() - tl;
        var changed = p.mutations > m0;
        var rendered = p.framesQuiet < 0 || p.frames - f0 >= frames;
        if (changed || el >= 2 * arg.windowMs || (el >= arg.windowMs && rendered)) {
          done = true; sts.forEach(function (s) { s.wake = null; }); win.clearTimeout(timer);
          if (!changed || arg.finish) finish();
          resolve({ changed: changed });
        } else { win.clearTimeout(timer); timer = win.setTimeout(check, Math.max(10, arg.windowMs - el)); }
      }
      sts.forEach(function (s) { s.wake = check; });
      check();
    });
  }
  if (arg.op === "settle") {
    var ts = Date.now(), base = measure(arg.after).mutations, fs = measure(0).frames;
    return new Promise(function (resolve) {
      var done = false, timer = 0, pending = false;
      function end(p, extra) {
        done = true; sts.forEach(function (s) { s.wake = null; }); win.clearTimeout(timer);
        if (arg.finish) finish(); else if (arg.linger > 0) linger(arg.linger);
        resolve(out(p, extra));
      }
      function check() {
        pending = false;
        if (done) return;
        var p = measure(0), el = Date.now() - ts;
        var moved = p.mutations > base;
        var ok;
        if (p.animating > 0) ok = false;
        else if (!moved) ok = p.framesQuiet < 0 ? el >= arg.quietFor : arg.syncQuietFor > 0 ? p.frames - fs >= 1 && el >= arg.syncQuietFor : p.mutations > 0 ? p.framesQuiet >= 1 : p.frames - fs >= 1;
        else ok = p.quietFor >= arg.quietFor && (p.framesQuiet < 0 || p.framesQuiet >= arg.frames);
        if (ok) return end(p, { settled: true });
        if (el >= arg.max) return end(p, { settled: true, capped: true });
        // Look again after the next frame's task, or by time when the page renders no frames.
        win.clearTimeout(timer);
        timer = win.setTimeout(check, Math.max(5, Math.min(arg.max - el, moved ? arg.quietFor - p.quietFor : (p.framesQuiet < 0 ? arg.quietFor : arg.syncQuietFor || arg.quietFor) - el)));
      }
      // A frame or a mutation wakes the check; the task after it runs once the frame's own callbacks have.
      var wake = function () { if (!pending && !done) { pending = true; win.setTimeout(check, 0); } };
      sts.forEach(function (s) { s.wake = wake; });
      win.clearTimeout(timer);
      timer = win.setTimeout(check, arg.quietFor);
      // Without a time floor the frame that follows the change may already have run: look once now.
      if (!(arg.syncQuietFor > 0)) wake();
    });
  }
  var p = measure(arg.after);
  if (arg.finish) finish();
  return out(p, {});
})`;
