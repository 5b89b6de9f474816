/**
 * One agent's request journal: the requests of the tabs it controls, newest last, bounded
 * by count and by bytes of kept detail. Every entry has a sequence number (its id for the
 * agent); `after` pages through it, and a cursor older than what is kept is reported as a
 * gap, never silently skipped.
 */
import { urlMatches } from "../commands/canonical.ts";
import { redactUrl } from "./redact.ts";
import { cutString } from "../../shared/page-strings.ts";

export const JOURNAL_MAX_ENTRIES = 1000;
/** Bytes of headers and post data kept across the journal. */
export const JOURNAL_MAX_BYTES = 16 * 1024 * 1024;
const MAX_HEADER_VALUE = 4096;

export interface NetEntry {
  id: number;
  tab: string;
  targetId: string;
  /** The session-scoped CDP id, for the body; never shown. */
  requestId: string;
  method: string;
  url: string;
  type: string;
  startedAt: number;
  status?: number;
  statusText?: string;
  mimeType?: string;
  size?: number;
  durationMs?: number;
  error?: string;
  /** What our rules did to it. */
  rule?: { id: string; action: "blocked" | "mocked" | "headers" };
  requestHeaders?: Record<string, string>;
  responseHeaders?: Record<string, string>;
  /** The response's Set-Cookie lines (its extra info: the response's own headers leave them out), one per line. */
  setCookie?: string;
  postData?: string;
  done: boolean;
  bytes: number;
}

export interface NetQuery {
  limit: number;
  url?: string;
  method?: string;
  status?: string;
  types?: string[];
  after?: number;
  /** Only this tab's requests (its agent tab id), from this entry id on (inclusive). */
  tab?: string;
  from?: number;
}

/** Header values are bounded; the names of secrets stay visible, their values are the agent's own page's. */
export function boundHeaders(h: Record<string, unknown> | undefined): Record<string, string> | undefined {
  if (!h) return undefined;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) {
    const s = String(v);
    out[k] = s.length > MAX_HEADER_VALUE ? `${cutString(s, MAX_HEADER_VALUE)}…` : s;
  }
  return out;
}

function sizeOf(e: NetEntry): number {
  let n = e.url.length + (e.postData?.length ?? 0) + (e.setCookie?.length ?? 0);
  for (const h of [e.requestHeaders, e.responseHeaders])
    if (h) for (const [k, v] of Object.entries(h)) n += k.length + v.length;
  return n;
}

export function statusMatches(status: number | undefined, filter: string): boolean {
  if (status === undefined) return false;
  const f = filter.toLowerCase();
  if (/^[1-5]xx$/.test(f)) return Math.floor(status / 100) === Number(f[0]);
  return String(status) === f;
}

export class Journal {
  private readonly entries: NetEntry[] = [];
  private readonly byRequest = new Map<string, NetEntry>();
  private seq = 0;
  private bytes = 0;
  /** Sequence numbers up to this were dropped to stay within the bounds. */
  dropped = 0;

  add(e: Omit<NetEntry, "id" | "done" | "bytes">): NetEntry {
    const entry: NetEntry = { ...e, url: redactUrl(e.url), id: ++this.seq, done: false, bytes: 0 };
    entry.bytes = sizeOf(entry);
    this.entries.push(entry);
    this.byRequest.set(`${e.targetId}:${e.requestId}`, entry);
    this.bytes += entry.bytes;
    this.trim();
    return entry;
  }

  find(targetId: string, requestId: string): NetEntry | undefined {
    return this.byRequest.get(`${targetId}:${requestId}`);
  }

  /** Re-measures an entry after headers arrived. */
  grew(e: NetEntry): void {
    const n = sizeOf(e);
    this.bytes += n - e.bytes;
    e.bytes = n;
    this.trim();
  }

  get(id: number): NetEntry | undefined {
    const first = this.entries[0];
    if (!first) return undefined;
    return this.entries[id - first.id];
  }

  clear(): void {
    this.dropped = this.seq;
    this.entries.length = 0;
    this.byRequest.clear();
    this.bytes = 0;
  }

  private trim(): void {
    while (this.entries.length > JOURNAL_MAX_ENTRIES || (this.bytes > JOURNAL_MAX_BYTES && this.entries.length > 1)) {
      const old = this.entries.shift();
      if (!old) break;
      this.bytes -= old.bytes;
      this.byRequest.delete(`${old.targetId}:${old.requestId}`);
      this.dropped = old.id;
    }
  }

  /**
   * Entries after the cursor that match, oldest first, at most `limit`. Without a cursor
   * the newest `limit` matches. `gap`: the cursor points before what is kept.
   */
  /** The last top-level document request of a tab (its main frame's session), still in the journal. */
  lastDocument(targetId: string): NetEntry | undefined {
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const e = this.entries[i];
      if (e && e.type === "document" && e.targetId === targetId) return e;
    }
    return undefined;
  }

  query(q: NetQuery): { entries: NetEntry[]; total: number; truncated: boolean; gap: boolean; nextCursor?: number } {
    const types = q.types?.map((t) => t.toLowerCase());
    const method = q.method?.toUpperCase();
    const match = (e: NetEntry) =>
      (q.url === undefined || urlMatches(e.url, q.url)) &&
      (method === undefined || e.method === method) &&
      (q.status === undefined || statusMatches(e.status, q.status)) &&
      (types === undefined || types.includes(e.type.toLowerCase())) &&
      (q.tab === undefined || e.tab === q.tab) &&
      (q.from === undefined || e.id >= q.from);
    const after = q.after ?? 0;
    const gap = q.after !== undefined && q.after < this.dropped;
    const matched = this.entries.filter((e) => e.id > after && match(e));
    const total = matched.length;
    let entries: NetEntry[];
    let truncated = false;
    if (q.after !== undefined) {
      entries = matched.slice(0, q.limit);
      truncated = matched.length > q.limit;
    } else {
      entries = matched.slice(-q.limit);
      truncated = matched.length > q.limit;
    }
    const last = entries.at(-1) ?? undefined;
    const nextCursor = last ? last.id : q.after !== undefined ? q.after : this.seq;
    return { entries, total, truncated: truncated || gap, gap, nextCursor };
  }
}
