/**
 * Passive discovery: installed Chromium-family browsers and what a person must do before bp can attach. Files only,
 * never a socket: a DevTools connection can pop Chrome's "Allow remote debugging" dialog.
 */
import { browserDefinitions, resolveHome } from "./definitions.ts";
import { findChromiumExecutable } from "./executable.ts";
import { executableCandidates, firstExecutable, isDirectory } from "./fs-probe.ts";
import { endpointFor, readPortFile, type PortFileInfo } from "./port-file.ts";
import { probeProcessState, type ProcessProbe } from "./process-state.ts";
import type {
  BrowserCandidate,
  BrowserDefinition,
  DiscoveryOptions,
  PublicBrowserCandidate,
  Remediation,
} from "./types.ts";

/** Coarse filesystem timestamps (FAT, HFS+, network mounts) can make a port file written after the lock look older. */
const STALE_SLACK_MS = 2_000;

const INSPECT_URL = "chrome://inspect/#remote-debugging";
/** The remediation says `<id>` for the id beside it (43 characters saved per browser); withOwnId() fills it in. */
const CONNECT = "'bp connect --browser <id>'";
const ID_PLACEHOLDER = "<id>";

export function withOwnId(candidate: Pick<BrowserCandidate, "id" | "remediation">): Remediation | undefined {
  const r = candidate.remediation;
  return r ? { ...r, message: r.message.replaceAll(ID_PLACEHOLDER, candidate.id) } : undefined;
}

export function connectAction(
  candidates: readonly Pick<BrowserCandidate, "remoteDebuggingState" | "processState">[],
): string {
  const connectable = candidates.filter(
    (c) => c.remoteDebuggingState === "enabled" && c.processState !== "not_running",
  );
  if (connectable.length === 1) return "bp connect";
  return connectable.length > 1 ? "bp connect --browser <id>" : "bp launch";
}

/** Stable per install, opaque (no path leaks), different per profile. */
export function candidateId(platform: NodeJS.Platform, key: string, userDataDir: string): string {
  // Bun's hasher: node:crypto costs each process that loads it megabytes.
  const digest = new Bun.CryptoHasher("sha256")
    .update(`${platform}\0${key}\0${userDataDir}`)
    .digest("base64url")
    .slice(0, 20);
  return `browser:${key}:${digest}`;
}

export async function discoverBrowsers(opts: DiscoveryOptions = {}): Promise<BrowserCandidate[]> {
  const env = opts.env ?? process.env;
  const platform = opts.platform ?? process.platform;
  const definitions = browserDefinitions({ env, platform, home: resolveHome(opts) });
  const found = await Promise.all(definitions.map((d) => inspectDefinition(d, env, platform)));
  return found.filter((c): c is BrowserCandidate => c !== undefined);
}

async function inspectDefinition(
  def: BrowserDefinition,
  env: Record<string, string | undefined>,
  platform: NodeJS.Platform,
): Promise<BrowserCandidate | undefined> {
  const [hasData, executablePath] = await Promise.all([
    isDirectory(def.userDataDir),
    firstExecutable(executableCandidates(def.pathNames, def.executables, env, platform), platform),
  ]);
  if (!hasData && !executablePath) return undefined;
  const [probe, portFile] = hasData
    ? await Promise.all([probeProcessState(def.userDataDir, platform), readPortFile(def.userDataDir)])
    : [{ state: "not_running" } satisfies ProcessProbe, undefined];
  const base = {
    id: candidateId(platform, def.key, def.userDataDir),
    product: def.product,
    channel: def.channel,
    userDataRoot: def.userDataDir,
    ...(executablePath ? { executablePath } : {}),
  };
  return classifyCandidate(base, probe, portFile);
}

type CandidateBase = Pick<BrowserCandidate, "id" | "product" | "channel" | "userDataRoot" | "executablePath">;

/** The state machine from upstream 1.3, as a pure function so every branch is unit-testable. */
export function classifyCandidate(
  base: CandidateBase,
  probe: ProcessProbe,
  portFile: PortFileInfo | undefined,
): BrowserCandidate {
  const processState = probe.state;
  if (!portFile) {
    if (processState === "not_running") {
      return {
        ...base,
        processState,
        remoteDebuggingState: "disabled",
        authorizationState: "not_applicable",
        state: "not_running",
        remediation: startBrowser(base),
      };
    }
    return disabled(base, processState, "disabled");
  }
  if (processState === "not_running") {
    // The endpoint is withheld: whatever listens on that port now is not this browser.
    return {
      ...base,
      processState,
      remoteDebuggingState: "stale",
      authorizationState: "not_applicable",
      state: "disconnected",
      remediation: {
        code: "restart_remote_debugging",
        message:
          `Its DevToolsActivePort file is from an earlier run. Ask the user to start it and enable ` +
          `remote debugging in ${INSPECT_URL}, then run ${CONNECT}.`,
        actionRequired: true,
      },
    };
  }
  if (probe.startedAtMs !== undefined && portFile.mtimeMs + STALE_SLACK_MS < probe.startedAtMs) {
    // Written before the running browser took its lock, so by a previous run: remote debugging is off now.
    return disabled(base, processState, "stale");
  }
  return {
    ...base,
    processState,
    remoteDebuggingState: "enabled",
    authorizationState: "unknown",
    state: "disconnected",
    // Lean: no actionRequired:false; the agent can do this itself.
    remediation: {
      code: "connect_browser",
      message: `Run ${CONNECT}; the browser may ask the user to allow remote debugging once.`,
    },
    endpoint: endpointFor(portFile),
  };
}

function disabled(
  base: CandidateBase,
  processState: BrowserCandidate["processState"],
  remoteDebuggingState: "disabled" | "stale",
): BrowserCandidate {
  // With an unknown process state the browser may also be closed, so the message covers both.
  const start = processState === "running" ? "" : "start it if it is not running and ";
  return {
    ...base,
    processState,
    remoteDebuggingState,
    authorizationState: "not_applicable",
    state: "remote_debugging_disabled",
    remediation: {
      code: "enable_remote_debugging",
      message: `Ask the user to ${start}enable remote debugging in ${INSPECT_URL}, then run ${CONNECT}.`,
      actionRequired: true,
    },
  };
}

function startBrowser(_base: CandidateBase): Remediation {
  // 'bp launch' needs no one: recommended first whenever it can start a browser here.
  if (findChromiumExecutable() !== undefined) {
    return {
      code: "start_browser",
      message: `Run 'bp launch' for a browser bp starts itself; to use this one instead, ask the user to start it and enable remote debugging in ${INSPECT_URL}, then run ${CONNECT}.`,
    };
  }
  return {
    code: "start_browser",
    message:
      `Ask the user to start it and enable remote debugging in ${INSPECT_URL}, then run ` +
      `${CONNECT}; or run 'bp launch' for a browser bp starts itself.`,
    actionRequired: true,
  };
}

export function markConnected(candidate: BrowserCandidate): BrowserCandidate {
  const { remediation: _dropped, ...rest } = candidate;
  return {
    ...rest,
    processState: "running",
    remoteDebuggingState: "enabled",
    authorizationState: "authorized",
    state: "ready",
  };
}

export function markAuthorizationRequired(candidate: BrowserCandidate): BrowserCandidate {
  return {
    ...candidate,
    authorizationState: "required",
    state: "authorization_required",
    remediation: {
      code: "allow_remote_debugging",
      message:
        `${candidate.product} is waiting for permission. Ask the user to click 'Allow' in the ` +
        `remote debugging dialog, then run ${CONNECT} again.`,
      actionRequired: true,
    },
  };
}

/** What may be printed: the endpoint path is a capability; the executable path is nothing an agent needs. */
export function toPublicCandidate(candidate: BrowserCandidate): PublicBrowserCandidate {
  const { endpoint: _secret, executablePath: _local, ...rest } = candidate;
  return rest;
}

export const publicCandidate = toPublicCandidate;

/** `--browser` filter: an exact id wins outright; otherwise substring on id, product or channel. */
export function matchBrowser(candidates: readonly BrowserCandidate[], filter: string): BrowserCandidate[] {
  const needle = filter.trim().toLowerCase();
  if (needle.length === 0) return [];
  const exact = candidates.filter((c) => c.id.toLowerCase() === needle);
  if (exact.length > 0) return exact;
  return candidates.filter((c) =>
    [c.id, c.product, c.channel, `${c.product} ${c.channel}`].some((field) => field.toLowerCase().includes(needle)),
  );
}
