import { BpError, invalidArgument } from "../shared/errors.ts";
import { displayEndpoint, endpointSecrets, rememberSecrets } from "../shared/secrets.ts";
import type { BrowserInfo } from "./browser.ts";
import { HandshakeRefused } from "./janitor-client.ts";

/**
 * A remote browser reached by its browser-level CDP WebSocket. Only ws/wss: an http discovery URL would have us fetch
 * whatever it names, and a page socket cannot create or list tabs.
 */
export function remoteBrowser(
  raw: string,
  headers: Record<string, string> | undefined,
  connectTimeoutMs: number,
): BrowserInfo {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalidArgument("cdpUrl", "--cdp-url is not a URL.");
  }
  // Known before anything can quote them: every reply and log line of the broker scrubs them.
  rememberSecrets(endpointSecrets(raw, headers));
  if (url.protocol !== "ws:" && url.protocol !== "wss:") {
    throw invalidArgument(
      "cdpUrl",
      "--cdp-url must be a browser-level ws:// or wss:// endpoint (http discovery URLs are not followed).",
      { scheme: url.protocol },
    );
  }
  if (/\/devtools\/(page|worker|iframe)\//.test(url.pathname)) {
    throw invalidArgument(
      "cdpUrl",
      "--cdp-url names a page socket; give the browser-level endpoint (…/devtools/browser/…).",
    );
  }
  // browserless serves Playwright's own protocol on these paths; bp speaks CDP only.
  if (/(^|\/)playwright(\/|$)/i.test(url.pathname)) {
    throw new BpError(
      "protocol_incompatible",
      `${displayEndpoint(raw)} is a Playwright endpoint; bp speaks CDP: on browserless, use the same URL without the /playwright path.`,
      {
        context: { field: "cdpUrl" },
      },
    );
  }
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(name) || /[\r\n]/.test(value))
      throw invalidArgument("headers", "A header name or value on stdin is not valid.");
  }
  // The whole URL names the endpoint (options and sessions live in the query); secrets enter only through the digest.
  const id = `browser:remote:${new Bun.CryptoHasher("sha256").update(url.href).digest("base64url").slice(0, 20)}`;
  return {
    id,
    product: "Remote browser",
    source: "remote",
    endpoint: url.href,
    connectTimeoutMs,
    ...(headers ? { headers } : {}),
  };
}

export const REMOTE_ENDED = "remote_session_ended";

/** What to run after a remote session ended: the same endpoint, named without its secrets. */
export function reconnectAdvice(last: { endpoint: string; headers: boolean }): string {
  const at = displayEndpoint(last.endpoint);
  return last.headers
    ? `Run 'bp connect --reconnect' to connect to ${at} again, with its headers as JSON on stdin once more (they are not kept); a new session on most services.`
    : `Run 'bp connect --reconnect' to connect to ${at} again; a new session on most services.`;
}

/** A remote session the service ended: the same endpoint, masked, is the way back. */
export function remoteSessionEnded(
  last: { endpoint: string; headers: boolean },
  detail?: string,
  context: Record<string, unknown> = {},
): BpError {
  const at = displayEndpoint(last.endpoint);
  return new BpError(
    "browser_disconnected",
    `The remote browser session at ${at} ended${detail ? ` (${detail})` : ""}; its tabs are gone.`,
    {
      retryable: true,
      hint: "Run 'bp connect --reconnect'.",
      context: { ...context, reason: REMOTE_ENDED, endpoint: at },
      remediation: { code: "reconnect_remote", message: reconnectAdvice(last), actionRequired: true },
    },
  );
}

const CHECK_REMOTE =
  "Check that the endpoint is a reachable browser-level CDP WebSocket and that any required headers were given as JSON on stdin.";

/** A refused or failed handshake, by what the service answered. */
export function remoteConnectError(raw: string, err: unknown, connectTimeoutMs: number): BpError {
  const at = displayEndpoint(raw);
  if (err instanceof HandshakeRefused) {
    const { status, timedOut } = err;
    const context = { field: "cdpUrl", ...(status !== undefined ? { status } : {}) };
    if (status === 401 || status === 403) {
      return new BpError(
        "browser_not_authorized",
        `The remote browser at ${at} refused the credentials (HTTP ${status}).`,
        {
          context,
          remediation: {
            code: "check_remote_credentials",
            message:
              "Check the token in the URL or the headers given as JSON on stdin; retrying with the same ones fails the same way.",
            actionRequired: true,
          },
        },
      );
    }
    if (status === 404 || status === 410) {
      return new BpError(
        "browser_not_found",
        `The remote browser at ${at} does not exist (HTTP ${status}): its session ended or the path is wrong.`,
        {
          context: { ...context, reason: "remote_session_gone" },
          remediation: {
            code: "check_remote_endpoint",
            message: "Start (mint) a new session with the service and connect to its URL.",
            actionRequired: true,
          },
        },
      );
    }
    if (status === 429 || status === 503) {
      const after = err.retryAfterMs;
      return new BpError("browser_busy", `The remote browser service at ${at} is at capacity (HTTP ${status}).`, {
        retryable: true,
        context: after !== undefined ? { ...context, retryAfterMs: after } : context,
        hint:
          after !== undefined
            ? `The service asks to retry in ${Math.ceil(after / 1000)} s (Retry-After); or raise its concurrency or queue.`
            : "Retry later, or raise the service's concurrency or queue.",
      });
    }
    if (timedOut) {
      return new BpError(
        "browser_not_found",
        `The remote browser at ${at} did not answer the handshake within ${connectTimeoutMs} ms.`,
        {
          retryable: true,
          context: { ...context, reason: "handshake_timeout", timeoutMs: connectTimeoutMs },
          hint: "A queued service answers only once its browser runs: retry with a larger --connect-timeout.",
        },
      );
    }
    return new BpError(
      "browser_not_found",
      `Could not connect to the remote browser at ${at}${status !== undefined ? ` (HTTP ${status})` : ""}.`,
      {
        retryable: status === undefined || status >= 500,
        context,
        remediation: { code: "check_remote_endpoint", message: CHECK_REMOTE, actionRequired: true },
      },
    );
  }
  if (err instanceof BpError) return err;
  return new BpError("browser_not_found", `Could not connect to the remote browser at ${at}.`, {
    retryable: true,
    context: { field: "cdpUrl" },
    remediation: { code: "check_remote_endpoint", message: CHECK_REMOTE, actionRequired: true },
  });
}
