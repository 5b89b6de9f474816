import { BpError } from "../../shared/errors.ts";
import { click } from "../act/click.ts";
import { answerDialog } from "../act/dialog.ts";
import { drag, hover } from "../act/hover.ts";
import { keyboard, press } from "../act/keyboard.ts";
import { scroll } from "../act/scroll.ts";
import { dropdown, selectOption } from "../act/select.ts";
import { typeText } from "../act/type.ts";
import { upload } from "../act/upload.ts";
import { resolveTab, takeControl } from "../context/tabs.ts";
import { arg, type CallContext, type Handler } from "../context/types.ts";

const clickHandler: Handler = {
  mutating: true,
  dispatch: "lock",
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
    const prompt = arg<string | undefined>(ctx, "prompt");
    return answerDialog(ctx, sel, { id, accept, ...(prompt !== undefined ? { prompt } : {}), limit: arg<number>(ctx, "limit"), full: arg<boolean>(ctx, "full") });
  },
};

const observeArgs = (ctx: CallContext) => ({ limit: arg<number>(ctx, "limit"), full: arg<boolean>(ctx, "full") });

/** Mutating input commands count as dispatched once they hold their tab (queued ones can still be cancelled cleanly). */
const typeHandler: Handler = {
  mutating: true,
  dispatch: "lock",
  run: (ctx) => typeText(ctx, { ref: arg(ctx, "ref"), text: arg(ctx, "text"), clear: arg(ctx, "clear"), submit: arg(ctx, "submit"), ...observeArgs(ctx) }),
};

const keyboardHandler: Handler = {
  mutating: true,
  dispatch: "lock",
  run: (ctx) => keyboard(ctx, { text: arg(ctx, "text"), clear: arg(ctx, "clear"), submit: arg(ctx, "submit"), ...(arg<number | undefined>(ctx, "delay") !== undefined ? { delay: arg<number>(ctx, "delay") } : {}), ...observeArgs(ctx) }),
};

const pressHandler: Handler = { mutating: true, dispatch: "lock", run: (ctx) => press(ctx, { key: arg(ctx, "key"), ...observeArgs(ctx) }) };

const scrollHandler: Handler = {
  mutating: true,
  dispatch: "lock",
  run(ctx) {
    const opt = <T>(name: string, key: string = name): Record<string, T> => (arg<T | undefined>(ctx, name) !== undefined ? { [key]: arg<T>(ctx, name) } : {});
    return scroll(ctx, { ...opt("direction"), ...opt("amount"), unit: arg(ctx, "unit"), ...opt("ref"), ...opt("selector"), ...opt("to"), ...opt("to-text", "toText"), exact: arg(ctx, "exact"), ...observeArgs(ctx) });
  },
};

const dropdownHandler: Handler = { run: (ctx) => dropdown(ctx, arg(ctx, "ref")) };

const selectHandler: Handler = {
  mutating: true,
  dispatch: "lock",
  run: (ctx) => selectOption(ctx, { ref: arg(ctx, "ref"), option: arg(ctx, "option"), by: arg(ctx, "by"), contains: arg(ctx, "contains"), ...observeArgs(ctx) }),
};

const uploadHandler: Handler = { mutating: true, dispatch: "lock", run: (ctx) => upload(ctx, { ref: arg(ctx, "ref"), file: arg(ctx, "file"), ...observeArgs(ctx) }) };
const hoverHandler: Handler = { mutating: true, dispatch: "lock", run: (ctx) => hover(ctx, { ref: arg(ctx, "ref"), ...observeArgs(ctx) }) };
const dragHandler: Handler = { mutating: true, dispatch: "lock", run: (ctx) => drag(ctx, { from: arg(ctx, "from"), to: arg(ctx, "to"), ...observeArgs(ctx) }) };

export const ACTION_HANDLERS: Record<string, Handler> = {
  click: clickHandler,
  dialogs: dialogsHandler,
  dialog: dialogHandler,
  type: typeHandler,
  keyboard: keyboardHandler,
  press: pressHandler,
  scroll: scrollHandler,
  dropdown: dropdownHandler,
  select: selectHandler,
  upload: uploadHandler,
  hover: hoverHandler,
  drag: dragHandler,
};
