/** Shapes shared by discovery and its callers; names follow upstream Browser Pilot 1.3's `browser list`. */

export type ProcessState = "running" | "not_running" | "unknown";
export type RemoteDebuggingState = "enabled" | "disabled" | "stale";
export type AuthorizationState = "authorized" | "required" | "not_applicable" | "unknown";
export type CandidateState =
  | "ready"
  | "not_running"
  | "remote_debugging_disabled"
  | "authorization_required"
  | "disconnected";

export type RemediationCode =
  | "enable_remote_debugging"
  | "start_browser"
  | "restart_remote_debugging"
  | "connect_browser"
  | "allow_remote_debugging";

export interface Remediation {
  code: RemediationCode;
  message: string;
  /** True when only the human at the browser can fix it; agents must ask rather than retry (absent: the agent can). */
  actionRequired?: boolean;
}

export interface BrowserCandidate {
  /** Opaque and stable across runs; see candidateId(). */
  id: string;
  product: string;
  channel: string;
  userDataRoot: string;
  executablePath?: string;
  processState: ProcessState;
  remoteDebuggingState: RemoteDebuggingState;
  authorizationState: AuthorizationState;
  state: CandidateState;
  remediation?: Remediation;
  /** Internal: `ws://127.0.0.1:<port><path>`; never printed (the path is the only secret guarding the socket). */
  endpoint?: string;
}

export type PublicBrowserCandidate = Omit<BrowserCandidate, "endpoint" | "executablePath">;

export interface BrowserDefinition {
  key: string;
  product: string;
  channel: string;
  /** Absolute default user-data directory for this OS. */
  userDataDir: string;
  /** Absolute executable paths checked in order. */
  executables: string[];
  /** Bare names looked up in each PATH directory (POSIX only). */
  pathNames: string[];
}

export interface DiscoveryOptions {
  env?: Record<string, string | undefined>;
  platform?: NodeJS.Platform;
  home?: string;
}
