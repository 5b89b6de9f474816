/**
 * What the policy stopped, kept per client key until a reply of that key reports it (a popup's request may follow the
 * click's reply). At most 50 per key.
 */
import { cutString } from "../../shared/page-strings.ts";
import { redactUrl } from "../net/redact.ts";

export interface PolicyBlock {
  kind: "navigation" | "request" | "popup" | "download";
  url: string;
  rule: string;
  entry?: string;
}

const waiting = new Map<string, PolicyBlock[]>();

export function recordBlock(key: string, b: PolicyBlock): void {
  const list = waiting.get(key) ?? [];
  list.push({ ...b, url: cutString(redactUrl(b.url), 200) });
  if (list.length > 50) list.splice(0, list.length - 50);
  waiting.set(key, list);
}

/** The blocks not yet reported to this key (taken), at most 5 listed, with the total. */
function takeBlocks(key: string): { blocked: PolicyBlock[]; total: number } | undefined {
  const list = waiting.get(key);
  if (!list || list.length === 0) return undefined;
  waiting.delete(key);
  return { blocked: list.slice(0, 5), total: list.length };
}

export function forgetBlocks(key: string): void {
  waiting.delete(key);
}

/** The reply with what the policy stopped and no reply has reported yet (field `policyBlocked`). */
export function withBlocks(reply: Record<string, unknown>, key: string): Record<string, unknown> {
  const b = takeBlocks(key);
  if (!b) return reply;
  const nav = b.blocked.find((x) => x.kind === "navigation");
  if (reply.ok === false && reply.code === "navigation_failed" && nav) {
    // The navigation failed because the policy stopped it (a redirect to a denied origin): say so.
    return {
      ok: false,
      error: `The navigation was stopped at ${nav.url}: the host policy denies it (rule ${nav.rule}).`,
      code: "policy_denied",
      retryable: false,
      context: { rule: nav.rule, url: nav.url, ...(nav.entry ? { entry: nav.entry } : {}) },
      policyBlocked: b.blocked,
    };
  }
  return {
    ...reply,
    policyBlocked: b.total > b.blocked.length ? [...b.blocked, { more: b.total - b.blocked.length }] : b.blocked,
  };
}
