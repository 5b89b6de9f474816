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
}

export interface Handler {
  mutating?: boolean;
  run(ctx: CallContext): Promise<Record<string, unknown>>;
}

export const arg = <T>(ctx: CallContext, name: string): T => ctx.req.args[name] as T;
