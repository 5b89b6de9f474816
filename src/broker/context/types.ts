import type { CommandDef } from "../../protocol/define.ts";
import type { CallRequest } from "../../protocol/wire.ts";
import type { BpPaths } from "../../shared/paths.ts";
import type { Agent, AgentRegistry } from "../agents.ts";
import type { BrowserConnection, BrowserInfo } from "../browser.ts";
import type { CommandRecord, CommandStore } from "../commands/store.ts";
import type { HandoffControl } from "../handoff/control.ts";
import type { ViewerServer } from "../handoff/viewer.ts";
import type { TargetRecord } from "../targets.ts";

/**
 * What a command may see of the broker: a narrow view instead of the Broker class, so the layers only import downwards.
 */
export interface BrokerState {
  readonly paths: BpPaths;
  readonly agents: AgentRegistry;
  /** The connected browser of this generation, if any (may be closed). */
  readonly browser: BrowserConnection | undefined;
  /** Why the last connection was lost (reason "remote_session_ended" for a remote browser). */
  readonly lastLoss: { reason: string; at: string; generation: number; detail?: string } | undefined;
  /** Where the last browser came from (status says how to bring it back). */
  readonly lastSource: "discovered" | "launched" | "remote" | undefined;
  /** The last remote endpoint connected to, for 'bp connect --reconnect'. */
  readonly lastRemote: { endpoint: string; headers: boolean; connectTimeoutMs: number } | undefined;
  /** Command records: handlers list, describe and cancel them. */
  readonly commands: { readonly store: CommandStore; cancelRecord(rec: CommandRecord): void };
  onStopRequested: ((reason: string) => void) | undefined;
  requireBrowser(): BrowserConnection;
  /** broker_in_use unless this browser (by id or endpoint) is the connected one or none is. */
  assertAvailableFor(id: string, endpoint?: string): void;
  attach(info: BrowserInfo): Promise<{ conn: BrowserConnection; reused: boolean }>;
  /** Runs fn after every earlier command on this physical tab. */
  exclusive<T>(targetId: string, fn: () => Promise<T>): Promise<T>;
  visibleTabs(agent: Agent, access: "all" | "own"): TargetRecord[];
  releaseAgent(agent: Agent, expired?: boolean): Promise<string[]>;
  /** Tabs handed to a person: the admission gate, control leases and handback notices. */
  readonly handoff: HandoffControl;
  /** One-time loopback links to a live view of a tab. */
  readonly viewer: ViewerServer;
}

export interface CallContext {
  broker: BrokerState;
  req: CallRequest;
  signal: AbortSignal;
  deadline: number;
  /** The caller's agent state, created on first use. */
  agent: () => Agent;
  /**
   * Call right before the first browser-side mutation: from then on a deadline, cancel or lost browser makes it
   * unknown_outcome. Idempotent; throws command_cancelled if already stopped.
   */
  markDispatched: () => void;
}

/** One call with its arguments checked and bound: what the command runtime runs. */
export interface Invocation {
  /** From the command's definition (CommandDef.mutating), never declared by a handler. */
  mutating?: boolean;
  /**
   * When a mutating command counts as dispatched: "start" (default) just before run(), "lock" when it first takes its
   * tab's queue, or earlier via ctx.markDispatched().
   */
  dispatch?: "start" | "lock";
  run(ctx: CallContext): Promise<object>;
}

/** A call bound to its handler: the checked arguments (defaults filled in) and what runs them. */
export interface BoundCall extends Invocation {
  readonly args: Record<string, unknown>;
}

/**
 * A command's implementation registered against its definition (defineHandler): name, schemas and `mutating` come from
 * the definition.
 */
export interface Handler {
  readonly command: CommandDef;
  /** Checks a call's arguments against the command's schema (invalid_argument otherwise) and binds them to the implementation. */
  bind(args: Record<string, unknown>): BoundCall;
}

/** The command table the broker dispatches on, by command name, handed to it by the entry point. */
export type HandlerTable = Readonly<Record<string, Handler>>;
