import { AsyncLocalStorage } from "node:async_hooks";

/**
 * The deadline and cancel signal of the command a CDP call is made for: every call a command makes stops with it, not
 * at a connection-wide timeout.
 */
export interface CallScope {
  /** Epoch ms. */
  deadline: number;
  signal: AbortSignal;
}

const scope = new AsyncLocalStorage<CallScope>();

export function withCallScope<T>(s: CallScope, fn: () => T): T {
  return scope.run(s, fn);
}

/** Runs fn outside any command's scope: for shared work (a session attach) that outlives one command. */
export function outsideCallScope<T>(fn: () => T): T {
  return scope.exit(fn);
}

export function currentCallScope(): CallScope | undefined {
  return scope.getStore();
}
