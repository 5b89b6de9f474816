import { CdpClosedError, CdpError } from "./errors.ts";
import type { SendOptions } from "./types.ts";

/** What a keepalive needs of a connection (the connection itself owns the keepalive). */
export interface Probed {
  send(method: "Browser.getVersion", params: undefined, options: SendOptions): Promise<unknown>;
  onClose(handler: (reason: string) => void): () => void;
  close(reason: string): void;
}

/**
 * Liveness probe: a browser can hang (debugger paused, machine asleep, half-open proxy) without the socket closing. One
 * probe in flight; after a miss the next goes at once, so a dead peer is declared after about (missedLimit + 1) ×
 * intervalMs.
 */
export function startKeepalive(conn: Probed, intervalMs: number, missedLimit: number): () => void {
  const interval = Math.max(1, intervalMs);
  const limit = Math.max(1, Math.floor(missedLimit));
  const abort = new AbortController();
  let missed = 0;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const schedule = (delayMs: number): void => {
    if (stopped) return;
    timer = setTimeout(() => void probe(), delayMs);
    // Unref'd: a keepalive must never be the reason a finished process stays up.
    timer.unref?.();
  };

  const probe = async (): Promise<void> => {
    try {
      await conn.send("Browser.getVersion", undefined, {
        timeoutMs: interval,
        keepProcessAlive: false,
        signal: abort.signal,
      });
      missed = 0;
    } catch (error) {
      if (stopped || error instanceof CdpClosedError) return;
      // An error reply (a proxy that forbids the method, say) still proves the peer is alive.
      if (error instanceof CdpError) {
        missed = 0;
      } else if (++missed >= limit) {
        stop();
        conn.close("keepalive");
        return;
      } else {
        schedule(0);
        return;
      }
    }
    schedule(interval);
  };

  let unsubscribe: () => void = () => undefined;
  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    clearTimeout(timer);
    abort.abort();
    unsubscribe();
  };
  // onClose runs the handler at once if the connection is already closed.
  unsubscribe = conn.onClose(() => stop());
  schedule(interval);
  return stop;
}
