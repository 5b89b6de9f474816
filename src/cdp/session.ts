import type { CdpConnection } from "./connection.ts";
import { CdpSessionClosedError } from "./errors.ts";
import type { CommandMethod, CommandParams, CommandResult, EventHandler, EventMethod, SendOptions } from "./types.ts";

export type SessionSendOptions = Omit<SendOptions, "sessionId">;

/**
 * One flat-mode CDP session on a shared connection. It closes on `Target.detachedFromTarget`, `detach()` or the
 * connection's close; its listeners go and its pending calls fail (CdpSessionClosedError).
 */
export class CdpSession {
  readonly sessionId: string;
  readonly targetId: string | undefined;
  readonly #conn: CdpConnection;
  readonly #disposers = new Set<() => void>();
  readonly #closeListeners = new Set<(reason: string) => void>();
  #closeReason: string | undefined;

  constructor(conn: CdpConnection, sessionId: string, targetId?: string) {
    this.#conn = conn;
    this.sessionId = sessionId;
    this.targetId = targetId;
    // The detach may already have arrived in the same read as the attach reply.
    if (conn.isSessionDetached(sessionId)) {
      this.#markClosed("target detached");
      return;
    }
    this.#disposers.add(
      conn.on("Target.detachedFromTarget", (params) => {
        if (params.sessionId === sessionId) this.#markClosed("target detached");
      }),
    );
    this.#disposers.add(conn.onClose((reason) => this.#markClosed(`connection closed: ${reason}`)));
  }

  get closed(): boolean {
    return this.#closeReason !== undefined;
  }

  get closeReason(): string | undefined {
    return this.#closeReason;
  }

  get connection(): CdpConnection {
    return this.#conn;
  }

  send<M extends CommandMethod>(
    method: M,
    params?: CommandParams<M>,
    options: SessionSendOptions = {},
  ): Promise<CommandResult<M>> {
    if (this.#closeReason !== undefined) {
      return Promise.reject(new CdpSessionClosedError(method, this.sessionId, this.#closeReason, false));
    }
    return this.#conn.send(method, params, { ...options, sessionId: this.sessionId });
  }

  /** Subscribes to this session's events only; removed automatically when it closes. */
  on<E extends EventMethod>(method: E, handler: EventHandler<E>): () => void {
    if (this.#closeReason !== undefined) return () => undefined;
    const unsubscribe = this.#conn.on(method, handler, { sessionId: this.sessionId });
    const dispose = (): void => {
      this.#disposers.delete(dispose);
      unsubscribe();
    };
    this.#disposers.add(dispose);
    return dispose;
  }

  off<E extends EventMethod>(method: E, handler: EventHandler<E>): void {
    this.#conn.off(method, handler, { sessionId: this.sessionId });
  }

  onClose(handler: (reason: string) => void): () => void {
    if (this.#closeReason !== undefined) {
      handler(this.#closeReason);
      return () => undefined;
    }
    this.#closeListeners.add(handler);
    return () => this.#closeListeners.delete(handler);
  }

  /** Detaches from the target (the tab stays open); idempotent, and closed afterwards even if the answer is lost. */
  async detach(options: SessionSendOptions = {}): Promise<void> {
    if (this.#closeReason !== undefined) return;
    try {
      await this.#conn.send("Target.detachFromTarget", { sessionId: this.sessionId }, options);
    } catch (error) {
      // Chrome's detach event (or the connection closing) won the race: the goal is reached.
      if (this.#closeReason !== undefined) return;
      this.#markClosed("detached by client");
      throw error;
    }
    this.#markClosed("detached by client");
  }

  #markClosed(reason: string): void {
    if (this.#closeReason !== undefined) return;
    this.#closeReason = reason;
    for (const dispose of [...this.#disposers]) dispose();
    this.#disposers.clear();
    const listeners = [...this.#closeListeners];
    this.#closeListeners.clear();
    // Every listener runs even if one throws; the first error surfaces afterwards.
    let failure: { error: unknown } | undefined;
    for (const listener of listeners) {
      try {
        listener(reason);
      } catch (error) {
        failure ??= { error };
      }
    }
    if (failure !== undefined) throw failure.error;
  }
}

/** Attaches to a target in flat mode (one socket, commands tagged with the session id). */
export async function attachToTarget(
  conn: CdpConnection,
  targetId: string,
  options: SessionSendOptions = {},
): Promise<CdpSession> {
  const { sessionId } = await conn.send("Target.attachToTarget", { targetId, flatten: true }, options);
  return new CdpSession(conn, sessionId, targetId);
}
