import { dialog as command } from "../../protocol/commands-actions.ts";
import { BpError } from "../../shared/errors.ts";
import { exactly, type ArgsOf, type ReplyOf } from "../context/handler.ts";
import { resolveTab, takeControl } from "../context/tabs.ts";
import type { CallContext } from "../context/types.ts";
import { pageEffects } from "./evidence.ts";
import { defineAction } from "./pipeline.ts";

/** Dialogs of tabs this agent controls; other agents' dialogs are invisible to it. */
export function ownDialogs(ctx: CallContext) {
  const browser = ctx.broker.requireBrowser();
  const agent = ctx.agent();
  return [...browser.targets.byId.values()]
    .filter((t) => t.dialog && t.controller === agent.key)
    .map((t) => ({ rec: t, id: agent.idFor(t.targetId, browser.generation) }));
}

/**
 * `bp dialog <id> --accept|--dismiss [--prompt text]`: answers a pending dialog like an action, with evidence and a
 * diff. No DOM watcher can be armed while the page is blocked, so a change right after counts as dom_changed. The
 * answer is not queued behind the tab's commands (one may wait on this dialog); its observation is.
 */
export const dialogHandler = defineAction<typeof command, ArgsOf<typeof command>, string>(command, {
  answersDialog: true,
  args: (a) => a,
  tab(ctx, a) {
    const hit = ownDialogs(ctx).find(({ rec }) => rec.dialog?.id === a.id);
    if (!hit) throw new BpError("invalid_argument", "Dialog is not pending.", { context: { field: "id" } });
    const sel = resolveTab(ctx, hit.id);
    takeControl(ctx, sel);
    return sel;
  },
  observe: (a) => ({ limit: a.limit, full: a.full }),
  // The input is the answer; the page settles after it.
  async *steps({ args, top, sel, watch }) {
    const type = sel.rec.dialog?.type ?? "dialog";
    await watch.input(
      () =>
        top.send("Page.handleJavaScriptDialog", {
          accept: args.accept,
          ...(args.prompt !== undefined ? { promptText: args.prompt } : {}),
        }),
      true,
    );
    delete sel.rec.dialog;
    yield {};
    return type;
  },
  evidence: ({ args, watch }, type) => ({
    action: "dialog",
    status: "verified",
    kind: type,
    answer: args.accept ? "accept" : "dismiss",
    effects: pageEffects(watch.effects),
  }),
  shape(out, { args }) {
    const { diff, evidence: ev } = out;
    const changed =
      (diff?.added?.length ?? 0) > 0 || (diff?.removed?.length ?? 0) > 0 || (diff?.changed?.length ?? 0) > 0;
    if (changed && !(ev.effects ?? []).includes("dom_changed")) ev.effects = [...(ev.effects ?? []), "dom_changed"];
    return exactly<ReplyOf<typeof command.result>>()({
      id: args.id,
      action: args.accept ? "accept" : "dismiss",
      ...out,
    });
  },
});
