/**
 * `bp storage`: localStorage or sessionStorage of the selected tab's top document, read and
 * written from Browser Pilot's isolated world (same origin storage, none of the page's code
 * involved). Values are cut to the output budget in the page, unless --full.
 */
import { storage as storageCommand } from "../../protocol/commands-devtools.ts";
import { BpError } from "../../shared/errors.ts";
import { cutString } from "../../shared/page-strings.ts";
import { defineHandler } from "../context/handler.ts";
import { selectedTab } from "../context/tabs.ts";
import type { Handler } from "../context/types.ts";
import { worldContextId } from "../world.ts";

const LIST_CUT = 1000;
const GET_CUT = 4000;
/** Even --full stops here: a value this long is a file, not a reply. */
const FULL_CUT = 1_000_000;

/** Runs in the page: one storage operation, values cut to `cut` characters plus one. */
const PAGE_FN = `(function (area, op, key, value, cut, limit) {
  const s = area === "session" ? sessionStorage : localStorage;
  const origin = location.origin;
  const shown = (v) => (v.length > cut ? { value: v.slice(0, cut + 1), length: v.length } : { value: v });
  if (op === "get") { const v = s.getItem(key); return v === null ? { origin, value: null } : { origin, ...shown(v) }; }
  if (op === "set") { s.setItem(key, value); return { origin }; }
  if (op === "remove") { const had = s.getItem(key) !== null; s.removeItem(key); return { origin, removed: had }; }
  if (op === "clear") { const n = s.length; s.clear(); return { origin, cleared: n }; }
  const items = [];
  const total = s.length;
  for (let i = 0; i < total && items.length < limit; i++) { const k = s.key(i); if (k !== null) items.push({ key: k, ...shown(s.getItem(k) ?? "") }); }
  return { origin, items, total };
})`;

interface PageReply {
  origin: string;
  value?: string | null;
  length?: number;
  removed?: boolean;
  cleared?: number;
  items?: { key: string; value: string; length?: number }[];
  total?: number;
}

const storageHandler = defineHandler(storageCommand)({
  dispatch: "lock",
  async run(ctx, a) {
    const { browser, rec } = selectedTab(ctx);
    const area = a.area ?? "local";
    const op = a.op ?? "list";
    const cut = a.full ? FULL_CUT : op === "get" ? GET_CUT : LIST_CUT;
    return ctx.broker.exclusive(rec.targetId, async () => {
      const session = await browser.session(rec);
      const contextId = await worldContextId(session, rec.targetId);
      if (op === "set" || op === "remove" || op === "clear") ctx.markDispatched();
      const args = [area, op, a.key ?? "", a.value ?? "", cut, a.limit].map((x) => JSON.stringify(x)).join(",");
      const res = await session.send(
        "Runtime.evaluate",
        { expression: `${PAGE_FN}(${args})`, contextId, returnByValue: true },
        { timeoutMs: Math.max(1, ctx.deadline - Date.now()) },
      );
      if (res.exceptionDetails) {
        const text = res.exceptionDetails.exception?.description ?? res.exceptionDetails.text;
        if (/QuotaExceeded/i.test(text))
          throw new BpError("quota_exceeded", "The page's storage quota is full; the value was not stored.", {
            context: { quota: "storage" },
          });
        throw new BpError(
          "script_error",
          `The page refused ${area}Storage: ${cutString(text.split("\n")[0] ?? "error", 300)} (a page of the site must be open; about: and data: pages have no storage).`,
          { context: { area } },
        );
      }
      const r = res.result.value as PageReply;
      const shownValue = (v: string) => cutString(v, cut);
      const items = r.items?.map((i) => ({
        key: i.key,
        value: shownValue(i.value),
        ...(i.length !== undefined ? { length: i.length } : {}),
      }));
      const truncated = items !== undefined && r.total !== undefined && r.total > items.length;
      const out = {
        origin: r.origin,
        ...(items ? { items } : {}),
        ...(r.value !== undefined ? { value: r.value === null ? null : shownValue(r.value) } : {}),
        ...(r.length !== undefined ? { length: r.length } : {}),
        ...(r.removed !== undefined ? { removed: r.removed } : {}),
        ...(r.cleared !== undefined ? { cleared: r.cleared } : {}),
        ...(truncated ? { total: r.total, truncated: true as const } : {}),
      };
      return out;
    });
  },
});

export const STORAGE_HANDLERS: Handler[] = [storageHandler];
