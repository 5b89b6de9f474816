import { clickByRef } from "../act/click.ts";
import { withTextAndTimes } from "../act/click-text.ts";
import { dialogHandler, ownDialogs } from "../act/dialog.ts";
import { dragHandler, hoverHandler } from "../act/hover.ts";
import { keyboardHandler, pressHandler } from "../act/keyboard.ts";
import { scrollHandler } from "../act/scroll.ts";
import { dropdownHandler, selectHandler } from "../act/select.ts";
import { typeHandler } from "../act/type.ts";
import { uploadHandler } from "../act/upload.ts";
import { dialogs as dialogsCommand } from "../../protocol/commands-actions.ts";
import { defineHandler } from "../context/handler.ts";
import type { Handler } from "../context/types.ts";

const dialogsHandler = defineHandler(dialogsCommand)({
  async run(ctx) {
    return {
      dialogs: ownDialogs(ctx).flatMap(({ rec, id }) => {
        const d = rec.dialog;
        if (!d) return [];
        // Lean: a prompt's default text only when it has one.
        return {
          id: d.id,
          tab: id,
          type: d.type,
          message: d.message,
          ...(d.defaultPrompt ? { defaultPrompt: d.defaultPrompt } : {}),
          url: d.url,
          openedAt: d.openedAt,
        };
      }),
    };
  },
});

const clickHandler = withTextAndTimes(clickByRef);

/** Every action is one declarative object on the action pipeline (src/broker/act/pipeline.ts). */
export const ACTION_HANDLERS: Handler[] = [
  clickHandler,
  dialogsHandler,
  dialogHandler,
  typeHandler,
  keyboardHandler,
  pressHandler,
  scrollHandler,
  dropdownHandler,
  selectHandler,
  uploadHandler,
  hoverHandler,
  dragHandler,
];
