import { click as clickRef } from "../act/click.ts";
import { withTextAndTimes } from "../act/click-text.ts";
import { answerDialog, ownDialogs } from "../act/dialog.ts";
import { drag, hover } from "../act/hover.ts";
import { keyboard, press } from "../act/keyboard.ts";
import { scroll } from "../act/scroll.ts";
import { dropdown, selectOption } from "../act/select.ts";
import { typeText } from "../act/type.ts";
import { upload } from "../act/upload.ts";
import { dialogs as dialogsCommand } from "../../protocol/commands-actions.ts";
import { defineHandler } from "../context/handler.ts";
import type { Handler } from "../context/types.ts";

const dialogs = defineHandler(dialogsCommand)({
  async run(ctx) {
    return {
      dialogs: ownDialogs(ctx).map(({ rec, id }) => {
        const d = rec.dialog!;
        // Lean: a prompt's default text only when it has one.
        return { id: d.id, tab: id, type: d.type, message: d.message, ...(d.defaultPrompt ? { defaultPrompt: d.defaultPrompt } : {}), url: d.url, openedAt: d.openedAt };
      }),
    };
  },
});

const click = withTextAndTimes(clickRef);

/** Every action is one declarative object on the action pipeline (src/broker/act/pipeline.ts). */
export const ACTION_HANDLERS: Handler[] = [click, dialogs, answerDialog, typeText, keyboard, press, scroll, dropdown, selectOption, upload, hover, drag];
