/**
 * What the policy stopped in the page (a navigation, a request, a popup, a download), kept per
 * client key so the reply of the command during which it happened can say which rule stopped
 * it. Bounded: the last 50 per key.
 */
import { cutString } from "../../shared/page-strings.ts";
import { redactUrl } from "../net/redact.ts";

export interface PolicyBlock {
  seq: number;
  kind: "navigation" | "request" | "popup" | "download";
  url: string;
  rule: string;
  entry?: string;
}

const byKey = new Map<string, PolicyBlock[]>();
let seq = 0;

export function recordBlock(key: string, b: Omit<PolicyBlock, "seq">): void {
  const list = byKey.get(key) ?? [];
  list.push({ ...b, url: cutString(redactUrl(b.url), 200), seq: ++seq });
  if (list.length > 50) list.splice(0, list.length - 50);
  byKey.set(key, list);
}

export function blockMark(): number {
  return seq;
}

/** Blocks for this key since the mark, at most 5 listed (with the total when more). */
export function blocksSince(key: string, mark: number): { blocked: Omit<PolicyBlock, "seq">[]; total: number } | undefined {
  const list = (byKey.get(key) ?? []).filter((b) => b.seq > mark);
  if (list.length === 0) return undefined;
  return { blocked: list.slice(0, 5).map(({ seq: _s, ...rest }) => rest), total: list.length };
}

export function forgetBlocks(key: string): void {
  byKey.delete(key);
}

/** The reply with what the policy stopped during the command (field `policyBlocked`), when anything was. */
export function withBlocks(reply: Record<string, unknown>, key: string, mark: number): Record<string, unknown> {
  const b = blocksSince(key, mark);
  if (!b) return reply;
  const nav = b.blocked.find((x) => x.kind === "navigation");
  if (reply.ok === false && reply.code === "navigation_failed" && nav) {
    // The navigation failed because the policy stopped it (a redirect to a denied origin): say so.
    return { ok: false, error: `The navigation was stopped at ${nav.url}: the host policy denies it (rule ${nav.rule}).`, code: "policy_denied", retryable: false, context: { rule: nav.rule, url: nav.url, ...(nav.entry ? { entry: nav.entry } : {}) }, policyBlocked: b.blocked };
  }
  const out: Record<string, unknown> = { ...reply, policyBlocked: b.total > b.blocked.length ? [...b.blocked, { more: b.total - b.blocked.length }] : b.blocked };
  if (typeof reply.text === "string") out.text = [reply.text, ...b.blocked.map((x) => `policy stopped ${x.kind} ${x.url} (${x.rule}${x.entry ? ` ${x.entry}` : ""})`)].join("\n");
  return out;
}
