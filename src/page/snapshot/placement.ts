/**
 * Where an element sits: clipping (positioned boxes escape non-containing ancestors), visibility, shown and in
 * viewport.
 */
import { boxOf } from "./text.ts";
import type { Ctx, Run, Seen } from "./types.ts";

export function seePlacement(run: Run, s: Seen, ctx: Ctx): void {
  const el = s.el;
  const tag = s.tag;
  const st = s.st;
  const display = s.display;
  let ovx = "visible";
  let ovy = "visible";
  if (
    run.LAYOUT &&
    tag !== "html" &&
    tag !== "body" &&
    display !== "inline" &&
    display !== "contents" &&
    display !== "table-row" &&
    display !== "table-row-group"
  ) {
    const ov = st.overflow;
    if (ov === "visible") {
      /* the common case: one read */
    } else if (ov) {
      const sp = ov.indexOf(" ");
      ovx = sp < 0 ? ov : ov.slice(0, sp);
      ovy = sp < 0 ? ov : ov.slice(sp + 1);
    } else {
      ovx = st.overflowX || "visible";
      ovy = st.overflowY || "visible";
    }
  }
  s.ovx = ovx;
  s.ovy = ovy;
  const clips = ovx !== "visible" || ovy !== "visible";
  s.clips = clips;
  // Positioned boxes escape non-containing ancestors' clips: position is read only where a clip is active.
  const position = clips || ctx.clip !== ctx.fixClip || ctx.vp !== ctx.fixVp ? st.position : "";
  s.position = position;
  if (position === "fixed") {
    s.clip = ctx.fixClip;
    s.vp = ctx.fixVp;
  } else if (position === "absolute") {
    s.clip = ctx.posClip;
    s.vp = ctx.posVp;
  }
  const eRole = s.eRole;
  const isFrame = tag === "iframe" || tag === "frame";
  s.isFrame = isFrame;
  const dialogish =
    tag === "dialog" ||
    eRole === "dialog" ||
    eRole === "alertdialog" ||
    eRole === "listbox" ||
    s.A["aria-modal"] !== undefined;
  const visibility = s.role !== null || ctx.inCand || isFrame || dialogish || el === run.overlayEl ? st.visibility : "";
  const vis = visibility ? visibility === "visible" : ctx.vis;
  s.vis = vis;

  if (run.LAYOUT && (s.role !== null || clips || isFrame)) s.rect = el.getBoundingClientRect();
  s.shown = vis && !s.transparent && !s.blocked;
  if (s.shown && s.rect) placeBox(s, ctx);
}

/** Decides `shown`, `inVp` and `box` from a shown element's rect. */
export function placeBox(s: Seen, ctx: Ctx): void {
  let r = s.rect;
  if (!r) return;
  if ((r.width <= 1 && r.height <= 1) || r.width === 0 || r.height === 0) {
    // An inline wrapper around a block child reports an empty box; use the child's.
    const fc = s.el.firstElementChild;
    const fr = fc ? fc.getBoundingClientRect() : null;
    if (fr && fr.width > 1 && fr.height > 1) r = fr;
  }
  const w = r.width;
  const h = r.height;
  const clip = s.clip;
  const vp = s.vp;
  if (w === 0 || h === 0 || (w <= 1 && h <= 1)) s.shown = false;
  else if (r.left + w + ctx.fsx <= 0 || r.top + h + ctx.fsy <= 0) s.shown = false;
  else {
    const L = r.left + ctx.fx;
    const T = r.top + ctx.fy;
    if (L + w <= clip.l || L >= clip.r || T + h <= clip.t || T >= clip.b) s.shown = false;
    s.inVp = !(L + w <= vp.l || L >= vp.r || T + h <= vp.t || T >= vp.b);
    s.box = boxOf(r, ctx);
  }
}
