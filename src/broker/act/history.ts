import { boundTitle, boundUrl } from "../../shared/page-strings.ts";
import { selectedTab } from "../context/tabs.ts";
import { assertLocalFileAllowed } from "../local-files.ts";
import { loadDialog, runAndWait } from "../navigate.ts";
import {
  back as backCommand,
  forward as forwardCommand,
  reload as reloadCommand,
} from "../../protocol/commands-tabs.ts";
import type { ArgsOf, ReplyOf } from "../context/handler.ts";
import { defineAction } from "./pipeline.ts";
import { assertMayNavigate } from "../policy/enforce.ts";
import { forgetAuthSurface } from "../observe/collect.ts";
import { interactiveAhead, lookAhead } from "../observe/ahead.ts";
import { lookAfterLoad } from "../observe/look.ts";

/** `bp back`, `bp forward`, `bp reload`: a history step or reload, answered once the page loaded (a look if asked). */
type HistoryCommand = typeof backCommand | typeof forwardCommand | typeof reloadCommand;

function historyAction(command: HistoryCommand, delta: -1 | 0 | 1) {
  return defineAction<HistoryCommand, ArgsOf<HistoryCommand>, ReplyOf<HistoryCommand["result"]>>(command, {
    // Navigation is the effect: the reply names where the tab went.
    watch: false,
    args: (input) => input,
    tab: (ctx) => selectedTab(ctx),
    async dispatch({ ctx, sel, top, args }) {
      const { browser, rec } = sel;
      const before = { url: boundUrl(rec.url), title: boundTitle(rec.title) };
      forgetAuthSurface(sel.agent, rec.targetId);
      let navigated = true;
      const framed = sel.agent.frames.get(rec.targetId) !== undefined;
      const interactive = interactiveAhead(args, top, rec, framed);
      if (delta === 0) {
        await runAndWait(top, () => top.send("Page.reload"), ctx.deadline, ctx.signal, rec.targetId, interactive);
      } else {
        const { currentIndex, entries } = await top.send("Page.getNavigationHistory");
        const entry = entries[currentIndex + delta];
        // A history step is the browser's own navigation: Chrome lets it into a file: entry.
        if (entry) assertLocalFileAllowed(entry.url);
        // A page restored from the back/forward cache loads nothing the interception could stop.
        if (entry) assertMayNavigate(sel.agent.key, entry.url);
        if (entry)
          await runAndWait(
            top,
            () => top.send("Page.navigateToHistoryEntry", { entryId: entry.id }),
            ctx.deadline,
            ctx.signal,
            rec.targetId,
            interactive,
          );
        else navigated = false;
      }
      if (navigated) lookAhead(args, top, rec, framed);
      // The browser's own record, not the page's world: a page can shadow document.title.
      const { targetInfo } = await browser.cdp.send("Target.getTargetInfo", { targetId: rec.targetId });
      rec.url = targetInfo.url;
      rec.title = targetInfo.title;
      // Lean: no tab id (the selected one); url and title only when they changed; navigated only when false.
      const url = boundUrl(rec.url);
      const title = boundTitle(rec.title);
      const dialog = loadDialog(rec);
      // With no entry to go to (navigated:false) too: the agent asked to see the page.
      const look = await lookAfterLoad(ctx, args, sel, true);
      return {
        ...(url !== before.url ? { url } : {}),
        ...(title !== before.title ? { title } : {}),
        ...(navigated ? {} : { navigated: false }),
        ...(dialog ? { dialog } : {}),
        ...look,
      };
    },
    evidence: (_run, sent) => sent,
  });
}

export const backHandler = historyAction(backCommand, -1);
export const forwardHandler = historyAction(forwardCommand, 1);
export const reloadHandler = historyAction(reloadCommand, 0);
