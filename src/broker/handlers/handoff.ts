import { BpError, invalidArgument } from "../../shared/errors.ts";
import type { BrowserConnection } from "../browser.ts";
import { resolveTab, selectedTab, takeControl, type Selected } from "../context/tabs.ts";
import * as commands from "../../protocol/commands-handoff.ts";
import { defineHandler, type ReplyOf } from "../context/handler.ts";
import type { CallContext, Handler } from "../context/types.ts";
import { checkLease, humanControlError, type Episode } from "../handoff/control.ts";
import type { TargetRecord } from "../targets.ts";

/** Reply a little before the command's own deadline, so a long wait answers instead of expiring. */
const DEADLINE_MARGIN_MS = 50;
const MAX_MESSAGE = 500;

/** A window the person can see: a discovered desktop browser, or one we launched with a window. */
function headed(browser: BrowserConnection): boolean {
  const info = browser.info;
  return info.source === "discovered" || (info.source === "launched" && info.headless !== true);
}

/** The only time bp may take focus: a person is about to use this tab. */
async function bringToFront(browser: BrowserConnection, rec: TargetRecord): Promise<void> {
  if (!headed(browser)) return;
  const session = await browser.session(rec);
  await session.send("Page.bringToFront", undefined, { timeoutMs: 2_000 });
}

/** Resolves when `p` settles, the deadline passes or the command is stopped, whichever is first. */
async function until<T>(p: Promise<T>, ctx: CallContext): Promise<T | undefined> {
  const left = ctx.deadline - DEADLINE_MARGIN_MS - Date.now();
  if (left <= 0 || ctx.signal.aborted) return undefined;
  let timer: Timer | undefined;
  let onAbort: (() => void) | undefined;
  const stop = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), left);
    onAbort = () => resolve(undefined);
    ctx.signal.addEventListener("abort", onAbort);
  });
  try {
    return await Promise.race([p, stop]);
  } finally {
    clearTimeout(timer);
    if (onAbort) ctx.signal.removeEventListener("abort", onAbort);
  }
}

function state(ctx: CallContext, ep: Episode, id: string): ReplyOf<typeof commands.handoff.result> {
  const live = ctx.broker.handoff.get(ep.targetId) === ep;
  if (!live) return { tab: id, control: "automation" };
  const browser = ctx.broker.browser;
  return {
    tab: id,
    control: ep.phase === "draining" ? "draining" : "human",
    until: new Date(ep.endsAt).toISOString(),
    // Lean: not the message (the agent wrote it; status shows it to others).
    ...(browser && !headed(browser)
      ? { hint: "This browser has no window for the person: run 'bp view' and give them the URL." }
      : {}),
  };
}

/**
 * The tab a handback, renew or view is about: --tab, else the caller's selected tab when it
 * is under human control, else the only tab under human control the caller may address.
 */
export function findEpisode(ctx: CallContext, tabArg: string | undefined): { ep: Episode; id: string } {
  const control = ctx.broker.handoff;
  const browser = ctx.broker.requireBrowser();
  const agent = ctx.agent();
  if (tabArg !== undefined) {
    const sel = resolveTab(ctx, tabArg);
    const ep = control.get(sel.rec.targetId);
    if (!ep)
      throw invalidArgument("tab", `Tab ${sel.id} is not under human control.`, { reason: "not_under_human_control" });
    return { ep, id: sel.id };
  }
  const selected = agent.selected !== undefined ? control.get(agent.selected) : undefined;
  if (selected) return { ep: selected, id: agent.idFor(selected.targetId, browser.generation) };
  const visible = new Set(ctx.broker.visibleTabs(agent, ctx.req.tabAccess).map((t) => t.targetId));
  const eps = control.all().filter((e) => e.generation === browser.generation && visible.has(e.targetId));
  const only = eps[0];
  if (eps.length === 1 && only) return { ep: only, id: agent.idFor(only.targetId, browser.generation) };
  if (eps.length === 0)
    throw invalidArgument("tab", "No tab is under human control.", { reason: "not_under_human_control" });
  throw invalidArgument("tab", "Several tabs are under human control; name one with --tab.", {
    tabs: eps.map((e) => agent.idFor(e.targetId, browser.generation)),
  });
}

const handoffHandler = defineHandler(commands.handoff)({
  async run(ctx, args) {
    const control = ctx.broker.handoff;
    const lease = checkLease(args["lease-seconds"]);
    const tabArg = args.tab;
    const wait = args.wait;
    const message = args.message;
    if (message !== undefined && message.length > MAX_MESSAGE)
      throw invalidArgument("message", `Messages are at most ${MAX_MESSAGE} characters.`);
    let ep: Episode;
    let id: string;
    if (args.renew) {
      ({ ep, id } = findEpisode(ctx, tabArg));
      control.renew(ep, lease);
    } else {
      const sel = tabArg !== undefined ? resolveTab(ctx, tabArg) : selectedTab(ctx, { allowDialog: true });
      id = sel.id;
      const existing = control.get(sel.rec.targetId);
      if (existing) {
        // The agent that handed off may wait on it again (the CLI's --wait does, round after round).
        if (existing.by !== sel.agent.key || !wait) {
          const err = humanControlError(existing, sel.id);
          throw new BpError("human_control", err.message, {
            retryable: true,
            context: err.context ?? {},
            hint: "Already handed off: extend with 'bp handoff --renew', or wait with 'bp handoff --wait'.",
          });
        }
        ep = existing;
      } else {
        takeControl(ctx, sel);
        ep = control.start(sel.rec.targetId, sel.agent.key, lease, message, () => bringToFront(sel.browser, sel.rec));
      }
    }
    // Draining normally takes a moment; answer with the state reached by the deadline.
    await until(ep.human, ctx);
    if (wait) await until(ep.ended, ctx);
    return state(ctx, ep, id);
  },
});

const handbackHandler = defineHandler(commands.handback)({
  async run(ctx, args) {
    const { ep, id } = findEpisode(ctx, args.tab);
    await ctx.broker.handoff.end(ep.targetId, "handback");
    // Lean: the tab it was (the agent may not have named it); "automation" is what handback always makes it.
    return { tab: id };
  },
});

/**
 * A viewer link for a tab this agent controls, or for any tab under human control it may
 * address (the person's own shell asks for it that way).
 */
const viewHandler = defineHandler(commands.view)({
  async run(ctx, args) {
    const tabArg = args.tab;
    const control = ctx.broker.handoff;
    const agent = ctx.agent();
    let sel: Selected;
    if (tabArg !== undefined) sel = resolveTab(ctx, tabArg);
    else if (agent.selected !== undefined)
      sel = resolveTab(
        ctx,
        agent.existingId(agent.selected) ?? agent.idFor(agent.selected, ctx.broker.requireBrowser().generation),
      );
    else {
      const { id } = findEpisode(ctx, undefined);
      sel = resolveTab(ctx, id);
    }
    const ep = control.get(sel.rec.targetId);
    if (!ep) takeControl(ctx, sel);
    const link = ctx.broker.viewer.grant(sel.rec.targetId, sel.browser.generation);
    return { tab: sel.id, url: link.url, expiresAt: link.expiresAt };
  },
});

export const HANDOFF_HANDLERS: Handler[] = [handoffHandler, handbackHandler, viewHandler];
