/**
 * An agent's network rules and the one decision they make for a request.
 *
 * Precedence is fixed and independent of the order commands arrive in:
 *   1. block: any matching block rule fails the request (BlockedByClient);
 *   2. mock: otherwise the newest matching mock rule answers it;
 *   3. headers: otherwise every matching header rule applies, oldest first, so a newer rule
 *      wins for the same header name (names compare case-insensitively).
 * A request no rule matches continues untouched.
 */
import { urlMatches } from "../commands/canonical.ts";

export const MAX_RULES = 256;
export const MAX_MOCK_BODY = 1_000_000;
/** Bytes of mock bodies and headers one agent's rules may hold. */
export const MAX_RULE_BYTES = 8 * 1024 * 1024;

export type Rule =
  | { id: string; type: "block"; pattern: string; seq: number }
  | {
      id: string;
      type: "mock";
      pattern: string;
      seq: number;
      status: number;
      body: Uint8Array;
      headers: Record<string, string>;
    }
  | { id: string; type: "headers"; pattern: string; seq: number; headers: Record<string, string> };

export type Decision =
  | { action: "continue" }
  | { action: "block"; rule: Rule }
  | { action: "mock"; rule: Extract<Rule, { type: "mock" }> }
  | { action: "headers"; rules: Extract<Rule, { type: "headers" }>[]; headers: Record<string, string> };

export function ruleBytes(r: Rule): number {
  let n = r.pattern.length;
  if (r.type === "mock") n += r.body.length;
  if (r.type !== "block") for (const [k, v] of Object.entries(r.headers)) n += k.length + v.length;
  return n;
}

/** `"Name: value"` → [name, value]; the name must be a valid header token. */
export function parseHeader(line: string): [string, string] | undefined {
  const i = line.indexOf(":");
  if (i <= 0) return undefined;
  const name = line.slice(0, i).trim();
  const value = line.slice(i + 1).trim();
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) return undefined;
  if (/[\r\n\0]/.test(value)) return undefined;
  return [name, value];
}

/** Overrides by name, case-insensitively, keeping the request's other headers. */
export function mergeHeaders(base: Record<string, string>, over: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  const lower = new Map(Object.keys(over).map((k) => [k.toLowerCase(), k]));
  for (const [k, v] of Object.entries(base)) if (!lower.has(k.toLowerCase())) out[k] = v;
  for (const [k, v] of Object.entries(over)) out[k] = v;
  return out;
}

export function decide(rules: readonly Rule[], url: string): Decision {
  const matching = rules.filter((r) => urlMatches(url, r.pattern)).sort((a, b) => a.seq - b.seq);
  const block = matching.find((r) => r.type === "block");
  if (block) return { action: "block", rule: block };
  const mocks = matching.filter((r): r is Extract<Rule, { type: "mock" }> => r.type === "mock");
  const mock = mocks.at(-1);
  if (mock) return { action: "mock", rule: mock };
  const headerRules = matching.filter((r): r is Extract<Rule, { type: "headers" }> => r.type === "headers");
  if (headerRules.length > 0) {
    let headers: Record<string, string> = {};
    for (const r of headerRules) headers = mergeHeaders(headers, r.headers);
    return { action: "headers", rules: headerRules, headers };
  }
  return { action: "continue" };
}

/** What `bp net rules` shows of a rule: never a mock body, only its size. */
export type PublicRule = {
  id: string;
  type: Rule["type"];
  pattern: string;
  status?: number;
  bodySize?: number;
  headers?: Record<string, string>;
};

export function publicRule(r: Rule): PublicRule {
  const out: PublicRule = { id: r.id, type: r.type, pattern: r.pattern };
  if (r.type === "mock") {
    // Lean: the status only when not 200, the body size only when there is a body.
    if (r.status !== 200) out.status = r.status;
    if (r.body.length > 0) out.bodySize = r.body.length;
    if (Object.keys(r.headers).length > 0) out.headers = r.headers;
  }
  if (r.type === "headers") out.headers = r.headers;
  return out;
}
