import type { CommandDef } from "../../protocol/define.ts";
import type { CallRequest } from "../../protocol/wire.ts";
import type { BpPaths } from "../../shared/paths.ts";
import type { Agent, AgentRegistry } from "../agents.ts";
import type { BrowserConnection, BrowserInfo } from "../browser.ts";
import type { CommandRecord, CommandStore } from "../commands/store.ts";
import type { HandoffControl } from "../handoff/control.ts";
import type { ViewerServer } from "../handoff/viewer.ts";
import type { TargetRecord } from "../targets.ts";

/** What a command sees of the broker: a narrow view, so the layers only import downwards. */
export interface BrokerState {
  readonly paths: BpPaths;
  readonly agents: AgentRegistry;
  readonly browser: BrowserConnection | undefined;
  /** Why the last connection was lost (reason "remote_session_ended" for a remote browser). */
  readonly lastLoss: { reason: string; at: string; generation: number; detail?: string } | undefined;
  readonly lastSource: "discovered" | "launched" | "remote" | undefined;
  /** The last remote endpoint connected to, for 'bp connect --reconnect'. */
  readonly lastRemote: { endpoint: string; headers: boolean; connectTimeoutMs: number } | undefined;
  readonly commands: { readonly store: CommandStore; cancelRecord(rec: CommandRecord): void };
  onStopRequested: ((reason: string) => void) | undefined;
  requireBrowser(): BrowserConnection;
  /** broker_in_use unless this browser (by id or endpoint) is the connected one or none is. */
  assertAvailableFor(id: string, endpoint?: string): void;
  attach(info: BrowserInfo): Promise<{ conn: BrowserConnection; reused: boolean }>;
  /** Runs fn after every earlier command on this physical tab. */
  exclusive<T>(targetId: string, fn: () => Promise<T>, opts?: { whileNavigating?: true }): Promise<T>;
  visibleTabs(agent: Agent, access: "all" | "own"): TargetRecord[];
  releaseAgent(agent: Agent, expired?: boolean): Promise<string[]>;
  readonly handoff: HandoffControl;
  readonly viewer: ViewerServer;
}

export interface CallContext {
  broker: BrokerState;
  req: CallRequest;
  signal: AbortSignal;
  deadline: number;
  agent: () => Agent;
  /** Call before the first browser-side mutation: a later deadline, cancel or lost browser is unknown_outcome. */
  markDispatched: () => void;
}

export interface Invocation {
  mutating?: boolean;
  /** When a mutating command counts as dispatched: "start" (default), "lock", or ctx.markDispatched(). */
  dispatch?: "start" | "lock";
  run(ctx: CallContext): Promise<object>;
}

export interface BoundCall extends Invocation {
  readonly args: Record<string, unknown>;
}

/** A command's implementation; name, schemas and `mutating` come from its definition (defineHandler). */
export interface Handler {
  readonly command: CommandDef;
  /** Checks arguments against the schema (invalid_argument) and binds them. */
  bind(args: Record<string, unknown>): BoundCall;
}

export type HandlerTable = Readonly<Record<string, Handler>>;
