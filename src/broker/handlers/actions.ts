import { BpError } from "../../shared/errors.ts";
import { click } from "../act/click.ts";
import { resolveTab, takeControl } from "./resolve.ts";
import { arg, type CallContext, type Handler } from "./types.ts";

const clickHandler: Handler = {
  mutating: true,
  run(ctx) {
    const ref = arg<number | undefined>(ctx, "ref");
    const xy = arg<string | undefined>(ctx, "xy");
    if ((ref === undefined) === (xy === undefined)) throw new BpError("invalid_argument", "Give exactly one of a ref or --xy.", { context: { field: "ref" } });
    if (arg<boolean>(ctx, "double") && arg<boolean>(ctx, "right")) throw new BpError("invalid_argument", "--double and --right cannot be combined.", { context: { field: "button" } });
    return click(ctx, { ...(ref !== undefined ? { ref } : {}), ...(xy !== undefined ? { xy } : {}), double: arg(ctx, "double"), right: arg(ctx, "right"), limit: arg(ctx, "limit"), full: arg(ctx, "full") });
  },
};

/** Dialogs of tabs this agent controls; other agents' dialogs are invisible to it. */
function ownDialogs(ctx: CallContext) {
  const browser = ctx.broker.requireBrowser();
  const agent = ctx.agent();
  return [...browser.targets.byId.values()].filter((t) => t.dialog && t.controller === agent.key).map((t) => ({ rec: t, id: agent.idFor(t.targetId, browser.generation) }));
}

const dialogsHandler: Handler = {
  async run(ctx) {
    return {
      dialogs: ownDialogs(ctx).map(({ rec, id }) => {
        const d = rec.dialog!;
        return { id: d.id, tab: id, type: d.type, message: d.message, defaultPrompt: d.defaultPrompt, url: d.url, openedAt: d.openedAt };
      }),
    };
  },
};

const dialogHandler: Handler = {
  mutating: true,
  async run(ctx) {
    const accept = arg<boolean>(ctx, "accept");
    const dismiss = arg<boolean>(ctx, "dismiss");
    if (accept === dismiss) throw new BpError("invalid_argument", "Give exactly one of --accept or --dismiss.", { context: { field: "accept" } });
    const id = arg<string>(ctx, "id");
    const hit = ownDialogs(ctx).find(({ rec }) => rec.dialog?.id === id);
    if (!hit) throw new BpError("invalid_argument", "Dialog is not pending.", { context: { field: "id" } });
    const sel = resolveTab(ctx, hit.id);
    takeControl(ctx, sel);
    const session = await sel.browser.session(sel.rec);
    const prompt = arg<string | undefined>(ctx, "prompt");
    await session.send("Page.handleJavaScriptDialog", { accept, ...(prompt !== undefined ? { promptText: prompt } : {}) });
    delete sel.rec.dialog;
    return { id, action: accept ? "accept" : "dismiss" };
  },
};

export const ACTION_HANDLERS: Record<string, Handler> = { click: clickHandler, dialogs: dialogsHandler, dialog: dialogHandler };
