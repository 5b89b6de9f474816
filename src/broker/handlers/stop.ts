/**
 * `bp stop`: gives up on a navigation a slow server has not answered. Page.stopLoading is the one
 * page call Chrome lets through while it holds the tab for the new document, so it bypasses
 * the tab's queue gate; the page the tab showed before stays, with its refs.
 */
import { stop as stopCommand } from "../../protocol/commands-tabs.ts";
import { boundUrl } from "../../shared/page-strings.ts";
import { defineHandler } from "../context/handler.ts";
import type { Handler } from "../context/types.ts";
import { selectedTab } from "../context/tabs.ts";
import { redactUrl } from "../net/redact.ts";

const stopHandler = defineHandler(stopCommand)({
  async run(ctx) {
    const { browser, rec } = selectedTab(ctx);
    const nav = rec.navigating;
    const session = await browser.session(rec);
    await session.send("Page.stopLoading");
    delete rec.navigating;
    const { currentIndex, entries } = await session.send("Page.getNavigationHistory");
    const url = entries[currentIndex]?.url ?? rec.url;
    rec.url = url;
    return {
      ...(nav ? { stopped: { url: redactUrl(boundUrl(nav.url)), ms: Date.now() - nav.at } } : {}),
      url: boundUrl(url),
    };
  },
});

export const STOP_HANDLERS: Handler[] = [stopHandler];
