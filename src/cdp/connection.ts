import { CallbackRegistry } from "./callbacks.ts";
import { CdpAbortedError, CdpClosedError, CdpError, CdpSessionClosedError, withCallSite } from "./errors.ts";
import { phases } from "./phases.ts";
import { currentCallScope } from "./scope.ts";
import type { Transport } from "./transport.ts";
import {
  trustWire,
  type AnyEventHandler,
  type CommandMethod,
  type CommandParams,
  type CommandResult,
  type EventHandler,
  type EventMethod,
  type EventParams,
  type SendOptions,
} from "./types.ts";

export interface CdpConnectionOptions {
  /** Deadline of calls that set none; default 30 s. */
  defaultTimeoutMs?: number;
  /**
   * First request id (default 1); the janitor, a second writer on the same socket, starts at 1_000_000_000 so replies
   * never cross.
   */
  firstId?: number;
  /** Receives exceptions thrown by event handlers and unparsable frames; default stderr. */
  onHandlerError?: (error: unknown, context: string) => void;
}

export interface ListenOptions {
  /** Only events from this flat session (session-scoped listeners cost O(1) per event). */
  sessionId?: string;
}

type ErasedHandler = (params: unknown, sessionId: string | undefined) => void;

const DEFAULT_TIMEOUT_MS = 30_000;
// setTimeout fires at once for delays above 2^31-1 ms; clamp instead of surprising callers.
const MAX_TIMER_MS = 2_147_483_647;
// Detached session ids remembered so a detach that races its attach reply is not missed.
const DETACHED_MEMORY = 1024;

/** A CDP client over any Transport: typed calls with deadlines, events, flat sessions. */
export class CdpConnection {
  readonly #transport: Transport;
  readonly #callbacks: CallbackRegistry;
  readonly #defaultTimeoutMs: number;
  readonly #report: (error: unknown, context: string) => void;
  readonly #listeners = new Map<string, Map<object, ErasedHandler>>();
  readonly #anyListeners = new Set<AnyEventHandler>();
  readonly #closeListeners = new Set<(reason: string) => void>();
  readonly #detached = new Set<string>();
  #closeReason: string | undefined;

  constructor(transport: Transport, options: CdpConnectionOptions = {}) {
    this.#transport = transport;
    this.#callbacks = new CallbackRegistry(options.firstId ?? 1);
    this.#defaultTimeoutMs = options.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#report = options.onHandlerError ?? ((error, context) => console.error(`[cdp] ${context}:`, error));
    transport.onMessage = (message) => this.#onMessage(message);
    transport.onClose = (reason) => this.#onClose(reason);
    if (transport.closed) this.#onClose("transport closed before use");
  }

  get closed(): boolean {
    return this.#closeReason !== undefined;
  }

  get closeReason(): string | undefined {
    return this.#closeReason;
  }

  get pendingCount(): number {
    return this.#callbacks.size;
  }

  /**
   * Sends a command and resolves with its result; every rejection (CdpError, CdpTimeoutError, CdpAbortedError,
   * CdpClosedError, CdpSessionClosedError) carries the caller's stack.
   */
  send<M extends CommandMethod>(
    method: M,
    params?: CommandParams<M>,
    options: SendOptions = {},
  ): Promise<CommandResult<M>> {
    const origin = new CdpError(method);
    // Calls made for a command inherit its deadline and cancel signal unless told otherwise.
    const scope = currentCallScope();
    const { sessionId } = options;
    const signal = options.signal ?? scope?.signal;
    const timeoutMs = options.timeoutMs ?? (scope ? Math.max(1, scope.deadline - Date.now()) : undefined);
    if (this.#closeReason !== undefined) {
      return Promise.reject(withCallSite(new CdpClosedError(method, this.#closeReason, false), origin));
    }
    if (sessionId !== undefined && this.#detached.has(sessionId)) {
      const error = new CdpSessionClosedError(method, sessionId, "target detached", false);
      return Promise.reject(withCallSite(error, origin));
    }
    if (signal?.aborted === true) {
      return Promise.reject(withCallSite(new CdpAbortedError(method, false, signal.reason), origin));
    }
    let frame: string;
    const { id, promise } = this.#callbacks.register<CommandResult<M>>({
      method,
      sessionId,
      origin,
      timeoutMs: clampTimeout(timeoutMs, this.#defaultTimeoutMs),
      signal,
    });
    try {
      // `{}` rather than no params: some CDP proxies in front of hosted browsers require it.
      frame = JSON.stringify({
        id,
        method,
        params: (phases ? phases.params(method, params) : params) ?? {},
        sessionId,
      });
      phases?.send(id, method, params);
    } catch (error) {
      this.#callbacks.reject(id, error instanceof Error ? error : new TypeError(String(error)));
      return promise;
    }
    const failed = (error: unknown): void => {
      const reason = `send failed: ${error instanceof Error ? error.message : String(error)}`;
      this.#callbacks.reject(id, withCallSite(new CdpClosedError(method, reason, false), origin));
    };
    try {
      this.#transport.send(frame, failed);
    } catch (error) {
      failed(error);
    }
    return promise;
  }

  /** Subscribes to an event from every session (or one, with `options.sessionId`); returns the unsubscribe function. */
  on<E extends EventMethod>(method: E, handler: EventHandler<E>, options: ListenOptions = {}): () => void {
    const key = listenerKey(method, options.sessionId);
    let handlers = this.#listeners.get(key);
    if (handlers === undefined) {
      handlers = new Map();
      this.#listeners.set(key, handlers);
    }
    if (!handlers.has(handler)) {
      handlers.set(handler, (params, sessionId) => {
        if (trustWire<EventParams<E>>(params)) handler(params, sessionId);
      });
    }
    return () => this.off(method, handler, options);
  }

  off<E extends EventMethod>(method: E, handler: EventHandler<E>, options: ListenOptions = {}): void {
    const key = listenerKey(method, options.sessionId);
    const handlers = this.#listeners.get(key);
    if (handlers?.delete(handler) === true && handlers.size === 0) this.#listeners.delete(key);
  }

  /** Every event, any session: for journals and proxies. */
  onAny(handler: AnyEventHandler): () => void {
    this.#anyListeners.add(handler);
    return () => this.offAny(handler);
  }

  offAny(handler: AnyEventHandler): void {
    this.#anyListeners.delete(handler);
  }

  /** Called once with the close reason; immediately (synchronously) if already closed. */
  onClose(handler: (reason: string) => void): () => void {
    if (this.#closeReason !== undefined) {
      handler(this.#closeReason);
      return () => undefined;
    }
    this.#closeListeners.add(handler);
    return () => this.#closeListeners.delete(handler);
  }

  /** True if Chrome reported this flat session detached (recent sessions only). */
  isSessionDetached(sessionId: string): boolean {
    return this.#detached.has(sessionId);
  }

  /** Closes the transport; pending calls reject with CdpClosedError carrying `reason`. */
  close(reason = "closed by client"): void {
    this.#onClose(reason);
    this.#transport.close();
  }

  #onMessage(raw: string): void {
    let message: unknown;
    try {
      message = JSON.parse(raw);
    } catch (error) {
      this.#report(error, "unparsable CDP frame");
      return;
    }
    if (!isRecord(message)) return;
    if (typeof message.id === "number") {
      this.#onReply(message.id, message);
      return;
    }
    if (typeof message.method !== "string") return;
    const sessionId = typeof message.sessionId === "string" ? message.sessionId : undefined;
    this.#onEvent(message.method, message.params ?? {}, sessionId);
  }

  #onReply(id: number, message: Record<string, unknown>): void {
    const { error } = message;
    phases?.reply(id, message.result);
    if (error === undefined) {
      this.#callbacks.resolve(id, message.result ?? {});
      return;
    }
    const details = isRecord(error) ? error : {};
    const code = typeof details.code === "number" ? details.code : 0;
    const text = typeof details.message === "string" ? details.message : "unknown error";
    this.#callbacks.fail(id, code, text, typeof details.data === "string" ? details.data : undefined);
  }

  #onEvent(method: string, params: unknown, sessionId: string | undefined): void {
    phases?.event(method);
    // Fail the session's calls first, so handlers already see a consistent state.
    if (method === "Target.detachedFromTarget" && isRecord(params) && typeof params.sessionId === "string") {
      this.#onSessionDetached(params.sessionId);
    }
    this.#dispatch(this.#listeners.get(method), method, params, sessionId);
    if (sessionId !== undefined) {
      this.#dispatch(this.#listeners.get(listenerKey(method, sessionId)), method, params, sessionId);
    }
    for (const handler of [...this.#anyListeners]) {
      try {
        handler(method, params, sessionId);
      } catch (error) {
        this.#report(error, `onAny handler for ${method}`);
      }
    }
  }

  #dispatch(handlers: Map<object, ErasedHandler> | undefined, method: string, params: unknown, sid?: string): void {
    if (handlers === undefined) return;
    // Copy: handlers may unsubscribe (or subscribe others) while we iterate.
    for (const handler of [...handlers.values()]) {
      try {
        handler(params, sid);
      } catch (error) {
        this.#report(error, `handler for ${method}`);
      }
    }
  }

  #onSessionDetached(sessionId: string): void {
    this.#detached.add(sessionId);
    if (this.#detached.size > DETACHED_MEMORY) {
      const oldest = this.#detached.values().next().value;
      if (oldest !== undefined) this.#detached.delete(oldest);
    }
    this.#callbacks.rejectWhere(
      (call) => call.sessionId === sessionId,
      (call) => withCallSite(new CdpSessionClosedError(call.method, sessionId, "target detached", true), call.origin),
    );
  }

  #onClose(reason: string): void {
    if (this.#closeReason !== undefined) return;
    this.#closeReason = reason;
    this.#callbacks.rejectWhere(
      () => true,
      (call) => withCallSite(new CdpClosedError(call.method, reason, true), call.origin),
    );
    const listeners = [...this.#closeListeners];
    this.#closeListeners.clear();
    this.#listeners.clear();
    this.#anyListeners.clear();
    for (const listener of listeners) {
      try {
        listener(reason);
      } catch (error) {
        this.#report(error, "close handler");
      }
    }
  }
}

function listenerKey(method: string, sessionId: string | undefined): string {
  return sessionId === undefined ? method : `${sessionId}\u0000${method}`;
}

function clampTimeout(requested: number | undefined, fallback: number): number {
  const value = requested === undefined || Number.isNaN(requested) ? fallback : requested;
  return Math.min(Math.max(value, 1), MAX_TIMER_MS);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}
