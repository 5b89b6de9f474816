/**
 * The walk's explicit stack (run.sN/sC/sD). Kept apart from the walk itself so the visitors
 * that push children (descend, frame) do not import the walk that calls them.
 */
import type { PageNode } from "../types.ts";
import type { Ctx, Run } from "./types.ts";

export function pushNode(run: Run, n: PageNode, c: Ctx, d: number): void {
  run.sN.push(n);
  run.sC.push(c);
  run.sD.push(d);
}

export function pushChildren(run: Run, parent: PageNode, ctx: Ctx, d: number): void {
  for (let c = parent.lastChild; c; c = c.previousSibling) pushNode(run, c, ctx, d);
}

export function pushList(run: Run, list: ArrayLike<PageNode>, ctx: Ctx, d: number): void {
  for (let i = list.length - 1; i >= 0; i--) {
    const c = list[i];
    if (c) pushNode(run, c, ctx, d);
  }
}
