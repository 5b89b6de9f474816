/**
 * Page-side file input handling for `bp upload`, run in our isolated world as
 * `(UPLOAD_SOURCE)(win, el, arg)`. "find" locates the file input behind a ref (the input, its
 * label's control, or one inside a drop zone) and keeps it in our world's target slot, so the
 * broker can hand that node to DOM.setFileInputFiles; "files" reads back what it holds (names
 * only: the page sees nothing but the file name either).
 */
export const UPLOAD_SOURCE = String.raw`(function upload(win, el, arg) {
  var SLOT = Symbol.for("browser-pilot.target.v1");
  function isFile(e) { return !!e && e.localName === "input" && String(e.type).toLowerCase() === "file"; }
  if (arg.op === "find") {
    if (!el || !el.isConnected) return { ok: false, reason: "detached" };
    var input = isFile(el) ? el : null;
    try { if (!input && el.localName === "label" && isFile(el.control)) input = el.control; } catch (x) {}
    if (!input && el.querySelectorAll) { var all = el.querySelectorAll("input[type=file]"); if (all.length === 1) input = all[0]; }
    if (!input) return { ok: false, reason: "not_file_input", tag: String(el.localName) };
    win[SLOT] = { el: input };
    var disabled = input.disabled === true || !!(input.closest && input.closest("fieldset[disabled], [inert]"));
    return { ok: true, multiple: !!input.multiple, disabled: disabled, accept: String(input.accept || "").slice(0, 200) };
  }
  if (arg.op === "files") {
    var s = win[SLOT], t = s && s.el;
    if (!t || !t.isConnected) return { ok: false, reason: "target_unavailable" };
    var names = [];
    for (var i = 0; t.files && i < t.files.length && i < 20; i++) names.push(String(t.files[i].name));
    return { ok: true, count: t.files ? t.files.length : 0, names: names };
  }
  return { ok: false, reason: "unknown_op" };
})`;
