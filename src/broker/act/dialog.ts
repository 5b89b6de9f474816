import type { Selected } from "../context/tabs.ts";
import type { CallContext } from "../context/types.ts";
import { observeLocked } from "../observe/snapshot.ts";
import { pageEffects } from "./evidence.ts";
import { finishAction } from "./result.ts";
import { ActionWatch } from "./watch.ts";

export interface DialogAnswer {
  id: string;
  accept: boolean;
  prompt?: string;
  limit: number;
  full: boolean;
}

/**
 * Answers a pending dialog like an action: what the page did after the answer (a navigation,
 * requests, a changed page, the next dialog) comes back as evidence and a diff. The page is
 * blocked until the answer, so no DOM watcher can be armed before it; a change the page makes
 * right after shows in the diff, and counts as dom_changed.
 */
export async function answerDialog(ctx: CallContext, sel: Selected, a: DialogAnswer): Promise<Record<string, unknown>> {
  const { browser, rec } = sel;
  const session = await browser.session(rec);
  const type = rec.dialog?.type ?? "dialog";
  // Subscribed before the answer goes out, so what the page does next is seen.
  const watch = await ActionWatch.start(browser, rec, session, { blocked: true });
  try {
    await session.send("Page.handleJavaScriptDialog", { accept: a.accept, ...(a.prompt !== undefined ? { promptText: a.prompt } : {}) });
    delete rec.dialog;
    await watch.settle(ctx.deadline);
  } finally {
    await watch.stop();
  }
  const effects = pageEffects(watch.effects);
  const evidence: Record<string, unknown> = { action: "dialog", status: "verified", kind: type, answer: a.accept ? "accept" : "dismiss", effects };
  const out = await ctx.broker.exclusive(rec.targetId, () => finishAction(ctx, sel, evidence, watch.effects, { limit: a.limit, full: a.full }, observeLocked));
  const diff = out.diff as { added?: unknown[]; removed?: unknown[]; changed?: unknown[] } | undefined;
  if (diff && !effects.includes("dom_changed") && ((diff.added?.length ?? 0) > 0 || (diff.removed?.length ?? 0) > 0 || (diff.changed?.length ?? 0) > 0)) effects.push("dom_changed");
  return { id: a.id, action: a.accept ? "accept" : "dismiss", ...out };
}
