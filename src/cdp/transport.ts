import { CdpClosedError, CdpConnectError, CdpHandshakeTimeoutError } from "./errors.ts";
import type { openReadingRefusal, Refusal } from "./refusal.ts";

/** The seam between the CDP connection and what carries its frames; `onClose` fires exactly once. */
export interface Transport {
  /** A transport that writes later calls `onFailed` once instead of throwing. */
  send(message: string, onFailed?: (error: unknown) => void): void;
  close(): void;
  onMessage: ((message: string) => void) | undefined;
  onClose: ((reason: string) => void) | undefined;
  readonly closed: boolean;
}

/** Holds frames and the close notice until a consumer attaches: nothing arriving before is lost. */
abstract class BufferedTransport implements Transport {
  #onMessage: ((message: string) => void) | undefined;
  #onClose: ((reason: string) => void) | undefined;
  #queue: string[] = [];
  #closeReason: string | undefined;
  #closeDelivered = false;

  abstract send(message: string): void;
  abstract close(): void;

  get closed(): boolean {
    return this.#closeReason !== undefined;
  }

  get onMessage(): ((message: string) => void) | undefined {
    return this.#onMessage;
  }

  set onMessage(handler: ((message: string) => void) | undefined) {
    this.#onMessage = handler;
    if (handler === undefined || this.#queue.length === 0) return;
    const queued = this.#queue;
    this.#queue = [];
    for (const message of queued) this.#deliver(message);
  }

  get onClose(): ((reason: string) => void) | undefined {
    return this.#onClose;
  }

  set onClose(handler: ((reason: string) => void) | undefined) {
    this.#onClose = handler;
    if (handler !== undefined && this.#closeReason !== undefined) this.#deliverClose();
  }

  protected receive(message: string): void {
    if (this.#closeReason !== undefined) return;
    this.#deliver(message);
  }

  protected finish(reason: string): void {
    if (this.#closeReason !== undefined) return;
    this.#closeReason = reason;
    this.#deliverClose();
  }

  protected assertOpen(): void {
    if (this.#closeReason !== undefined) throw new CdpClosedError(undefined, this.#closeReason, false);
  }

  #deliver(message: string): void {
    const handler = this.#onMessage;
    if (handler === undefined) this.#queue.push(message);
    else handler(message);
  }

  #deliverClose(): void {
    const handler = this.#onClose;
    const reason = this.#closeReason;
    if (handler === undefined || reason === undefined || this.#closeDelivered) return;
    this.#closeDelivered = true;
    handler(reason);
  }
}

export interface WebSocketConnectOptions {
  /** Upgrade must complete within this; default 8000 ms. */
  handshakeTimeoutMs?: number;
  /** Sent with the upgrade request (hosted browsers' auth). Never logged or echoed. */
  headers?: Record<string, string>;
  /** Messages longer than this (UTF-16 units) close the transport; default 512 Mi. */
  maxPayload?: number;
  /** permessage-deflate; default off for loopback (pure CPU cost there), on otherwise. */
  compression?: boolean;
  /** A refused upgrade's status and Retry-After are read from its response (remote services). */
  readRefusal?: boolean;
  signal?: AbortSignal;
}

const DEFAULT_HANDSHAKE_TIMEOUT_MS = 8000;
const DEFAULT_MAX_PAYLOAD = 512 * 1024 * 1024;
// A peer that never answers our Close frame would otherwise hold the socket for Bun's 30 s.
const CLOSE_GRACE_MS = 1000;

class WebSocketTransport extends BufferedTransport {
  readonly #ws: WebSocket;
  readonly #maxPayload: number;
  readonly #decoder = new TextDecoder();
  #lastError = "";

  constructor(ws: WebSocket, maxPayload: number, url: string, endpoint: string) {
    super();
    this.#ws = ws;
    this.#maxPayload = maxPayload;
    ws.binaryType = "arraybuffer";
    ws.onmessage = (event) => this.#onFrame(event.data);
    // A live socket's errors and close reasons quote the URL too: its token must not travel on.
    ws.onerror = (event) => {
      this.#lastError = redact(event.message, url, endpoint);
    };
    ws.onclose = (event) =>
      this.finish(describeClose(event.code, redact(event.reason, url, endpoint), this.#lastError));
  }

  send(message: string): void {
    this.assertOpen();
    this.#ws.send(message);
  }

  close(): void {
    if (this.closed) return;
    this.finish("closed by client");
    const ws = this.#ws;
    try {
      ws.close(1000);
    } catch {
      ws.terminate();
      return;
    }
    const timer = setTimeout(() => {
      if (ws.readyState !== WebSocket.CLOSED) ws.terminate();
    }, CLOSE_GRACE_MS);
    timer.unref?.();
  }

  #onFrame(data: unknown): void {
    const text = typeof data === "string" ? data : data instanceof ArrayBuffer ? this.#decoder.decode(data) : undefined;
    if (text === undefined) return;
    if (text.length > this.#maxPayload) {
      this.finish(`message of ${text.length} characters exceeds maxPayload ${this.#maxPayload}`);
      this.#ws.terminate();
      return;
    }
    this.receive(text);
  }
}

/** Opens a CDP WebSocket (ws:/wss:); always settles, at the latest at the handshake deadline (socket terminated). */
export async function connectWebSocket(url: string, options: WebSocketConnectOptions = {}): Promise<Transport> {
  // Loaded only for remote services: the `ws` module (node:http, node:events…) costs each process megabytes.
  const readingRefusal = options.readRefusal ? (await import("./refusal.ts")).openReadingRefusal : undefined;
  return openWebSocket(url, options, readingRefusal);
}

function openWebSocket(
  url: string,
  options: WebSocketConnectOptions,
  readingRefusal: typeof openReadingRefusal | undefined,
): Promise<Transport> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return Promise.reject(new CdpConnectError("(invalid)", "CDP endpoint is not a valid URL"));
  }
  const endpoint = `${parsed.protocol}//${parsed.host}`;
  if (parsed.protocol !== "ws:" && parsed.protocol !== "wss:") {
    return Promise.reject(new CdpConnectError(endpoint, `CDP endpoint must be ws: or wss:, got ${parsed.protocol}`));
  }
  const requested = options.handshakeTimeoutMs ?? DEFAULT_HANDSHAKE_TIMEOUT_MS;
  // Clamped: setTimeout treats NaN, negative and > 2^31-1 ms delays as "fire now".
  const timeoutMs = Number.isNaN(requested)
    ? DEFAULT_HANDSHAKE_TIMEOUT_MS
    : Math.min(Math.max(requested, 1), 2_147_483_647);
  const compression = options.compression ?? !isLoopback(parsed.hostname);

  return new Promise<Transport>((resolve, reject) => {
    const { signal } = options;
    if (signal?.aborted === true) {
      reject(new CdpConnectError(endpoint, "connect aborted", { cause: signal.reason }));
      return;
    }
    let ws: WebSocket;
    const onRefused = (r: Refusal): void =>
      fail(new CdpConnectError(endpoint, `WebSocket to ${endpoint} refused: HTTP ${r.status}`, r));
    try {
      const init = { headers: options.headers ?? {}, perMessageDeflate: compression };
      // The ws module caps frames at 100 MiB by default; our own cap (UTF-16 units) is checked per message.
      const maxBytes = Math.min(3 * (options.maxPayload ?? DEFAULT_MAX_PAYLOAD), 2 ** 31 - 1);
      ws = readingRefusal
        ? readingRefusal(url, { ...init, maxPayload: maxBytes }, onRefused)
        : new WebSocket(url, init);
    } catch (error) {
      // No `cause`: the engine's error quotes the full URL, token included.
      const detail = redact(error instanceof Error ? error.message : String(error), url, endpoint);
      reject(new CdpConnectError(endpoint, `cannot open WebSocket to ${endpoint}: ${detail}`));
      return;
    }
    let lastError = "";
    const fail = (error: Error): void => {
      cleanup();
      ws.onclose = null;
      ws.terminate();
      reject(error);
    };
    const onAbort = (): void => fail(new CdpConnectError(endpoint, "connect aborted", { cause: signal?.reason }));
    const timer = setTimeout(() => fail(new CdpHandshakeTimeoutError(endpoint, timeoutMs)), timeoutMs);
    const cleanup = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      ws.onopen = null;
      ws.onerror = null;
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    ws.onopen = () => {
      cleanup();
      resolve(new WebSocketTransport(ws, options.maxPayload ?? DEFAULT_MAX_PAYLOAD, url, endpoint));
    };
    let status: number | undefined;
    ws.onerror = (event) => {
      lastError = redact(event.message, url, endpoint);
      // Bun words a refused upgrade "Expected 101 status code: 401".
      const m = /\b101 status code:? (\d{3})\b/.exec(event.message);
      if (m) status = Number(m[1]);
    };
    ws.onclose = (event) => {
      cleanup();
      ws.onclose = null;
      const why = describeClose(event.code, redact(event.reason, url, endpoint), lastError);
      reject(
        new CdpConnectError(
          endpoint,
          `WebSocket to ${endpoint} failed: ${why}`,
          status !== undefined ? { status } : undefined,
        ),
      );
    };
  });
}

function describeClose(code: number, reason: string, lastError: string): string {
  const parts = [`code ${code}`];
  if (reason !== "") parts.push(reason);
  if (lastError !== "") parts.push(lastError);
  return parts.join(": ");
}

function isLoopback(hostname: string): boolean {
  return hostname === "localhost" || hostname === "[::1]" || hostname === "::1" || hostname.startsWith("127.");
}

// Engine messages quote the URL, whose query or path may hold a hosted browser's token.
function redact(text: string, url: string, endpoint: string): string {
  return text
    .split(url)
    .join(endpoint)
    .replace(/wss?:\/\/[^\s'"]*/gi, endpoint);
}
