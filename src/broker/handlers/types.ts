import type { CallRequest } from "../../protocol/wire.ts";
import type { Agent } from "../agents.ts";
import type { Broker } from "../broker.ts";

export interface CallContext {
  broker: Broker;
  req: CallRequest;
  signal: AbortSignal;
  deadline: number;
  /** The caller's agent state, created on first use. */
  agent: () => Agent;
  /**
   * Call right before the first browser-side mutation: from then on a deadline, cancel or
   * lost browser makes a mutating command unknown_outcome instead of expired/cancelled.
   * Idempotent; throws command_cancelled if the command was already stopped.
   */
  markDispatched: () => void;
}

export interface Handler {
  mutating?: boolean;
  /**
   * When a mutating command counts as dispatched: "start" (default) just before run(),
   * "lock" when it first takes its tab's queue (for handlers that touch the browser only
   * there), or earlier through ctx.markDispatched().
   */
  dispatch?: "start" | "lock";
  run(ctx: CallContext): Promise<Record<string, unknown>>;
}

export const arg = <T>(ctx: CallContext, name: string): T => ctx.req.args[name] as T;
