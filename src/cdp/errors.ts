/**
 * CDP errors carry a string `kind` (mapped to public codes, passed over the janitor pipe) rather than relying on
 * `instanceof` or class names (minified builds rename them).
 */

export type CdpErrorKind =
  | "protocol"
  | "timeout"
  | "closed"
  | "session_closed"
  | "aborted"
  | "connect"
  | "handshake_timeout";

export abstract class CdpBaseError extends Error {
  abstract readonly kind: CdpErrorKind;
}

/** The browser answered with an error; created at send time so its stack names the caller. */
export class CdpError extends CdpBaseError {
  readonly kind = "protocol";
  override name = "CdpError";
  /** JSON-RPC error code from the browser (e.g. -32000 server error, -32601 no such method). */
  code = 0;
  readonly method: string;
  data?: string;

  constructor(method: string) {
    super(`${method}: no reply yet`);
    this.method = method;
  }

  /** @internal */
  fill(code: number, message: string, data: string | undefined): this {
    const oldHeader = `${this.name}: ${this.message}`;
    this.code = code;
    this.message = `${this.method}: ${message}`;
    if (data !== undefined) this.data = data;
    rewriteHeader(this, oldHeader);
    return this;
  }
}

/** The call's deadline passed. The command was sent; whether it ran is unknown. */
export class CdpTimeoutError extends CdpBaseError {
  readonly kind = "timeout";
  override name = "CdpTimeoutError";
  readonly method: string;
  readonly timeoutMs: number;
  readonly sent = true;

  constructor(method: string, timeoutMs: number) {
    super(`${method}: no reply within ${timeoutMs} ms (raise timeoutMs or the connection's defaultTimeoutMs)`);
    this.method = method;
    this.timeoutMs = timeoutMs;
  }
}

/** The connection closed before the reply. `sent`: the browser may have run it, so do not replay blindly. */
export class CdpClosedError extends CdpBaseError {
  readonly kind: CdpErrorKind = "closed";
  override name = "CdpClosedError";
  readonly method: string | undefined;
  readonly reason: string;
  readonly sent: boolean;

  constructor(method: string | undefined, reason: string, sent: boolean, what = "connection closed") {
    super(`${method === undefined ? "CDP" : method}: ${what} (${reason})`);
    this.method = method;
    this.reason = reason;
    this.sent = sent;
  }
}

export class CdpSessionClosedError extends CdpClosedError {
  override readonly kind: CdpErrorKind = "session_closed";
  override name = "CdpSessionClosedError";
  readonly sessionId: string;

  constructor(method: string | undefined, sessionId: string, reason: string, sent: boolean) {
    super(method, reason, sent, "session closed");
    this.sessionId = sessionId;
  }
}

export class CdpAbortedError extends CdpBaseError {
  readonly kind = "aborted";
  override name = "CdpAbortedError";
  readonly method: string;
  readonly sent: boolean;

  constructor(method: string, sent: boolean, cause: unknown) {
    super(`${method}: aborted${sent ? " after it was sent" : ""}`, { cause });
    this.method = method;
    this.sent = sent;
  }
}

/** Opening the WebSocket failed. `endpoint` is scheme://host:port only: paths and queries carry tokens. */
export class CdpConnectError extends CdpBaseError {
  readonly kind: CdpErrorKind = "connect";
  override name = "CdpConnectError";
  readonly endpoint: string;
  /** The HTTP status of a refused upgrade (401, 404, 429…), when the server answered one. */
  readonly status: number | undefined;
  /** A refused upgrade's Retry-After, in ms (read only where the handshake's headers are). */
  readonly retryAfterMs: number | undefined;

  constructor(
    endpoint: string,
    message: string,
    options?: { cause?: unknown; status?: number; retryAfterMs?: number },
  ) {
    super(message, options);
    this.endpoint = endpoint;
    this.status = options?.status;
    this.retryAfterMs = options?.retryAfterMs;
  }
}

export class CdpHandshakeTimeoutError extends CdpConnectError {
  override readonly kind: CdpErrorKind = "handshake_timeout";
  override name = "CdpHandshakeTimeoutError";
  readonly timeoutMs: number;

  constructor(endpoint: string, timeoutMs: number) {
    super(endpoint, `WebSocket handshake with ${endpoint} did not finish within ${timeoutMs} ms`);
    this.timeoutMs = timeoutMs;
  }
}

export function isCdpError(value: unknown): value is CdpBaseError {
  return value instanceof CdpBaseError;
}

/** Gives an error created late (timeout, close) the call-site frames captured at send time. */
export function withCallSite<E extends Error>(error: E, origin: Error): E {
  const frames = origin.stack;
  if (frames === undefined) return error;
  const newline = frames.indexOf("\n");
  error.stack = `${error.name}: ${error.message}${newline === -1 ? "" : frames.slice(newline)}`;
  return error;
}

// Engines format the stack header from the message once; keep it in step after fill().
function rewriteHeader(error: Error, oldHeader: string): void {
  const stack = error.stack;
  if (stack === undefined || !stack.startsWith(oldHeader)) return;
  error.stack = `${error.name}: ${error.message}${stack.slice(oldHeader.length)}`;
}

/** What a protocol error says happened to the page (target gone, document replaced); others stay unclassified. */
export type ProtocolErrorCause = "target_gone" | "document_replaced";

const TARGET_GONE =
  /No target with given id|Not attached to an active page|No session with given id|Target closed|Session with given id not found/i;
const DOCUMENT_REPLACED =
  /Inspected target navigated or closed|Cannot find context with specified id|Execution context was destroyed|Cannot find default execution context|Frame with the given id was not found/i;

export function protocolErrorCause(err: unknown): ProtocolErrorCause | undefined {
  if (!(err instanceof CdpError)) return undefined;
  if (TARGET_GONE.test(err.message)) return "target_gone";
  if (DOCUMENT_REPLACED.test(err.message)) return "document_replaced";
  return undefined;
}
