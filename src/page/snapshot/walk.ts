/**
 * One linear pass over the composed tree with an explicit stack: no native recursion, and a hostile element can be
 * undone.
 */
import type { PageElement, PageNode, PageText } from "../types.ts";
import { appendText, finishRec } from "./names.ts";
import type { Clip, Ctx, Rec, Run } from "./types.ts";
import { pushChildren, pushNode } from "./stack.ts";
import { visitElement } from "./visit.ts";

export function rootContext(run: Run): Ctx {
  const page = run.page;
  const rootClip: Clip = { l: 0, t: 0, r: page.viewportWidth || Infinity, b: page.viewportHeight || Infinity };
  return {
    doc: run.topDoc,
    view: run.win,
    roots: { root: run.topDoc, up: null },
    frame: "",
    fx: 0,
    fy: 0,
    fsx: page.scrollX,
    fsy: page.scrollY,
    clip: run.NOCLIP,
    vp: rootClip,
    posClip: run.NOCLIP,
    posVp: rootClip,
    fixClip: run.NOCLIP,
    fixVp: rootClip,
    vis: true,
    transparent: false,
    fsDisabled: false,
    ariaDisabled: false,
    editable: false,
    label: null,
    pointer: false,
    inCand: false,
    mute: 0,
    modal: -1,
    filter: -1,
    listbox: -1,
    blocked: run.topModal !== null,
    detailsOpen: false,
  };
}

export function walkDocument(run: Run): void {
  const sN = run.sN;
  const sC = run.sC;
  const sD = run.sD;
  const candStack = run.candStack;
  const rootCtx = rootContext(run);
  if (run.de) pushNode(run, run.de, rootCtx, 0);

  while (sN.length) {
    const item = sN.pop() as PageNode | Rec;
    const ctx = sC.pop();
    const depth = sD.pop() as number;
    if (!ctx) {
      finishRec(run, item as Rec);
      candStack.pop();
      continue;
    }
    if (++run.visited > run.WORK) {
      run.workHit = true;
      run.visited--;
      break;
    }
    const node = item as PageNode;
    let type = 0;
    try {
      type = node.nodeType;
    } catch {
      run.errors++;
      continue;
    }
    if (type === 3) {
      if (ctx.vis && !ctx.transparent && candStack.length > ctx.mute) {
        try {
          appendText(run, ctx, (node as PageText).data);
        } catch {
          run.errors++;
        }
      }
      continue;
    }
    if (type !== 1) continue;
    const mark = sN.length;
    const recMark = run.recs.length;
    const candMark = candStack.length;
    try {
      visitElement(run, node as PageElement, ctx, depth);
    } catch {
      // One hostile element must not break the snapshot: undo what it pushed, then walk its children with the parent's
      // context.
      run.errors++;
      sN.length = mark;
      sC.length = mark;
      sD.length = mark;
      run.recs.length = recMark;
      candStack.length = candMark;
      try {
        pushChildren(run, node, ctx, depth + 1);
      } catch {
        /* children unreachable */
      }
    }
  }
  // Work limit: close what is still open with the text gathered so far.
  while (candStack.length) finishRec(run, candStack.pop() as Rec);
}
