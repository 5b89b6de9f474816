import type { CdpSession } from "../../cdp/session.ts";
import { BpError } from "../../shared/errors.ts";

/** Our isolated world: the page cannot see or change it, and it dies with its document. */
export const WORLD_NAME = "browser-pilot";

/**
 * Runs `(source)(window, arg)` in our isolated world of one frame and returns its value.
 * Page.createIsolatedWorld hands back the existing world for the same frame and name, so
 * state kept on `window` there (the ref registry) lasts exactly as long as the document.
 */
export async function runInWorld<T>(session: CdpSession, frameId: string, source: string, arg: unknown, timeoutMs?: number, extra: { userGesture?: boolean } = {}): Promise<T> {
  const opts = timeoutMs === undefined ? {} : { timeoutMs };
  const { executionContextId } = await session.send("Page.createIsolatedWorld", { frameId, worldName: WORLD_NAME, grantUniveralAccess: false }, opts);
  const res = await session.send(
    "Runtime.callFunctionOn",
    {
      functionDeclaration: `function (arg) { return (${source})(window, arg); }`,
      executionContextId,
      arguments: [{ value: arg }],
      returnByValue: true,
      awaitPromise: true,
      ...(extra.userGesture ? { userGesture: true } : {}),
    },
    opts,
  );
  if (res.exceptionDetails) {
    const text = res.exceptionDetails.exception?.description ?? res.exceptionDetails.text;
    throw new BpError("internal_error", `Page script failed: ${text.split("\n")[0]?.slice(0, 300) ?? "error"}`, { context: { frameId: "redacted" } });
  }
  return res.result.value as T;
}

/** Like runInWorld but keeps the result as a remote object (an element), for CDP input calls. */
export async function objectInWorld(session: CdpSession, frameId: string, source: string, arg: unknown): Promise<string | undefined> {
  const { executionContextId } = await session.send("Page.createIsolatedWorld", { frameId, worldName: WORLD_NAME, grantUniveralAccess: false });
  const res = await session.send("Runtime.callFunctionOn", {
    functionDeclaration: `function (arg) { return (${source})(window, arg); }`,
    executionContextId,
    arguments: [{ value: arg }],
    returnByValue: false,
  });
  if (res.exceptionDetails || res.result.subtype === "null" || res.result.type === "undefined") return undefined;
  return res.result.objectId;
}
