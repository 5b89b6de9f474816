/**
 * Canonical forms used by command records: argument JSON with sorted keys (so `{a,b}` and
 * `{b,a}` are the same call) and the idempotency fingerprint of a request.
 */

/** JSON with object keys sorted at every depth; undefined members are dropped, as JSON does. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortDeep(value)) ?? "null";
}

function sortDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => (v === undefined ? null : sortDeep(v)));
  if (value !== null && typeof value === "object") {
    const src = value as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(src).sort()) {
      const v = src[key];
      if (v !== undefined) out[key] = sortDeep(v);
    }
    return out;
  }
  return value;
}

/** What must match for a retried request id to be "the same call". */
export interface Fingerprint {
  command: string;
  args: string;
}

export function fingerprint(command: string, args: Record<string, unknown>): Fingerprint {
  return { command, args: canonicalJson(args) };
}

/**
 * The full idempotency key: client key + request id + command + canonical arguments +
 * the physical target the call resolved to at acceptance ("none" without a selected tab).
 */
export function idempotencyKey(clientKey: string, requestId: string, fp: Fingerprint, target: string): string {
  return JSON.stringify([clientKey, requestId, fp.command, fp.args, target]);
}

/**
 * Case-insensitive URL match: with `*` the pattern must match the whole URL (`*` is any
 * run of characters, even none); without `*` it is a substring test.
 */
export function urlMatches(url: string, pattern: string): boolean {
  const u = url.toLowerCase();
  const p = pattern.toLowerCase();
  if (!p.includes("*")) return u.includes(p);
  const re = p
    .split("*")
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
    .join(".*");
  return new RegExp(`^${re}$`, "s").test(u);
}
