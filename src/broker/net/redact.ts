import { scrubSecrets } from "../../shared/secrets.ts";

/**
 * Credentials in URLs (`https://user:secret@host/`) never reach an agent's output: the
 * password becomes `***`. Applied to every reply the broker sends, so no command can forget.
 */
// One slash too: a URL that went through path normalisation ("http:/user:pw@host") still counts.
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/?)([^\s/?#@:"'<>]*):([^\s/?#@"'<>]*)@/gi;

export function redactUrl(text: string): string {
  // A remote endpoint's credentials (token, apiKey, headers), wherever a message quotes them.
  const scrubbed = scrubSecrets(text);
  if (!scrubbed.includes("@")) return scrubbed;
  return scrubbed.replace(USERINFO, (_m, scheme: string, user: string) => `${scheme}${user}:***@`);
}

/** Redacts every string inside a JSON-like value (keys stay). Returns the same value when nothing changed. */
export function redactDeep<T>(value: T): T {
  if (typeof value === "string") return redactUrl(value) as T;
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((v) => {
      const r = redactDeep(v);
      if (r !== v) changed = true;
      return r;
    });
    return (changed ? out : value) as T;
  }
  if (value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    let out: Record<string, unknown> | undefined;
    for (const [k, v] of Object.entries(value)) {
      const r = redactDeep(v);
      if (r !== v) (out ??= { ...(value as Record<string, unknown>) })[k] = r;
    }
    return (out ?? value) as T;
  }
  return value;
}
