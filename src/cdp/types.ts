import type { ProtocolMapping } from "devtools-protocol/types/protocol-mapping";

export type CommandMethod = keyof ProtocolMapping.Commands;
export type CommandParams<M extends CommandMethod> = ProtocolMapping.Commands[M]["paramsType"][0];
export type CommandResult<M extends CommandMethod> = ProtocolMapping.Commands[M]["returnType"];

export type EventMethod = keyof ProtocolMapping.Events;
export type EventParams<E extends EventMethod> = ProtocolMapping.Events[E][0];

export type EventHandler<E extends EventMethod> = (params: EventParams<E>, sessionId: string | undefined) => void;
export type AnyEventHandler = (method: string, params: unknown, sessionId: string | undefined) => void;

export interface SendOptions {
  /** Flat-mode session to address; omitted for the browser (root) session. */
  sessionId?: string;
  /** Deadline for this call; defaults to the connection's `defaultTimeoutMs`. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/**
 * The one place wire data is trusted to have the `devtools-protocol` shape: validating every reply costs more than the
 * crash it prevents; callers of untrusted endpoints check the fields they use.
 */
export function trustWire<T>(_value: unknown): _value is T {
  return true;
}
