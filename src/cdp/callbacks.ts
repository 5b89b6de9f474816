import { CdpAbortedError, type CdpError, CdpTimeoutError, withCallSite } from "./errors.ts";
import { trustWire } from "./types.ts";

/** What a pending call looks like to code that has to fail it (close, detach). */
export interface PendingCall {
  readonly id: number;
  readonly method: string;
  readonly sessionId: string | undefined;
  /** Created at send time; its stack names the caller. */
  readonly origin: CdpError;
}

interface Entry extends PendingCall {
  resolve(result: unknown): void;
  reject(error: Error): void;
  dispose(): void;
}

export interface RegisterOptions {
  method: string;
  sessionId: string | undefined;
  origin: CdpError;
  timeoutMs: number;
  signal: AbortSignal | undefined;
}

/**
 * Pending calls by id. Every entry ends exactly once: reply, error reply, deadline, abort or
 * a bulk rejection; whichever comes first removes it, so later ones (a reply after the
 * deadline, say) find nothing and are dropped.
 */
export class CallbackRegistry {
  readonly #pending = new Map<number, Entry>();
  #nextId: number;

  constructor(firstId: number) {
    this.#nextId = firstId;
  }

  get size(): number {
    return this.#pending.size;
  }

  /** Allocates the next id and a promise for its reply. */
  register<T>(options: RegisterOptions): { id: number; promise: Promise<T> } {
    const id = this.#nextId++;
    const { method, sessionId, origin, timeoutMs, signal } = options;
    const promise = new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.reject(id, withCallSite(new CdpTimeoutError(method, timeoutMs), origin));
      }, timeoutMs);
      // Registration and send are one synchronous step, so a later abort always finds it sent.
      const onAbort = (): void => {
        this.reject(id, withCallSite(new CdpAbortedError(method, true, signal?.reason), origin));
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#pending.set(id, {
        id,
        method,
        sessionId,
        origin,
        resolve: (result) => {
          if (trustWire<T>(result)) resolve(result);
        },
        reject,
        dispose: () => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
        },
      });
    });
    return { id, promise };
  }

  resolve(id: number, result: unknown): boolean {
    const entry = this.#take(id);
    entry?.resolve(result);
    return entry !== undefined;
  }

  /** Completes the send-time error with the browser's error reply. */
  fail(id: number, code: number, message: string, data: string | undefined): boolean {
    const entry = this.#take(id);
    entry?.reject(entry.origin.fill(code, message, data));
    return entry !== undefined;
  }

  reject(id: number, error: Error): boolean {
    const entry = this.#take(id);
    entry?.reject(error);
    return entry !== undefined;
  }

  /** Rejects every pending call matching `filter` with the error `make` builds for it. */
  rejectWhere(filter: (call: PendingCall) => boolean, make: (call: PendingCall) => Error): number {
    const matched: Entry[] = [];
    for (const entry of this.#pending.values()) if (filter(entry)) matched.push(entry);
    for (const entry of matched) {
      this.#take(entry.id);
      entry.reject(make(entry));
    }
    return matched.length;
  }

  #take(id: number): Entry | undefined {
    const entry = this.#pending.get(id);
    if (entry === undefined) return undefined;
    this.#pending.delete(id);
    entry.dispose();
    return entry;
  }
}
