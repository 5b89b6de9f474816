import type { Selected } from "../context/tabs.ts";
import type { CallContext } from "../context/types.ts";
import { observe, observeLocked, type SnapshotReply } from "./snapshot.ts";

/** A navigation's --snapshot, --text and --limit (open, back, forward, reload: src/protocol/commands-tabs.ts). */
export interface LookArgs {
  snapshot?: boolean;
  text?: boolean;
  limit?: number | undefined;
}

export type Look = Omit<SnapshotReply, "title" | "url" | "urlTruncated" | "diff" | "diffFallback">;

/**
 * The page as 'bp snapshot' gives it, when asked: the look that follows nearly every navigation, in the same call. It
 * is the agent's observation (the next action's diff is against it). None while a dialog the load opened blocks the
 * page. `sel`: the caller already holds the tab's turn (an action); else the look takes it.
 */
export async function lookAfterLoad(
  ctx: CallContext,
  args: LookArgs,
  dialog: unknown,
  sel?: Selected,
): Promise<Look | undefined> {
  if (!(args.snapshot || args.text || args.limit !== undefined) || dialog) return undefined;
  const opts = { limit: args.limit ?? 50, text: args.text === true };
  const observed = sel ? await observeLocked(ctx, sel, opts) : await observe(ctx, opts);
  // The navigation's reply names the title and url itself; a look after a load is whole, never a diff.
  const { title: _title, url: _url, urlTruncated: _cut, diff: _diff, diffFallback: _none, ...look } = observed;
  return look;
}
