/**
 * One agent's console log: console calls, uncaught exceptions and the browser's own messages
 * (failed requests, interventions) of the tabs it controls, newest last, bounded by count and
 * bytes like the request journal. Ids are a per-agent sequence; `since` pages through it and
 * a cursor older than what is kept is a gap, never silently skipped.
 */
import type { Protocol } from "devtools-protocol";
import type { CdpSession } from "../../cdp/session.ts";
import { cutString } from "../../shared/page-strings.ts";
import { redactUrl } from "./redact.ts";

export const CONSOLE_MAX_ENTRIES = 1000;
export const CONSOLE_MAX_BYTES = 2 * 1024 * 1024;
/** Characters of one message kept (and shown). */
export const CONSOLE_TEXT_MAX = 2000;

export type ConsoleLevel = "error" | "warning" | "info" | "log";
const RANK: Record<ConsoleLevel, number> = { error: 0, warning: 1, info: 2, log: 3 };

export interface ConsoleEntry {
  id: number;
  targetId: string;
  level: ConsoleLevel;
  text: string;
  kind?: "exception" | "network" | "browser";
  source?: string;
  at: number;
}

export class ConsoleLog {
  private readonly entries: ConsoleEntry[] = [];
  private seq = 0;
  private bytes = 0;
  dropped = 0;

  add(e: Omit<ConsoleEntry, "id">): ConsoleEntry {
    const entry: ConsoleEntry = { ...e, text: redactUrl(cutString(e.text, CONSOLE_TEXT_MAX)), id: ++this.seq };
    this.entries.push(entry);
    this.bytes += size(entry);
    while (this.entries.length > CONSOLE_MAX_ENTRIES || (this.bytes > CONSOLE_MAX_BYTES && this.entries.length > 1)) {
      const old = this.entries.shift();
      if (!old) break;
      this.bytes -= size(old);
      this.dropped = old.id;
    }
    return entry;
  }

  /** The latest id so far (0: none). */
  get last(): number {
    return this.seq;
  }

  /** Errors of one tab after a cursor (for an action's hint). */
  errorsAfter(targetId: string, after: number): ConsoleEntry[] {
    return this.entries.filter((e) => e.id > after && e.targetId === targetId && e.level === "error");
  }

  /**
   * One tab's entries of `level` or more severe after the cursor, oldest first, at most
   * `limit`; without a cursor the newest `limit`.
   */
  query(q: { targetId: string; level?: ConsoleLevel; since?: number; limit: number }) {
    const max = q.level === undefined ? 3 : RANK[q.level];
    const after = q.since ?? 0;
    const matched = this.entries.filter((e) => e.id > after && e.targetId === q.targetId && RANK[e.level] <= max);
    const entries = q.since !== undefined ? matched.slice(0, q.limit) : matched.slice(-q.limit);
    const gap = q.since !== undefined && q.since < this.dropped;
    const last = entries.at(-1);
    return {
      entries,
      total: matched.length,
      truncated: matched.length > q.limit,
      gap,
      nextCursor: last ? last.id : q.since !== undefined ? q.since : this.seq,
    };
  }
}

function size(e: ConsoleEntry): number {
  return e.text.length + (e.source?.length ?? 0) + 64;
}

const API_LEVEL: Record<string, ConsoleLevel> = { error: "error", assert: "error", warning: "warning", info: "info" };
const LOG_LEVEL: Record<string, ConsoleLevel> = { error: "error", warning: "warning", info: "info", verbose: "log" };

/** One console argument as the page would print it, without asking the page again. */
function argText(a: Protocol.Runtime.RemoteObject): string {
  if (a.type === "string") return String(a.value);
  if (a.value !== undefined) return typeof a.value === "object" ? JSON.stringify(a.value) : String(a.value);
  if (a.unserializableValue !== undefined) return a.unserializableValue;
  if (a.preview) {
    const props = a.preview.properties
      .map((p) => (a.preview?.subtype === "array" ? (p.value ?? p.type) : `${p.name}: ${p.value ?? p.type}`))
      .join(", ");
    const body =
      a.preview.subtype === "array"
        ? `[${props}${a.preview.overflow ? ", …" : ""}]`
        : `{${props}${a.preview.overflow ? ", …" : ""}}`;
    return a.subtype === "error" ? (a.description ?? body) : body;
  }
  return a.description ?? a.type;
}

function where(url: string | undefined, line: number | undefined, column: number | undefined): string | undefined {
  if (!url) return undefined;
  return `${redactUrl(url)}${line !== undefined ? `:${line + 1}${column !== undefined ? `:${column + 1}` : ""}` : ""}`;
}

/**
 * Listens for a tab's console on one of its sessions (the network session, which lives as
 * long as the tab): `sink` gets each message, or drops it when no agent may see it now.
 * Runtime.enable reports the messages the page logged before, once: those are kept too.
 */
export function watchConsole(
  session: CdpSession,
  targetId: string,
  sink: (e: Omit<ConsoleEntry, "id">) => void,
  timeoutMs: number,
): Promise<unknown> {
  session.on("Runtime.consoleAPICalled", (p) => {
    const top = p.stackTrace?.callFrames[0];
    const text = p.args.map(argText).join(" ");
    const source = where(top?.url, top?.lineNumber, top?.columnNumber);
    sink({
      targetId,
      level: API_LEVEL[p.type] ?? "log",
      text: p.type === "assert" ? `Assertion failed: ${text}` : text,
      ...(source ? { source } : {}),
      at: Date.now(),
    });
  });
  session.on("Runtime.exceptionThrown", ({ exceptionDetails: d }) => {
    const text = d.exception?.description ?? d.text;
    const source = where(d.url ?? d.stackTrace?.callFrames[0]?.url, d.lineNumber, d.columnNumber);
    sink({ targetId, level: "error", kind: "exception", text, ...(source ? { source } : {}), at: Date.now() });
  });
  session.on("Log.entryAdded", ({ entry }) => {
    // Console calls arrive through Runtime too; the browser's own messages only here.
    if (entry.source === "javascript") return;
    const source = where(entry.url, entry.lineNumber, undefined);
    const text = entry.url && entry.source === "network" ? `${entry.text} (${redactUrl(entry.url)})` : entry.text;
    sink({
      targetId,
      level: LOG_LEVEL[entry.level] ?? "log",
      kind: entry.source === "network" ? "network" : "browser",
      text,
      ...(source && entry.source !== "network" ? { source } : {}),
      at: Date.now(),
    });
  });
  return Promise.all([
    session.send("Runtime.enable", undefined, { timeoutMs }),
    session.send("Log.enable", undefined, { timeoutMs }),
  ]).catch(() => undefined);
}
