/**
 * The visit of one element during the walk: candidacy and placement, scopes, text for open candidates, its record, its
 * children.
 */
import type { PageElement } from "../types.ts";
import { seeCandidacy } from "./candidacy.ts";
import { descend } from "./descend.ts";
import { describe } from "./describe.ts";
import { frameRoot } from "./frame.ts";
import { appendText } from "./names.ts";
import { seePlacement } from "./placement.ts";
import { styleOf } from "./styles.ts";
import { newRec } from "./record.ts";
import { explicitRole } from "./roles.ts";
import { bound, lower, readAttrs } from "./text.ts";
import type { Ctx, Run, Seen } from "./types.ts";

export function visitElement(run: Run, el: PageElement, ctx: Ctx, depth: number): void {
  const tag = lower(el.localName);
  if (run.T.SKIP_TAGS[tag]) return;
  const A = readAttrs(el, run.NO_ATTRS);
  if (A.inert !== undefined || A["aria-hidden"] === "true") return;
  if (!run.LAYOUT && A.hidden !== undefined) return;
  if (depth >= run.DEPTH) {
    run.depthHit = true;
    return;
  }
  // Every computed-style read costs on every element, so each reads only what it can need (display, opacity, cursor
  // outside candidates; overflow, position, visibility only where they matter).
  const st = styleOf(ctx.view, el);
  const display = st.display;
  if (display === "none") return;
  const s: Seen = {
    el,
    tag,
    A,
    st,
    display,
    transparent: ctx.transparent || st.opacity === "0",
    pointer: !ctx.inCand && st.cursor === "pointer",
    blocked: ctx.blocked && el !== run.topModal,
    eRole: A.role !== undefined ? explicitRole(A) : null,
    editable: ctx.editable,
    role: null,
    dom: false,
    via: null,
    ctrl: el,
    ovx: "visible",
    ovy: "visible",
    clips: false,
    position: "",
    clip: ctx.clip,
    vp: ctx.vp,
    isFrame: false,
    vis: ctx.vis,
    rect: null,
    box: run.ZBOX,
    inVp: true,
    shown: false,
    modal: ctx.modal,
    filter: ctx.filter,
    listbox: ctx.listbox,
    mute: ctx.mute,
    rec: null,
  };
  seeCandidacy(run, s, ctx);
  seePlacement(run, s, ctx);
  if (s.isFrame) {
    if (s.shown) frameRoot(run, el, ctx, depth, s.rect, s.box, s.inVp);
    return;
  }
  openScopes(run, s);
  const before = run.candStack.length;
  contributeText(run, s, ctx, before);
  openCandidate(run, s, ctx, before);
  descend(run, s, ctx, depth);
}

/** Modal scopes, filter containers and listboxes that this element opens for its subtree. */
export function openScopes(run: Run, s: Seen): void {
  const el = s.el;
  const A = s.A;
  const eRole = s.eRole;
  if (s.vis && !s.transparent && !s.blocked) {
    const ariaModal = A["aria-modal"] === "true";
    const dialogRole = eRole === "dialog" || eRole === "alertdialog";
    let isModal = false;
    let blocking = false;
    if (s.tag === "dialog" && A.open !== undefined) {
      isModal = true;
      blocking = el === run.topModal || ariaModal;
    } else if (dialogRole) {
      isModal = true;
      blocking = ariaModal;
    } else if (ariaModal) {
      isModal = true;
      blocking = true;
    } else if (el === run.overlayEl) {
      isModal = true;
    }
    if (isModal) {
      run.modals.push({ blocking, refs: [], recs: [] });
      s.modal = run.modals.length - 1;
    }
  }
  // Without any of the five attributes the tested text is blank and cannot match.
  if (
    s.filter < 0 &&
    (A.id || A.class || A["aria-label"] || A["data-testid"] || A.name) &&
    run.T.FILTER_RE.test(
      bound(A.id || "", 256) +
        " " +
        bound(A.class || "", 512) +
        " " +
        bound(A["aria-label"] || "", 256) +
        " " +
        bound(A["data-testid"] || "", 256) +
        " " +
        bound(A.name || "", 256),
    )
  ) {
    run.filters.push([]);
    s.filter = run.filters.length - 1;
  }
  if (eRole === "listbox" && s.vis && !s.transparent) {
    run.listboxes.push([]);
    s.listbox = run.listboxes.length - 1;
  }
}

/** Text contributions to open candidates (accessible name from content). */
export function contributeText(run: Run, s: Seen, ctx: Ctx, before: number): void {
  if (before <= ctx.mute) return;
  const A = s.A;
  const tag = s.tag;
  const display = s.display;
  const al = A["aria-label"];
  if (s.role === null && al && al.trim()) {
    appendText(run, ctx, ` ${al} `);
    s.mute = before;
  } else if (tag === "img" && s.role === null && s.vis) appendText(run, ctx, ` ${A.alt || ""} `);
  else if (tag === "br") appendText(run, ctx, " ");
  else if (display && display.indexOf("inline") !== 0 && display !== "contents") appendText(run, ctx, " ");
}

/** Opens the element's own record when it is a shown candidate. */
export function openCandidate(run: Run, s: Seen, ctx: Ctx, before: number): void {
  const role = s.role;
  if (role === null || !s.shown) return;
  const rec = newRec(run, s.el, role, ctx, s.tag, s.box, s.inVp);
  rec.modal = s.modal;
  rec.filter = s.filter;
  rec.listbox = s.listbox;
  rec.dom = s.dom;
  rec.via = s.via;
  describe(run, rec, s.el, s.A, s.tag, ctx, s.ctrl);
  if (rec.fixedName !== null && before > ctx.mute) {
    appendText(run, ctx, ` ${rec.fixedName} `);
    s.mute = before;
  }
  run.recs.push(rec);
  run.candStack.push(rec);
  run.sN.push(rec);
  run.sC.push(null);
  run.sD.push(0);
  s.rec = rec;
  if (s.modal >= 0) {
    const m = run.modals[s.modal];
    if (m) m.recs.push(rec);
  }
  if (s.filter >= 0 && run.T.FILTER_CONTROL[role]) {
    const f = run.filters[s.filter];
    if (f) f.push(rec);
  }
  if (s.listbox >= 0) {
    const lb = run.listboxes[s.listbox];
    if (lb) lb.push(rec);
  }
}
