import { BpError } from "../../shared/errors.ts";
import { runAndWait } from "../navigate.ts";
import { selectedTab } from "../context/tabs.ts";
import { arg, type CallContext, type Handler } from "../context/types.ts";

/** Bound on an eval result's JSON size; larger values come back cut, with truncated:true. */
export const MAX_EVAL_CHARS = 100_000;
const EVAL_GROUP = "bp-eval";

const evaluate: Handler = {
  mutating: true,
  dispatch: "lock",
  async run(ctx) {
    const { browser, rec } = selectedTab(ctx);
    return ctx.broker.exclusive(rec.targetId, async () => {
      const session = await browser.session(rec);
      const timeoutMs = Math.max(1, ctx.deadline - Date.now());
      // REPL mode allows top-level await and re-declaring let/const across calls, like a console.
      let res = await session.send(
        "Runtime.evaluate",
        { expression: arg<string>(ctx, "expression"), objectGroup: EVAL_GROUP, awaitPromise: true, userGesture: true, replMode: true },
        { timeoutMs, signal: ctx.signal },
      );
      try {
        // A returned promise is awaited, as upstream did: the agent wants its value.
        if (!res.exceptionDetails && res.result.subtype === "promise" && res.result.objectId) {
          res = await session.send("Runtime.awaitPromise", { promiseObjectId: res.result.objectId, returnByValue: false }, { timeoutMs, signal: ctx.signal });
        }
        if (res.exceptionDetails) {
          const text = res.exceptionDetails.exception?.description ?? res.exceptionDetails.text;
          throw new BpError("script_error", `The expression threw: ${text.split("\n")[0]?.slice(0, 500) ?? "error"}`, {
            context: { line: res.exceptionDetails.lineNumber, column: res.exceptionDetails.columnNumber },
          });
        }
        const r = res.result;
        let value: unknown = r.value;
        if (r.objectId && r.type === "object" && r.subtype !== "node" && r.subtype !== "error") {
          const byValue = await session.send("Runtime.callFunctionOn", { objectId: r.objectId, functionDeclaration: "function () { return this; }", returnByValue: true }, { timeoutMs, signal: ctx.signal });
          value = byValue.exceptionDetails ? r.description : byValue.result.value;
        }
        if (value === undefined) value = r.unserializableValue ?? (r.type === "undefined" ? null : (r.description ?? null));
        return boundValue(value, r.subtype ?? r.type);
      } finally {
        void session.send("Runtime.releaseObjectGroup", { objectGroup: EVAL_GROUP }).catch(() => undefined);
      }
    });
  },
};

export function boundValue(value: unknown, type: string): { value: unknown; type: string; truncated: boolean } {
  const json = JSON.stringify(value) ?? "null";
  if (json.length <= MAX_EVAL_CHARS) return { value, type, truncated: false };
  const text = typeof value === "string" ? value : json;
  return { value: text.slice(0, MAX_EVAL_CHARS), type, truncated: true };
}

async function history(ctx: CallContext, delta: -1 | 0 | 1): Promise<Record<string, unknown>> {
  const { browser, rec, id } = selectedTab(ctx);
  return ctx.broker.exclusive(rec.targetId, async () => {
    const session = await browser.session(rec);
    let navigated = true;
    if (delta === 0) {
      await runAndWait(session, () => session.send("Page.reload"), ctx.deadline, ctx.signal);
    } else {
      const { currentIndex, entries } = await session.send("Page.getNavigationHistory");
      const entry = entries[currentIndex + delta];
      if (entry) {
        await runAndWait(session, () => session.send("Page.navigateToHistoryEntry", { entryId: entry.id }), ctx.deadline, ctx.signal);
      } else {
        navigated = false;
      }
    }
    // The browser's own record, not the page's world: a page can shadow document.title.
    const { targetInfo } = await browser.cdp.send("Target.getTargetInfo", { targetId: rec.targetId });
    rec.url = targetInfo.url;
    rec.title = targetInfo.title;
    return { tab: id, url: rec.url, title: rec.title, navigated };
  });
}

export const PAGE_HANDLERS: Record<string, Handler> = {
  eval: evaluate,
  back: { mutating: true, dispatch: "lock", run: (ctx) => history(ctx, -1) },
  forward: { mutating: true, dispatch: "lock", run: (ctx) => history(ctx, 1) },
  reload: { mutating: true, dispatch: "lock", run: (ctx) => history(ctx, 0) },
};
