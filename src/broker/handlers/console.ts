/**
 * `bp console`: the selected tab's messages from this agent's console log (net/console.ts).
 * Another agent's messages, and a tab's messages while a person had it, are never in it.
 */
import { consoleLog } from "../../protocol/commands-devtools.ts";
import { defineHandler } from "../context/handler.ts";
import { selectedTab } from "../context/tabs.ts";
import type { Handler } from "../context/types.ts";

const consoleHandler = defineHandler(consoleLog)({
  async run(ctx, args) {
    const { browser, rec } = selectedTab(ctx, { allowDialog: true });
    // A tab no command opened yet starts its log now; the page's earlier messages come with it.
    await browser.session(rec);
    const r = ctx.agent().net.console.query({
      targetId: rec.targetId,
      limit: args.limit,
      ...(args.level ? { level: args.level } : {}),
      ...(args.since !== undefined ? { since: args.since } : {}),
    });
    const messages = r.entries.map((e) => ({
      id: e.id,
      level: e.level,
      text: e.text,
      ...(e.kind ? { kind: e.kind } : {}),
      ...(e.source ? { source: e.source } : {}),
      time: new Date(e.at).toISOString(),
    }));
    const out = {
      messages,
      ...(r.truncated ? { total: r.total, truncated: true as const } : {}),
      ...(r.gap ? { gap: true as const } : {}),
      nextCursor: r.nextCursor,
    };
    return out;
  },
});

export const CONSOLE_HANDLERS: Handler[] = [consoleHandler];
