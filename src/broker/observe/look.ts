import { wantsLook, type LookArgs } from "../../protocol/look-args.ts";
import { toBpError } from "../../shared/errors.ts";
import type { Selected } from "../context/tabs.ts";
import type { CallContext } from "../context/types.ts";
import { loadDialog } from "../navigate.ts";
import { dropListenersAhead } from "./listeners.ts";
import { observe, observeLocked, type SnapshotReply } from "./snapshot.ts";

export type Look = Omit<SnapshotReply, "title" | "url" | "urlTruncated" | "diff" | "diffFallback">;

/** Less time than this left before the deadline: the navigation answers without its look (it did happen). */
const LOOK_MIN_MS = 1_000;

/**
 * The page as 'bp snapshot' gives it, when asked: the look that follows nearly every navigation, in the same call. It
 * is the agent's observation (the next action's diff is against it). The navigation has happened by now, so the look
 * never turns it into an error: a dialog that opens meanwhile is named instead (the page is blocked until it is
 * answered), and a look that fails or has no time left becomes a hint. `sel`: the caller already holds the tab's turn
 * (an action); else the look takes it.
 */
export async function lookAfterLoad(
  ctx: CallContext,
  args: LookArgs,
  sel: Selected,
  held: boolean,
): Promise<(Look & { dialog?: ReturnType<typeof loadDialog> }) | undefined> {
  try {
    return await lookNow(ctx, args, sel, held);
  } finally {
    void sel.browser
      .session(sel.rec)
      .then((s) => dropListenersAhead(s, sel.rec.targetId))
      .catch(() => undefined);
  }
}

async function lookNow(
  ctx: CallContext,
  args: LookArgs,
  sel: Selected,
  held: boolean,
): Promise<(Look & { dialog?: ReturnType<typeof loadDialog> }) | undefined> {
  if (!wantsLook(args) || loadDialog(sel.rec)) return undefined;
  if (ctx.deadline - Date.now() < LOOK_MIN_MS)
    return { hint: "No time was left to look at the page: run 'bp snapshot'." };
  const dropped = { value: false };
  const opts = { limit: args.limit ?? 50, text: args.text === true, dropped };
  let offDialog: () => void = () => undefined;
  try {
    const session = await sel.browser.session(sel.rec);
    const dialogOpened = new Promise<"dialog">((resolve) => {
      offDialog = session.on("Page.javascriptDialogOpening", () => resolve("dialog"));
    });
    // Opened before the listener: the page is blocked already.
    const blocked = loadDialog(sel.rec);
    if (blocked) return { dialog: blocked };
    // Left behind when a dialog comes first: its page call ends once the dialog is answered ('bp dialog' does not
    // queue), and what it saw then is no observation the agent was shown.
    const observed = held ? observeLocked(ctx, sel, opts) : observe(ctx, opts);
    observed.catch(() => undefined);
    const first = await Promise.race([observed, dialogOpened]);
    if (first === "dialog") {
      dropped.value = true;
      return { dialog: loadDialog(sel.rec) };
    }
    // The navigation's reply names the title and url itself; a look after a load is whole, never a diff.
    const { title: _title, url: _url, urlTruncated: _cut, diff: _diff, diffFallback: _none, ...look } = first;
    // A navigation takes --limit but not --find: the cut's hint names the snapshot's.
    if (look.hint) look.hint = look.hint.replace("--find <text>", "'bp snapshot --find <text>'");
    return look;
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    return { hint: `The page loaded but looking at it failed (${toBpError(err).code}): run 'bp snapshot'.` };
  } finally {
    offDialog();
  }
}
