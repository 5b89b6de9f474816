/**
 * CLI ↔ broker messages: one JSON line each way over the Unix socket. The reply to a
 * "call" is exactly what the CLI prints, so the CLI never reshapes results.
 */
export interface CallRequest {
  op: "call";
  token: string;
  protocol: number;
  clientKey: string;
  command: string;
  args: Record<string, unknown>;
  requestId?: string;
  /** Random id of this CLI invocation so a signal can cancel it from a second connection. */
  invocation: string;
  timeoutMs: number;
  tabAccess: "all" | "own";
  /** "human": the broker adds a pre-rendered `text` field, so the CLI needs no page code. */
  mode: "json" | "human";
  /**
   * Headers for 'connect --cdp-url', read from stdin. Kept in broker memory for the
   * connection only; never part of args, command records, output, logs or errors.
   */
  secretHeaders?: Record<string, string>;
  /** Only 'disconnect' sends it (it decides whether this installation may stop the broker). */
  executable?: { version: string; identity: string };
  /** The CLI's working directory: relative output paths resolve against it. */
  cwd?: string;
  /** BROWSER_PILOT_OUTPUT_DIR as the CLI saw it (absolute); outputs must stay inside it. */
  outputDir?: string;
}

export interface CancelRequest {
  op: "cancel";
  token: string;
  invocation: string;
}

/** Unauthenticated: tells a CLI whether this broker speaks its protocol, reveals nothing else. */
export interface HelloRequest {
  op: "hello";
}

export type BrokerRequest = CallRequest | CancelRequest | HelloRequest;

export interface HelloReply {
  ok: true;
  service: "browser-pilot";
  version: string;
  protocol: { min: number; max: number };
  pid: number;
}

export interface Locator {
  schemaVersion: number;
  pid: number;
  processIdentity: string;
  endpoint: string;
  startedAt: string;
  version: string;
  protocol: { min: number; max: number };
  executable: { version: string; path: string; identity: string };
  token: string;
}
