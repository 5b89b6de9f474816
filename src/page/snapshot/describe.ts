/**
 * Fills a candidate's name sources, value and states (its own, or those of the control a promoted label stands in for).
 */
import type { PageElement } from "../types.ts";
import { labelledBy, labelsFor, textOf } from "./names.ts";
import { isLoginForm, parentTag } from "./record.ts";
import { inputType, isButtonType } from "./roles.ts";
import { bound, collapse, lower, readAttrs } from "./text.ts";
import type { Attrs, Ctx, Rec, Run } from "./types.ts";

export function describe(
  run: Run,
  rec: Rec,
  el: PageElement,
  A: Attrs,
  tag: string,
  ctx: Ctx,
  ctrl: PageElement,
): void {
  const T = run.T;
  const role = rec.role;
  const ctag = ctrl === el ? tag : lower(ctrl.localName);
  const C = ctrl === el ? A : readAttrs(ctrl, run.NO_ATTRS);
  const lb = A["aria-labelledby"] ? labelledBy(run, el, ctx.roots) : null;
  const al = A["aria-label"];
  if (lb) rec.fixedName = lb;
  else if (al && al.trim()) rec.fixedName = al;
  const itype = ctag === "input" ? inputType(C) : "";

  if (!rec.fixedName && ctrl === el && T.LABELABLE[tag] && tag !== "button") {
    let text = "";
    const id = A.id;
    if (id) {
      const ls = labelsFor(run, ctx.roots.root, id);
      for (let i = 0; i < ls.length && i < 4; i++) {
        const l = ls[i];
        if (l) text += ` ${textOf(run, l, el)}`;
      }
    }
    if (ctx.label && !ctx.label.hasAttribute("for")) text += ` ${textOf(run, ctx.label, el)}`;
    text = collapse(text);
    if (text) rec.fixedName = text;
  }
  if (!rec.fixedName) {
    if (tag === "input" && (itype === "submit" || itype === "reset" || itype === "button")) {
      const v = A.value;
      rec.fixedName =
        v !== undefined ? bound(v, run.BUF_CAP) : itype === "submit" ? "Submit" : itype === "reset" ? "Reset" : "";
    } else if (tag === "input" && itype === "image") {
      rec.fixedName = A.alt || A.value || "Submit";
    } else if (tag === "img" || tag === "area") {
      const alt = A.alt;
      if (alt) rec.fixedName = alt;
    }
  }
  rec.fallbackName = A.title || A.placeholder || A["aria-placeholder"] || "";
  if (tag === "input" && itype === "file") rec.contentName = false;

  if (ctag === "input" && ctrl === el) {
    if (itype !== "checkbox" && itype !== "radio" && !isButtonType(itype)) {
      const v = typeof el.value === "string" ? el.value : "";
      const ac = lower(A.autocomplete);
      const sensitive =
        itype === "password" ||
        ac.indexOf("cc-number") >= 0 ||
        ac.indexOf("cc-csc") >= 0 ||
        ac.indexOf("one-time-code") >= 0 ||
        ac.indexOf("password") >= 0;
      if (sensitive) {
        rec.sensitive = true;
        rec.valueLength = v.length;
      } else if (v) rec.value = v;
      if (itype === "password") rec.password = true;
    }
  } else if (ctag === "textarea") {
    const v = typeof el.value === "string" ? el.value : "";
    if (v) rec.value = v;
  } else if (ctag === "select") {
    const opts = el.options;
    let v = "";
    if (opts) {
      for (let i = 0, n = 0; i < opts.length && n < 8; i++) {
        const op = opts[i];
        if (op && op.selected) {
          v += (n++ ? ", " : "") + (typeof op.text === "string" ? op.text : "");
        }
      }
    }
    v = collapse(v);
    if (v) rec.value = v;
  } else if (ctrl === el) {
    const vt = A["aria-valuetext"] || A["aria-valuenow"];
    if (vt && (role === "slider" || role === "spinbutton" || role === "progressbar" || role === "scrollbar")) {
      rec.value = vt;
    } else if (T.TEXTISH[role]) {
      rec.contentValue = true;
      rec.contentName = false;
    }
  }

  if (T.CHECKABLE[role]) {
    if (ctag === "input" && (itype === "checkbox" || itype === "radio")) {
      rec.checked = ctrl.indeterminate ? "mixed" : !!ctrl.checked;
    } else {
      const ac = C["aria-checked"];
      rec.checked = ac === "mixed" ? "mixed" : ac === "true";
    }
  }
  if (T.SELECTABLE[role]) {
    const s = A["aria-selected"];
    if (s !== undefined) rec.selected = s === "true";
  }
  const pr = A["aria-pressed"];
  if (pr !== undefined && pr !== "undefined") rec.pressed = pr === "mixed" ? "mixed" : pr === "true";
  const ex = A["aria-expanded"];
  if (ex !== undefined && ex !== "undefined") rec.expanded = ex === "true";
  else if (tag === "summary" && parentTag(el) === "details") rec.expanded = ctx.detailsOpen;
  const formCtl = ctag === "button" || ctag === "input" || ctag === "select" || ctag === "textarea";
  rec.disabled =
    (formCtl && (C.disabled !== undefined || ctx.fsDisabled)) ||
    ctx.ariaDisabled ||
    A["aria-disabled"] === "true" ||
    C["aria-disabled"] === "true";
  rec.required = (formCtl && C.required !== undefined) || C["aria-required"] === "true";
  rec.readonly =
    !!T.TEXTISH[role] &&
    (((ctag === "input" || ctag === "textarea") && C.readonly !== undefined) || C["aria-readonly"] === "true");
  if (role === "combobox") {
    const aa = A["aria-autocomplete"];
    rec.autocomplete = A.list !== undefined || (aa !== undefined && aa !== "none");
  }
  if (ctag === "input") rec.loginForm = isLoginForm(run, ctrl.form);
}
