/**
 * Per-agent network state: request journal, rules, HTTP credentials and downloads. Held by the
 * agent (`Agent.net`), so it goes with the agent when it disconnects or its lease runs out.
 */
import { ConsoleLog } from "./console.ts";
import { Journal } from "./journal.ts";
import type { Rule } from "./rules.ts";
import { policyIntercepts } from "../policy/current.ts";

/** What the tracker needs from the broker, without importing it. */
export interface NetHost {
  home: string;
  /** The agent's network state (made on first use); undefined when no agent has the key. */
  net(key: string): AgentNet | undefined;
  /** The agent's network state, only if it has some already. */
  peekNet(key: string): AgentNet | undefined;
  /** Browser download GUIDs and the agent's record each belongs to; "conflict" when claimed twice. */
  downloadGuids: Map<string, { owner: string; id: string } | "conflict">;
  /** This agent's id for a tab ("t3"); "" when the agent is gone. */
  tabId(key: string, targetId: string): string;
  /** A person has the tab (handoff): their traffic (passwords, codes) is not the agent's to read. */
  personal?(targetId: string): boolean;
}

export interface AuthConfig {
  username: string;
  /** Held only while configured; never logged, echoed or put in an error. */
  password: string;
}

export type DownloadState = "in_progress" | "completed" | "failed" | "canceled";

export interface DownloadRecord {
  id: string;
  guid: string;
  owner: string;
  tab: string;
  targetId: string;
  url: string;
  fileName: string;
  state: DownloadState;
  receivedBytes: number;
  totalBytes: number;
  startedAt: number;
  completedAt?: number;
  /** The private copy, once the download completed and fit the quotas. */
  artifactId?: string;
  mimeType?: string;
  sizeBytes?: number;
  /** Why there is no private copy (quota_exceeded, file_unavailable). */
  error?: string;
  /** Returned by an earlier 'bp wait --download' (each download satisfies one wait). */
  waited?: boolean;
}

export interface AgentNet {
  key: string;
  journal: Journal;
  /** Console messages and page errors of its tabs (net/console.ts). */
  console: ConsoleLog;
  rules: Rule[];
  ruleSeq: number;
  /** Lower-cased names of headers given to 'net headers': their values are masked wherever shown. */
  givenHeaders?: Set<string>;
  auth?: AuthConfig;
  /** Credentials an opened URL carried (user:pass@), by origin: taken out of the URL, answered like 'auth'. */
  urlAuth?: Map<string, AuthConfig>;
  downloads: DownloadRecord[];
  downloadSeq: number;
}

export function newAgentNet(key: string): AgentNet {
  return {
    key,
    journal: new Journal(),
    console: new ConsoleLog(),
    rules: [],
    ruleSeq: 0,
    downloads: [],
    downloadSeq: 0,
  };
}

/** Whether this agent needs request interception (Fetch) on the tabs it controls. */
export function needsFetch(key: string | undefined, s: AgentNet | undefined): { on: boolean; auth: boolean } {
  const auth = s?.auth !== undefined || (s?.urlAuth?.size ?? 0) > 0;
  // The host policy's origin rules ride on the same interception (src/broker/policy).
  return { on: (s !== undefined && (s.rules.length > 0 || auth)) || policyIntercepts(key), auth };
}

/** The credentials for a challenge from `url`: those its origin's URL carried, else the agent's 'auth'. */
export function credentialsFor(s: AgentNet | undefined, url: string): AuthConfig | undefined {
  if (!s) return undefined;
  if (s.urlAuth) {
    try {
      const hit = s.urlAuth.get(new URL(url).origin);
      if (hit) return hit;
    } catch {
      // not a URL: the agent's own credentials, if any
    }
  }
  return s.auth;
}

/** Takes user:password@ out of a URL (Chrome would keep it in the profile) and keeps them for its origin, in memory. */
export function takeUrlCredentials(s: AgentNet, url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  if (parsed.username === "" && parsed.password === "") return url;
  const auth = { username: safeDecode(parsed.username), password: safeDecode(parsed.password) };
  s.urlAuth ??= new Map();
  s.urlAuth.set(parsed.origin, auth);
  parsed.username = "";
  parsed.password = "";
  return parsed.href;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** At most this many download records per agent; the oldest finished ones go first. */
export const MAX_DOWNLOAD_RECORDS = 100;

export function addDownload(s: AgentNet, d: Omit<DownloadRecord, "id">): DownloadRecord {
  const rec: DownloadRecord = { ...d, id: `dl${++s.downloadSeq}` };
  s.downloads.push(rec);
  while (s.downloads.length > MAX_DOWNLOAD_RECORDS) {
    const i = s.downloads.findIndex((x) => x.state !== "in_progress");
    s.downloads.splice(i >= 0 ? i : 0, 1);
  }
  return rec;
}
