/**
 * A WebSocket whose refused upgrade shows its HTTP answer. Bun's WebSocket reports a refusal only as "Expected 101
 * status code: 429", headers dropped; Bun's built-in `ws` module, backed by the same native client, hands over the
 * response of the same (single) handshake. Used for remote services, whose 429/503 carry Retry-After.
 */
import WS from "ws";

/** What a refused upgrade answered. */
export interface Refusal {
  status: number;
  retryAfterMs?: number;
}

/** A day: past it a Retry-After says "not today", and a wild value must not become a wait. */
const MAX_RETRY_AFTER_MS = 86_400_000;

/** Retry-After is delta-seconds or an HTTP date (RFC 9110 §10.2.3); anything else is ignored. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  const v = value?.trim();
  if (!v) return undefined;
  if (/^\d+$/.test(v)) return Math.min(Number(v) * 1000, MAX_RETRY_AFTER_MS);
  if (!/^[A-Za-z]{3}, /.test(v)) return undefined;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.min(Math.max(0, at - now), MAX_RETRY_AFTER_MS);
}

type ShimResponse = { statusCode?: number; headers: Record<string, string | string[] | undefined>; resume(): void };
type ShimSocket = {
  on(event: "unexpected-response", fn: (req: unknown, res: ShimResponse) => void): void;
  on(event: "error", fn: (err: Error) => void): void;
};

/**
 * Opens the socket with the `ws` module; `onRefused` gets a non-101 answer (the caller then terminates the socket).
 * The result is driven like a WebSocket (on* attributes, send, close, terminate, binaryType, readyState).
 */
export function openReadingRefusal(
  url: string,
  options: { headers: Record<string, string>; perMessageDeflate: boolean; maxPayload: number },
  onRefused: (refusal: Refusal) => void,
): WebSocket {
  const ws = new (WS as unknown as new (url: string, opts: object) => ShimSocket)(url, options);
  // An 'error' without a listener would throw from the emitter once the caller has dropped its handlers.
  ws.on("error", () => undefined);
  ws.on("unexpected-response", (_req, res) => {
    res.resume();
    const raw = res.headers["retry-after"];
    const retryAfterMs =
      res.statusCode === 429 || res.statusCode === 503 ? parseRetryAfter([raw].flat()[0]) : undefined;
    onRefused({ status: res.statusCode ?? 0, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) });
  });
  return ws as unknown as WebSocket;
}
