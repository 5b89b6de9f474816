import { BpError, invalidArgument } from "../shared/errors.ts";
import type { BrowserInfo } from "./browser.ts";

/**
 * A remote browser (browserless, Selenium Grid, a hosted provider) reached by its
 * browser-level CDP WebSocket. Only ws/wss browser endpoints: an http discovery URL would
 * make us fetch and follow whatever it names, and a page socket cannot create or list tabs.
 */
export function remoteBrowser(raw: string, headers: Record<string, string> | undefined): BrowserInfo {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalidArgument("cdpUrl", "--cdp-url is not a URL.");
  }
  if (url.protocol !== "ws:" && url.protocol !== "wss:") {
    throw invalidArgument("cdpUrl", "--cdp-url must be a browser-level ws:// or wss:// endpoint (http discovery URLs are not followed).", { scheme: url.protocol });
  }
  if (/\/devtools\/(page|worker|iframe)\//.test(url.pathname)) {
    throw invalidArgument("cdpUrl", "--cdp-url names a page socket; give the browser-level endpoint (…/devtools/browser/…).");
  }
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(name) || /[\r\n]/.test(value)) throw invalidArgument("headers", "A header name or value on stdin is not valid.");
  }
  const id = `browser:remote:${new Bun.CryptoHasher("sha256").update(`${url.host}${url.pathname}`).digest("base64url").slice(0, 20)}`;
  return { id, product: "Remote browser", source: "remote", endpoint: url.href, ...(headers ? { headers } : {}) };
}

/** What may be shown of a remote endpoint: scheme, host and port; never a path token or query. */
export function redactedEndpoint(raw: string): string {
  try {
    const u = new URL(raw);
    return `${u.protocol}//${u.host}`;
  } catch {
    return "(invalid url)";
  }
}

export function remoteConnectError(raw: string, err: unknown): BpError {
  if (err instanceof BpError && err.code !== "browser_not_authorized") return err;
  return new BpError("browser_not_found", `Could not connect to the remote browser at ${redactedEndpoint(raw)}.`, {
    retryable: true,
    context: { field: "cdpUrl" },
    remediation: { code: "check_remote_endpoint", message: "Check that the endpoint is a reachable browser-level CDP WebSocket and that any required headers were given as JSON on stdin.", actionRequired: true },
  });
}
