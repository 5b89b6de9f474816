/**
 * Hands an element's children to the walk: their inherited context (new only when a fact changes) and composed-tree
 * children.
 */
import type { PageElement, PageShadowRoot } from "../types.ts";
import { parentTag } from "./record.ts";
import { inter, lower } from "./text.ts";
import type { Clip, Ctx, Run, Seen } from "./types.ts";
import { pushChildren, pushList, pushNode } from "./stack.ts";

export function descend(run: Run, s: Seen, ctx: Ctx, depth: number): void {
  const el = s.el;
  const tag = s.tag;
  const A = s.A;
  const rect = s.rect;
  const clip = s.clip;
  const vp = s.vp;
  let cclip = clip;
  let cvp = vp;
  if (s.clips && rect) {
    const ovx = s.ovx;
    const ovy = s.ovy;
    const L = rect.left + ctx.fx;
    const T = rect.top + ctx.fy;
    const own: Clip = { l: L, t: T, r: L + rect.width, b: T + rect.height };
    const hx = ovx === "hidden" || ovx === "clip";
    const hy = ovy === "hidden" || ovy === "clip";
    if (hx || hy) {
      cclip = inter(clip, {
        l: hx ? own.l : -Infinity,
        t: hy ? own.t : -Infinity,
        r: hx ? own.r : Infinity,
        b: hy ? own.b : Infinity,
      });
    }
    const vx = ovx && ovx !== "visible";
    const vy = ovy && ovy !== "visible";
    cvp = inter(vp, {
      l: vx ? own.l : -Infinity,
      t: vy ? own.t : -Infinity,
      r: vx ? own.r : Infinity,
      b: vy ? own.b : Infinity,
    });
  }
  const positioned = s.position && s.position !== "static";
  let fsDisabled = ctx.fsDisabled;
  if (tag === "fieldset" && A.disabled !== undefined) fsDisabled = true;
  if (tag === "legend" && fsDisabled && parentTag(el) === "fieldset") fsDisabled = false;
  if (run.T.NO_CHILDREN[tag]) return;
  const sr = el.shadowRoot as PageShadowRoot | null;
  if (!sr && el.firstChild === null && tag !== "slot") return;
  // content-visibility:hidden renders none of the content; read only where there are children (style reads are costly).
  if (s.st.contentVisibility === "hidden") return;

  const posClip = positioned ? cclip : ctx.posClip;
  const posVp = positioned ? cvp : ctx.posVp;
  const ariaDisabled = ctx.ariaDisabled || A["aria-disabled"] === "true";
  const label = tag === "label" ? el : ctx.label;
  const inCand = ctx.inCand || s.rec !== null;
  const cBlocked = el === run.topModal ? false : ctx.blocked;
  const detailsOpen = tag === "details" ? A.open !== undefined : ctx.detailsOpen;
  let c: Ctx = ctx;
  if (
    cclip !== ctx.clip ||
    cvp !== ctx.vp ||
    posClip !== ctx.posClip ||
    posVp !== ctx.posVp ||
    s.vis !== ctx.vis ||
    s.transparent !== ctx.transparent ||
    fsDisabled !== ctx.fsDisabled ||
    ariaDisabled !== ctx.ariaDisabled ||
    s.editable !== ctx.editable ||
    label !== ctx.label ||
    s.pointer !== ctx.pointer ||
    inCand !== ctx.inCand ||
    s.mute !== ctx.mute ||
    s.modal !== ctx.modal ||
    s.filter !== ctx.filter ||
    s.listbox !== ctx.listbox ||
    cBlocked !== ctx.blocked ||
    detailsOpen !== ctx.detailsOpen ||
    sr
  ) {
    c = {
      doc: ctx.doc,
      view: ctx.view,
      roots: sr ? { root: sr, up: ctx.roots } : ctx.roots,
      frame: ctx.frame,
      fx: ctx.fx,
      fy: ctx.fy,
      fsx: ctx.fsx,
      fsy: ctx.fsy,
      clip: cclip,
      vp: cvp,
      posClip,
      posVp,
      fixClip: ctx.fixClip,
      fixVp: ctx.fixVp,
      vis: s.vis,
      transparent: s.transparent,
      fsDisabled,
      ariaDisabled,
      editable: s.editable,
      label,
      pointer: s.pointer,
      inCand,
      mute: s.mute,
      modal: s.modal,
      filter: s.filter,
      listbox: s.listbox,
      blocked: cBlocked,
      detailsOpen,
    };
  }
  pushKids(run, el, tag, A.open !== undefined, sr, ctx, c, depth + 1);
}

export function pushKids(
  run: Run,
  el: PageElement,
  tag: string,
  open: boolean,
  sr: PageShadowRoot | null,
  ctx: Ctx,
  c: Ctx,
  d: number,
): void {
  if (sr) {
    pushChildren(run, sr, c, d);
    return;
  }
  if (tag === "slot" && typeof el.assignedNodes === "function") {
    const assigned = el.assignedNodes();
    if (assigned.length) {
      // Slotted nodes belong to the host's tree scope for id and label lookups.
      const up = ctx.roots.up;
      pushList(run, assigned, up ? { ...c, roots: up } : c, d);
      return;
    }
  }
  if (tag === "details" && !open) {
    // Closed details render only their first summary.
    for (let k = el.firstChild; k; k = k.nextSibling) {
      if (k.nodeType === 1 && lower((k as PageElement).localName) === "summary") {
        pushNode(run, k, c, d);
        break;
      }
    }
    return;
  }
  pushChildren(run, el, c, d);
}
