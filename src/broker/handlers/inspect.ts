/**
 * Smaller representations of the selected tab: `read`, `search`, `find`, `locate`.
 *
 * Each runs one self-contained page function in our isolated world of the agent's selected
 * frame (or the top document), so the page can neither see nor tamper with it. Boxes come back
 * in the frame's viewport px and get the frame's offset added (top-level viewport px, as
 * snapshot boxes). None of them creates refs or touches the agent's observation.
 */
import { escapeLine, quote } from "../../page/format.ts";
import { FIND_SOURCE, type FindResult, type LocateResult } from "../../page/find-script.ts";
import { READ_SOURCE, type InspectError, type ReadResult } from "../../page/read-script.ts";
import { SEARCH_SOURCE, type SearchResult } from "../../page/search-script.ts";
import { FIND_DEFAULT_ATTRIBUTES, splitAttributes } from "../../protocol/commands-inspect.ts";
import { BpError } from "../../shared/errors.ts";
import { frameSessions } from "../observe/collect.ts";
import { rootForFrame } from "../observe/frame-list.ts";
import { runInWorld } from "../observe/world.ts";
import { selectedTab } from "./resolve.ts";
import { arg, type CallContext, type Handler } from "./types.ts";

const clampInt = (value: unknown, def: number, max: number): number => {
  const n = typeof value === "number" && Number.isFinite(value) ? Math.floor(value) : def;
  return Math.max(1, Math.min(max, n));
};

/** Runs a page script in the agent's selected frame; returns its value and the frame's offset. */
async function inPage<T>(ctx: CallContext, source: string, input: Record<string, unknown>): Promise<{ tab: string; value: T | InspectError; offset: { x: number; y: number } }> {
  const { browser, agent, rec, id } = selectedTab(ctx);
  return ctx.broker.exclusive(rec.targetId, async () => {
    const session = await browser.session(rec);
    await frameSessions(rec, session).ensure();
    const main = (await session.send("Page.getFrameTree")).frameTree.frame;
    const root = await rootForFrame(rec, session, main.id, main.loaderId, agent.frames.get(rec.targetId));
    const timeoutMs = Math.max(1, ctx.deadline - Date.now());
    const value = await runInWorld<T | InspectError>(root.session, root.frameId, source, input, timeoutMs);
    if (value === null || typeof value !== "object") throw new BpError("internal_error", "The page script returned nothing.");
    return { tab: id, value, offset: root.offset };
  });
}

/** Turns a page-side selector problem into invalid_argument (field "selector"). */
function check<T extends object>(value: T | InspectError, selector: string): T {
  if (!("error" in value)) return value;
  const shown = selector.length > 200 ? `${selector.slice(0, 200)}…` : selector;
  if (value.error === "invalid_selector") {
    throw new BpError("invalid_argument", `Invalid CSS selector: ${shown}`, { hint: "Check the selector syntax.", context: { field: "selector", selector: shown } });
  }
  throw new BpError("invalid_argument", `Selector "${shown}" did not match.`, { hint: `Selector "${shown}" did not match.`, context: { field: "selector", selector: shown } });
}

/** Content lines of `bp read` keep their text but lose anything that could break a line or the terminal. */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;
const safeContent = (line: string): string => line.replace(UNSAFE, (c) => escapeLine(c));

const read: Handler = {
  async run(ctx) {
    const selector = arg<string | undefined>(ctx, "selector");
    const limit = clampInt(arg(ctx, "limit"), 3000, 100_000);
    const { tab, value } = await inPage<ReadResult>(ctx, READ_SOURCE, { limit, ...(selector ? { selector } : {}) });
    const r = check(value, selector ?? "");
    const out: Record<string, unknown> = { tab, title: r.title, url: r.url, text: r.text, length: r.length, truncated: r.truncated };
    if (r.truncated) out.hint = `Showing ${r.text.length} of ${r.length} characters; raise --limit (max 100000) or pass a selector.`;
    if (ctx.req.mode === "human") {
      const body = r.text ? r.text.split("\n").map(safeContent).join("\n") : "(no readable text)";
      out.text = `${escapeLine(r.title, 200)}\n${escapeLine(r.url, 300)}\n${"─".repeat(60)}\n${body}${r.truncated ? `\n... [truncated: ${r.text.length} of ${r.length} characters]` : ""}`;
    }
    return out;
  },
};

const search: Handler = {
  async run(ctx) {
    const query = arg<string>(ctx, "query");
    const selector = arg<string | undefined>(ctx, "selector");
    const input = {
      query: typeof query === "string" ? query.slice(0, 500) : "",
      limit: clampInt(arg(ctx, "limit"), 20, 200),
      caseSensitive: arg<boolean>(ctx, "case-sensitive") === true,
      wholeWord: arg<boolean>(ctx, "whole-word") === true,
      ...(selector ? { selector } : {}),
    };
    if (!input.query.trim()) throw new BpError("invalid_argument", "Query is empty.", { context: { field: "query" } });
    const { tab, value, offset } = await inPage<SearchResult>(ctx, SEARCH_SOURCE, input);
    const r = check(value, selector ?? "");
    for (const m of r.matches) {
      m.x += Math.round(offset.x);
      m.y += Math.round(offset.y);
    }
    const out: Record<string, unknown> = { tab, title: r.title, url: r.url, totalMatches: r.totalMatches, matches: r.matches, truncated: r.truncated };
    if (ctx.req.mode === "human") {
      const lines = [`${r.totalMatches} match${r.totalMatches === 1 ? "" : "es"} for ${quote(input.query, 200)} in ${escapeLine(r.url, 300)}`];
      for (const m of r.matches) {
        lines.push(`[${m.index}] <${escapeLine(m.tagName, 40)}> ${m.x},${m.y}${m.visible ? "" : " (not in view)"} ${quote(m.context, 500)}`);
      }
      if (r.truncated) lines.push(`[truncated] ${r.matches.length} of ${r.totalMatches} shown; raise --limit (max 200) or narrow with --selector`);
      out.text = lines.join("\n");
    }
    return out;
  },
};

const find: Handler = {
  async run(ctx) {
    const selector = arg<string>(ctx, "selector");
    const attributes = splitAttributes(arg<string | undefined>(ctx, "attributes") ?? FIND_DEFAULT_ATTRIBUTES).slice(0, 20);
    const input = { selector, limit: clampInt(arg(ctx, "limit"), 20, 200), attributes, shadow: arg<boolean | undefined>(ctx, "shadow") !== false };
    const { tab, value, offset } = await inPage<FindResult>(ctx, FIND_SOURCE, input);
    const r = check(value, selector);
    for (const e of r.elements) {
      e.x += Math.round(offset.x);
      e.y += Math.round(offset.y);
    }
    const out: Record<string, unknown> = { tab, elements: r.elements, total: r.total, truncated: r.truncated };
    if (ctx.req.mode === "human") {
      const lines = r.elements.map((e) => {
        let line = `[${e.index}] <${escapeLine(e.tagName, 40)}> ${escapeLine(e.role, 40)}`;
        if (e.name) line += ` ${quote(e.name)}`;
        line += ` (${e.visible ? "visible" : "hidden"}, ${e.enabled ? "enabled" : "disabled"}) ${e.x},${e.y} ${e.width}x${e.height}`;
        for (const a of e.attributes) line += ` ${escapeLine(a.name, 40)}=${quote(a.value, 80)}`;
        return line;
      });
      if (lines.length === 0) lines.push(`No elements match ${quote(selector, 200)}.`);
      if (r.truncated) lines.push(`[truncated] ${r.elements.length} of ${r.total} shown; raise --limit (max 200) or narrow the selector`);
      out.text = lines.join("\n");
    }
    return out;
  },
};

const locate: Handler = {
  async run(ctx) {
    const selector = arg<string>(ctx, "selector");
    const { value, offset } = await inPage<LocateResult>(ctx, FIND_SOURCE, { selector, mode: "locate" });
    const r = check(value, selector);
    const ox = Math.round(offset.x);
    const oy = Math.round(offset.y);
    const out: Record<string, unknown> = { x: r.x + ox, y: r.y + oy, top: r.top + oy, left: r.left + ox, width: r.width, height: r.height };
    if (ctx.req.mode === "human") out.text = `center: ${String(out.x)},${String(out.y)}  size: ${r.width}x${r.height}  (top:${String(out.top)} left:${String(out.left)})`;
    return out;
  },
};

export const INSPECT_HANDLERS: Record<string, Handler> = { read, search, find, locate };
