/** Credentials of a remote endpoint: once known, scrubbed from every reply, record, close reason and log line. */
const SECRET_PARAM = /token|key|auth|pass|pwd|secret|sig|jwt|cred/i;
/** Shorter values occur in unrelated text; in URLs any length is masked by parameter name. */
const MIN_SECRET_CHARS = 8;
const MASK = "***";

const known = new Set<string>();

function spellings(value: string): string[] {
  const out = [value];
  try {
    out.push(decodeURIComponent(value));
  } catch {
    // not percent-encoded
  }
  out.push(encodeURIComponent(value));
  return out;
}

export function endpointSecrets(raw: string, headers?: Record<string, string>): string[] {
  const out: string[] = [];
  try {
    const u = new URL(raw);
    if (u.password) out.push(...spellings(u.password), ...spellings(u.username));
    else if (u.username) out.push(...spellings(u.username));
    for (const [name, value] of rawParams(u.search)) if (SECRET_PARAM.test(name)) out.push(...spellings(value));
  } catch {
    // not a URL: nothing to take from it
  }
  for (const value of Object.values(headers ?? {})) {
    out.push(value);
    // "Bearer <token>", "Basic <b64>": the credential alone may be quoted too.
    const last = value.trim().split(/\s+/).pop();
    if (last) out.push(last);
  }
  return [...new Set(out)].filter((s) => s.length >= MIN_SECRET_CHARS);
}

export function rememberSecrets(secrets: readonly string[]): void {
  for (const s of secrets) if (s.length >= MIN_SECRET_CHARS) known.add(s);
}

/** Every known secret in `text` becomes `***`; ws(s) URLs lose their secret parameters too. */
export function scrubSecrets(text: string): string {
  let out = text;
  for (const s of known) if (out.includes(s)) out = out.split(s).join(MASK);
  // Only a URL that carries credentials is rewritten: any other text stays as it was.
  if (out.includes("ws"))
    out = out.replace(/\bwss?:\/\/[^\s"'<>]+/gi, (u) => (hasCredentials(u) ? displayEndpoint(u) : u));
  return out;
}

function hasCredentials(raw: string): boolean {
  try {
    const u = new URL(raw);
    return (
      u.username !== "" ||
      u.password !== "" ||
      rawParams(u.search).some(([name, value]) => value !== "" && SECRET_PARAM.test(name))
    );
  } catch {
    return false;
  }
}

/** Query parameters as written (name, raw value): URLSearchParams would re-encode the mask. */
function rawParams(search: string): [string, string][] {
  if (search.length <= 1) return [];
  return search
    .slice(1)
    .split("&")
    .map((pair) => {
      const i = pair.indexOf("=");
      return i < 0 ? ([pair, ""] as [string, string]) : ([pair.slice(0, i), pair.slice(i + 1)] as [string, string]);
    });
}

export function displayEndpoint(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return "(invalid url)";
  }
  const user = u.password ? `${u.username}:${MASK}@` : u.username ? `${MASK}@` : "";
  const query = rawParams(u.search)
    .map(([name, value]) => (value === "" ? name : `${name}=${SECRET_PARAM.test(name) ? MASK : value}`))
    .join("&");
  return `${u.protocol}//${user}${u.host}${u.pathname === "/" && !raw.includes(`${u.host}/`) ? "" : u.pathname}${query ? `?${query}` : ""}`;
}
