/**
 * Is an element a candidate, and with which role? Cheap attribute checks first; computed style only for DOM-only
 * clickables and labels of hidden checkboxes.
 */
import { labelControl, parentTag, renderedControl } from "./record.ts";
import { explicitRole, implicitRole, inputType } from "./roles.ts";
import { lower, readAttrs } from "./text.ts";
import type { Ctx, Run, Seen } from "./types.ts";

/** Sets `role` (null: not a candidate), `dom`, `via`, `ctrl` and `editable` on `s`. */
export function seeCandidacy(run: Run, s: Seen, ctx: Ctx): void {
  const el = s.el;
  const A = s.A;
  const tag = s.tag;
  const eRole = s.eRole;
  const iRole = implicitRole(A, tag);
  let native = false;
  if (tag === "a" || tag === "area") native = A.href !== undefined || A["xlink:href"] !== undefined;
  else if (tag === "button" || tag === "select" || tag === "textarea") native = true;
  else if (tag === "input") native = inputType(A) !== "hidden";
  else if (tag === "summary") native = parentTag(el) === "details";
  const presentational = eRole === "presentation" || eRole === "none" || eRole === "generic";
  // jQuery UI's tab anchor (tabindex=-1, the label its listed tab points at) is part of that tab, not a second ref.
  if (native && A.id && A.tabindex !== undefined && parseInt(A.tabindex, 10) < 0 && ctx.inCand) {
    const top = run.candStack[run.candStack.length - 1];
    const by = top && !top.dom && run.T.INTERACTIVE[top.role] ? top.el.getAttribute("aria-labelledby") : null;
    if (by && by.split(/\s+/).includes(A.id)) native = false;
  }
  const ce = A.contenteditable;
  const editHost = ce !== undefined && lower(ce) !== "false" && !ctx.editable;
  s.editable = ce === undefined ? ctx.editable : lower(ce) !== "false";
  const roleInteractive = !!eRole && !!run.T.INTERACTIVE[eRole];
  const tabindex = A.tabindex;
  const focusable = tabindex !== undefined && parseInt(tabindex, 10) >= 0 && tag !== "body" && tag !== "html";
  // An onclick attribute or a CDP-found click listener; jQuery UI binds `data-handler` elements to their `data-event`
  // (known from markup). A native control inside is the one.
  const dataEvent = lower(A["data-event"] || "");
  const handled =
    A["data-handler"] !== undefined &&
    (dataEvent === "" || dataEvent === "click" || dataEvent === "mousedown" || dataEvent === "mouseup") &&
    !el.querySelector("a[href],button,input,select,textarea");
  const marked = run.listened !== null && run.listened.has(el);
  const onclick = A.onclick !== undefined || handled || marked;
  // An HTML5 draggable says what it is: `bp drag` needs its ref.
  const draggable = lower(A.draggable || "") === "true";
  const semantic = eRole && !presentational ? eRole : iRole;
  if (native || roleInteractive || editHost || focusable) {
    s.role = editHost && semantic === "generic" ? "textbox" : semantic;
  } else if (tag === "label") {
    const c = labelControl(el, ctx);
    if (c) {
      const ct = lower(c.localName);
      const CA = ct === "input" ? readAttrs(c, run.NO_ATTRS) : run.NO_ATTRS;
      const ctype = ct === "input" ? inputType(CA) : "";
      if ((ctype === "checkbox" || ctype === "radio") && !renderedControl(run, c, ctx)) {
        const ce2 = explicitRole(CA);
        s.role = ce2 && run.T.INTERACTIVE[ce2] ? ce2 : ctype;
        s.via = "label";
        s.ctrl = c;
      }
    } else if ((s.pointer && !ctx.pointer) || onclick) {
      s.role = semantic;
      s.dom = true;
    }
  } else if (
    tag !== "body" &&
    tag !== "html" &&
    // A draggable in a listed drop zone, a star icon with its own handler in a clickable row, or an item of a focusable
    // list (jQuery UI's menu) is a control of its own; inside a native control it is part of it.
    ((!ctx.inCand && ((s.pointer && !ctx.pointer && s.st.pointerEvents !== "none") || onclick)) ||
      ((draggable || marked || handled) && (!ctx.inCand || holdsItems(run.candStack[run.candStack.length - 1]))))
  ) {
    s.role = semantic;
    s.dom = true;
  }
}

/** Composite containers whose listened or delegated items are controls of their own. */
const ITEM_HOSTS: Record<string, 1> = {
  list: 1,
  menu: 1,
  menubar: 1,
  listbox: 1,
  tree: 1,
  toolbar: 1,
  tablist: 1,
  radiogroup: 1,
  grid: 1,
};

function holdsItems(rec: Run["candStack"][number] | undefined): boolean {
  return rec !== undefined && (rec.dom || ITEM_HOSTS[rec.role] === 1);
}
