/**
 * Origin patterns of the host policy: `[scheme://]host[:port][/path]`, or a bare `scheme:`.
 *   host: `example.com`, `*.example.com` (the domain and every subdomain), `*`, an IPv4
 *   address or `[v6]`; scheme: absent means http, https, ws and wss; port absent means any;
 *   path: a glob (`*` any run of characters) on the path and query, absent means any.
 * `data:` or `file:` alone match every URL of that scheme. about:blank and about:srcdoc load
 * nothing and always pass; a blob: URL is judged by the origin inside it.
 */
const WEB = ["http", "https", "ws", "wss"];

export interface OriginPattern {
  scheme?: string;
  /** A scheme-only pattern ("data:"). */
  schemeOnly?: boolean;
  host?: string;
  /** "*.example.com" form. */
  wildcard?: boolean;
  port?: string;
  path?: string;
  error?: string;
}

const HOST_RE = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

export function parseOriginPattern(raw: string): OriginPattern {
  const p = raw.toLowerCase();
  if (p === "" || /[\s\\]/.test(p)) return { error: "a pattern may not be empty or contain spaces or backslashes." };
  const only = /^([a-z][a-z0-9+.-]*):$/.exec(p);
  if (only?.[1]) return { scheme: only[1], schemeOnly: true };
  let rest = p;
  let scheme: string | undefined;
  const sm = /^([a-z][a-z0-9+.-]*|\*):\/\//.exec(rest);
  if (sm?.[1]) {
    scheme = sm[1] === "*" ? undefined : sm[1];
    rest = rest.slice(sm[0].length);
  } else if (rest.includes("://")) return { error: `'${raw.slice(0, 80)}' has a scheme that does not parse.` };
  const slash = rest.indexOf("/");
  const hostPort = slash >= 0 ? rest.slice(0, slash) : rest;
  const path = slash >= 0 ? rest.slice(slash) : undefined;
  let host = hostPort;
  let port: string | undefined;
  const v6 = /^(\[[0-9a-f:.]+\])(?::(\d{1,5}|\*))?$/.exec(hostPort);
  if (v6?.[1]) {
    host = v6[1];
    port = v6[2];
  } else {
    const i = hostPort.lastIndexOf(":");
    if (i >= 0) {
      host = hostPort.slice(0, i);
      port = hostPort.slice(i + 1);
      if (!/^(\d{1,5}|\*)$/.test(port) || (port !== "*" && Number(port) > 65535))
        return { error: `'${raw.slice(0, 80)}' has a port that does not parse.` };
    }
  }
  if (port === "*") port = undefined;
  let wildcard = false;
  if (host.startsWith("*.")) {
    wildcard = true;
    host = host.slice(2);
  }
  const valid = host === "*" ? !wildcard : v6 ? true : HOST_RE.test(host);
  if (!valid) return { error: `'${raw.slice(0, 80)}' has a host that does not parse.` };
  if (path !== undefined && path.includes("**"))
    return { error: `'${raw.slice(0, 80)}' has '**' in its path; one '*' matches any run.` };
  return {
    ...(scheme ? { scheme } : {}),
    host,
    ...(wildcard ? { wildcard } : {}),
    ...(port ? { port } : {}),
    ...(path && path !== "/*" ? { path } : {}),
  };
}

function glob(pattern: string, text: string): boolean {
  const parts = pattern.split("*");
  if (parts.length === 1) return pattern === text;
  const first = parts[0] ?? "";
  const last = parts[parts.length - 1] ?? "";
  if (!text.startsWith(first) || text.length < first.length + last.length || !text.endsWith(last)) return false;
  let at = first.length;
  for (const mid of parts.slice(1, -1)) {
    const i = text.indexOf(mid, at);
    if (i < 0 || i + mid.length > text.length - last.length) return false;
    at = i + mid.length;
  }
  return true;
}

const cache = new Map<string, OriginPattern>();
function compiled(p: string): OriginPattern {
  let c = cache.get(p);
  if (!c) {
    c = parseOriginPattern(p);
    if (cache.size > 4096) cache.clear();
    cache.set(p, c);
  }
  return c;
}

/** The parts a URL is judged by; undefined for the ones that always pass (about:blank). */
export function urlParts(
  url: string,
): { scheme: string; host: string; port: string; path: string } | "pass" | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  if (u.protocol === "about:" && (u.pathname === "blank" || u.pathname === "srcdoc")) return "pass";
  if (u.protocol === "blob:") {
    try {
      u = new URL(u.pathname);
    } catch {
      return undefined;
    }
  }
  const scheme = u.protocol.slice(0, -1);
  const port = u.port || ({ http: "80", https: "443", ws: "80", wss: "443" } as Record<string, string>)[scheme] || "";
  return { scheme, host: u.hostname.toLowerCase(), port, path: `${u.pathname}${u.search}` };
}

export function patternMatches(pattern: string, url: string): boolean {
  const parts = urlParts(url);
  if (parts === "pass") return true;
  return parts !== undefined && partsMatch(pattern, parts);
}

type Parts = Exclude<ReturnType<typeof urlParts>, "pass" | undefined>;

function partsMatch(pattern: string, parts: Parts): boolean {
  const p = compiled(pattern);
  if (p.error) return false;
  if (p.schemeOnly) return parts.scheme === p.scheme;
  if (p.scheme ? parts.scheme !== p.scheme : !WEB.includes(parts.scheme)) return false;
  if (p.host !== "*" && !(parts.host === p.host || (p.wildcard === true && parts.host.endsWith(`.${p.host ?? ""}`))))
    return false;
  if (p.port !== undefined && parts.port !== p.port) return false;
  return p.path === undefined || glob(p.path, parts.path);
}

/** Whether every URL `inner` matches also matches `outer` (conservative: false when unsure). */
export function coversPattern(outer: string, inner: string): boolean {
  const o = compiled(outer);
  const i = compiled(inner);
  if (o.error || i.error) return false;
  if (o.schemeOnly) return i.scheme === o.scheme;
  if (i.schemeOnly) return false;
  if (o.scheme ? i.scheme !== o.scheme : i.scheme !== undefined && !WEB.includes(i.scheme)) return false;
  if (o.host !== "*") {
    if (i.host === "*") return false;
    const same = i.host === o.host && (o.wildcard === true || i.wildcard !== true);
    const sub = o.wildcard === true && (i.host ?? "").endsWith(`.${o.host ?? ""}`);
    if (!same && !sub) return false;
  }
  if (o.port !== undefined && i.port !== o.port) return false;
  if (o.path === undefined) return true;
  if (i.path === undefined) return false;
  if (o.path === i.path) return true;
  const star = o.path.indexOf("*");
  return star === o.path.length - 1 && i.path.startsWith(o.path.slice(0, -1));
}

/** Why a URL may not be loaded under these lists, or undefined when it may. */
export function originVerdict(
  rules: { allow?: string[][]; block: string[] },
  url: string,
): { rule: "origins.deny" | "origins.allow"; entry?: string } | undefined {
  const parts = urlParts(url);
  if (parts === "pass") return undefined;
  // A URL that does not parse matches no pattern: refused only where an allow list must hold.
  const hit = parts ? rules.block.find((p) => partsMatch(p, parts)) : undefined;
  if (hit !== undefined) return { rule: "origins.deny", entry: hit };
  for (const list of rules.allow ?? [])
    if (!parts || !list.some((p) => partsMatch(p, parts))) return { rule: "origins.allow" };
  return undefined;
}
