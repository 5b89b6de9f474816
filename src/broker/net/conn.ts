import type { CdpSession } from "../../cdp/session.ts";
import type { BrowserConnection } from "../browser.ts";
import type { TargetRecord } from "../targets.ts";
import type { TabEnds } from "./ends.ts";
import type { NetEntry } from "./journal.ts";
import type { NetHost } from "./state.ts";

export interface Wired {
  session: CdpSession;
  /** Fetch state applied to this session: undefined = off. */
  fetch?: { auth: boolean };
  /** Document responses pause for download capture (remote-downloads.ts). */
  capture?: boolean;
}

export interface TabNet {
  rec: TargetRecord;
  /** The tab's network session and its iframes', by scope ("<tab>" or "<tab>><frame target>"). */
  sessions: Map<string, Wired>;
  /** Fetch request ids whose auth challenge was answered once. */
  authTried: Set<string>;
  started: Map<string, number>;
  /** Rule outcomes (and the headers a rule set) seen before the journal entry existed, by network request id. */
  early: Map<string, { rule: NetEntry["rule"]; headers?: Record<string, string> | undefined }>;
  syncing: Promise<void>;
  /** Settles once the tab's auto-attach is on: the frames it had then are wired by that time. */
  framesReady: Promise<unknown>;
  /** The main frame's latest navigation request, and the document generation it starts. */
  mainDoc?: { requestId: string; gen: number };
  ends: TabEnds;
  /** A remote browser's tab: its downloads are captured through CDP. */
  remote?: boolean;
}

/** The network plumbing of one browser connection: its tracked tabs and download settings. */
export interface ConnNet {
  host: NetHost;
  tabs: Map<string, TabNet>;
  /** Who follows a tab's out-of-process frames (an action's watch), by tab: a watch may start before the tab is tracked. */
  frameWatchers: Map<string, Set<(s: CdpSession) => void>>;
  downloadContexts: Set<string>;
  /** Where a launched browser saves downloads (private); unset for a person's browser. */
  privateDir?: string;
  /** Woken when a download changes. */
  downloadListeners: Set<() => void>;
}

const nets = new WeakMap<BrowserConnection, ConnNet>();

export function openConnNet(conn: BrowserConnection, host: NetHost): ConnNet {
  const n: ConnNet = {
    host,
    tabs: new Map(),
    frameWatchers: new Map(),
    downloadContexts: new Set(),
    downloadListeners: new Set(),
  };
  nets.set(conn, n);
  return n;
}

export function connNet(conn: BrowserConnection | undefined): ConnNet | undefined {
  return conn ? nets.get(conn) : undefined;
}
