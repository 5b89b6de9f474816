/**
 * A same-origin iframe's document is walked in place with its own context; any other iframe becomes a placeholder with
 * a ref.
 */
import type { Box, PageDocument, PageElement, PageRect } from "../types.ts";
import { finishRec } from "./names.ts";
import { newRec } from "./record.ts";
import { attr, cut, inter, num0, px } from "./text.ts";
import type { Clip, Ctx, Run } from "./types.ts";
import { pushNode } from "./stack.ts";

export function frameRoot(
  run: Run,
  el: PageElement,
  ctx: Ctx,
  d: number,
  rect: PageRect | null,
  box: Box,
  inVp: boolean,
): void {
  const count = (run.frameCounters.get(ctx.doc) || 0) + 1;
  run.frameCounters.set(ctx.doc, count);
  const path = ctx.frame ? `${ctx.frame}.${count}` : String(count);
  if (run.registry.paths) run.registry.paths.set(path, el);
  let cd: PageDocument | null = null;
  let reachable = false;
  try {
    cd = el.contentDocument || null;
    reachable = !!el.contentWindow;
  } catch {
    cd = null;
  }
  let ox = ctx.fx;
  let oy = ctx.fy;
  if (rect) {
    let pl = 0;
    let pt = 0;
    try {
      const st = ctx.view.getComputedStyle(el);
      pl = px(st.paddingLeft);
      pt = px(st.paddingTop);
    } catch {
      /* keep 0 */
    }
    ox += rect.left + (el.clientLeft || 0) + pl;
    oy += rect.top + (el.clientTop || 0) + pt;
  }
  const cv = cd ? cd.defaultView : null;
  if (cd && cd.documentElement && cv) {
    run.frames++;
    run.registry.frames.set(cd, el);
    const content: Clip = rect
      ? { l: ox, t: oy, r: ox + (el.clientWidth || rect.width), b: oy + (el.clientHeight || rect.height) }
      : run.NOCLIP;
    const vp = inter(ctx.vp, content);
    const c: Ctx = {
      ...ctx,
      doc: cd,
      view: cv,
      roots: { root: cd, up: null },
      frame: path,
      fx: ox,
      fy: oy,
      fsx: num0(cv.scrollX),
      fsy: num0(cv.scrollY),
      clip: run.NOCLIP,
      vp,
      posClip: run.NOCLIP,
      posVp: vp,
      fixClip: run.NOCLIP,
      fixVp: vp,
      fsDisabled: false,
      ariaDisabled: false,
      editable: false,
      label: null,
      pointer: false,
      inCand: false,
      mute: run.candStack.length,
    };
    pushNode(run, cd.documentElement, c, d + 1);
    return;
  }
  const rec = newRec(run, el, "iframe", ctx, "iframe", box, inVp);
  rec.kind = "frame";
  rec.fixedName = attr(el, "title") || attr(el, "aria-label") || attr(el, "name") || "";
  rec.contentName = false;
  rec.src = cut(attr(el, "src") || "", 512);
  rec.reason = reachable ? "cross_origin" : "unreachable";
  rec.frame = path;
  rec.offset = { x: Math.round(ox), y: Math.round(oy) };
  finishRec(run, rec);
  run.recs.push(rec);
}
