/** Public surface of passive browser discovery; see discover.ts for why it never opens sockets. */
export type {
  AuthorizationState,
  BrowserCandidate,
  BrowserDefinition,
  CandidateState,
  DiscoveryOptions,
  ProcessState,
  PublicBrowserCandidate,
  Remediation,
  RemediationCode,
  RemoteDebuggingState,
} from "./types.ts";
export { browserDefinitions, resolveHome } from "./definitions.ts";
export {
  candidateId,
  classifyCandidate,
  connectAction,
  discoverBrowsers,
  markAuthorizationRequired,
  markConnected,
  matchBrowser,
  publicCandidate,
  toPublicCandidate,
  withOwnId,
} from "./discover.ts";
export { CHROME_ENV_VAR, findChromiumExecutable, installHint } from "./executable.ts";
export { endpointFor, parseDevToolsActivePort, readPortFile, type DevToolsActivePort } from "./port-file.ts";
export { isPidAlive, parseSingletonLockTarget, probeProcessState } from "./process-state.ts";
