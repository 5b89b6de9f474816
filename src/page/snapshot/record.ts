/**
 * Candidate records and the element facts they need: fold shape, login forms, labels standing in for hidden controls.
 */
import type { Box, PageElement, PageNode } from "../types.ts";
import { byId } from "./names.ts";
import { attr, bound, lower } from "./text.ts";
import type { Ctx, Rec, Run } from "./types.ts";

// Reads a neighbour's tag: that neighbour may be the hostile one, so never let it throw.
export function parentTag(n: PageNode): string {
  try {
    const p = n.parentNode;
    return p ? (p.nodeType === 1 ? lower((p as PageElement).localName) : `#${p.nodeType}`) : "";
  } catch {
    return "?";
  }
}

// Fold shape: the tags of three ancestors (a bounded, constant-cost look upwards).
export function shape(el: PageNode): string {
  let out = "";
  let n: PageNode | null = el;
  for (let i = 0; i < 3 && n; i++) {
    out += `${parentTag(n)}>`;
    n = n.parentNode;
  }
  return out;
}

export function newRec(run: Run, el: PageElement, role: string, ctx: Ctx, tag: string, box: Box, inVp: boolean): Rec {
  return {
    el,
    kind: "element",
    role,
    fixedName: null,
    fallbackName: "",
    contentName: !run.T.NO_CONTENT_NAME[role],
    contentValue: false,
    buf: "",
    value: null,
    valueLength: 0,
    sensitive: false,
    checked: null,
    selected: null,
    pressed: null,
    expanded: null,
    disabled: false,
    required: false,
    readonly: false,
    focused: el === run.focusedEl,
    frame: ctx.frame,
    via: null,
    dom: false,
    box,
    inVp,
    key: `${role}|${tag}|${shape(el)}|${ctx.frame}`,
    modal: ctx.modal,
    filter: ctx.filter,
    listbox: ctx.listbox,
    loginForm: false,
    password: false,
    desc: "",
    autocomplete: false,
    ref: 0,
    name: "",
    src: "",
    reason: "unreachable",
    offset: { x: 0, y: 0 },
  };
}

export function isLoginForm(run: Run, form: PageElement | null | undefined): boolean {
  if (!form) return false;
  const known = run.loginForms.get(form);
  if (known !== undefined) return known;
  const s =
    (attr(form, "id") || "") +
    " " +
    (attr(form, "name") || "") +
    " " +
    (attr(form, "action") || "") +
    " " +
    (attr(form, "class") || "") +
    " " +
    (attr(form, "aria-label") || "");
  const v = run.T.LOGIN_RE.test(bound(s, 1024));
  run.loginForms.set(form, v);
  return v;
}

// Is a control rendered? Used to decide whether a label stands in for a hidden checkbox.
export function renderedControl(run: Run, c: PageElement, ctx: Ctx): boolean {
  const st = ctx.view.getComputedStyle(c);
  if (st.display === "none" || (st.visibility && st.visibility !== "visible") || st.opacity === "0") return false;
  if (!run.LAYOUT) return !c.hasAttribute("hidden");
  const r = c.getBoundingClientRect();
  return r.width > 1 || r.height > 1;
}

export function labelControl(label: PageElement, ctx: Ctx): PageElement | null {
  if (label.control !== undefined) return label.control || null;
  const f = attr(label, "for");
  if (f) return byId(ctx.roots, f);
  return label.querySelector("input,select,textarea,button");
}
