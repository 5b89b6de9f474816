/**
 * Command records, in broker memory only. One record per browser command of a client key:
 * accepted → dispatched → completed | unknown_outcome | cancelled | expired. Bounded: at most
 * MAX_RECORDS, terminal ones kept TERMINAL_TTL_MS, stored replies within a byte budget.
 */
import { COMMAND_STATUSES } from "../../protocol/commands-reliability.ts";
import type { Fingerprint } from "./canonical.ts";

export { COMMAND_STATUSES };
export type CommandStatus = (typeof COMMAND_STATUSES)[number];

export const MAX_RECORDS = 2048;
export const TERMINAL_TTL_MS = 5 * 60_000;
const SWEEP_EVERY_MS = 1000;
/** Replies bigger than this are not kept for `bp command` (a request id's reply always is, within the budget). */
const KEEP_REPLY_CHARS = 64 * 1024;
const REPLY_BUDGET_CHARS = 64 * 1024 * 1024;

export type Reply = Record<string, unknown> & { ok: boolean };

export interface CommandRecord {
  id: string;
  key: string;
  invocation: string;
  method: string;
  mutating: boolean;
  status: CommandStatus;
  acceptedAt: number;
  deadlineAt: number;
  dispatchedAt?: number;
  completedAt?: number;
  /** The agent's tab id at acceptance, when it had a selected tab. */
  tab?: string;
  cancellationRequested?: boolean;
  requestId?: string;
  /** Idempotency keys this record answers: with the target at acceptance and at completion. */
  idemKeys: string[];
  fingerprint: Fingerprint;
  /** The final reply (ok or error shape), when kept. */
  reply?: Reply;
  replySize: number;
  replyDropped?: boolean;
  /**
   * Resolves once the record is terminal, with nothing: a promise holds its value for as long as it lives, so one
   * resolved with the reply kept every reply (over the size and budget limits too) for the record's five minutes.
   */
  done: Promise<void>;
  finish: () => void;
}

// A type, not an interface: replies hold it where their schema says "record".
export type PublicCommand = {
  id: string;
  method: string;
  mutating?: true;
  status: CommandStatus;
  acceptedAt: string;
  deadlineAt?: string;
  dispatchedAt?: string;
  completedAt?: string;
  tab?: string;
  cancellationRequested?: true;
  requestId?: string;
};

export function isTerminal(status: CommandStatus): boolean {
  return status !== "accepted" && status !== "dispatched";
}

export interface AcceptInput {
  key: string;
  invocation: string;
  method: string;
  mutating: boolean;
  deadlineAt: number;
  fingerprint: Fingerprint;
  tab?: string;
  requestId?: string;
  idemKey?: string;
}

export class CommandStore {
  private readonly records = new Map<string, CommandRecord>();
  private readonly byInvocation = new Map<string, CommandRecord>();
  private readonly byRequest = new Map<string, CommandRecord>();
  private replyChars = 0;
  private lastSweep = Number.NEGATIVE_INFINITY;

  constructor(private readonly now: () => number = Date.now) {}

  get size(): number {
    return this.records.size;
  }

  accept(input: AcceptInput): CommandRecord {
    this.prune();
    let finish!: () => void;
    const done = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const rec: CommandRecord = {
      id: this.newId(),
      key: input.key,
      invocation: input.invocation,
      method: input.method,
      mutating: input.mutating,
      status: "accepted",
      acceptedAt: this.now(),
      deadlineAt: input.deadlineAt,
      idemKeys: input.idemKey !== undefined ? [input.idemKey] : [],
      fingerprint: input.fingerprint,
      replySize: 0,
      done,
      finish,
    };
    if (input.tab !== undefined) rec.tab = input.tab;
    if (input.requestId !== undefined) {
      rec.requestId = input.requestId;
      this.byRequest.set(requestKey(input.key, input.requestId), rec);
    }
    this.records.set(rec.id, rec);
    this.byInvocation.set(rec.invocation, rec);
    return rec;
  }

  /** A record of this key only: other keys' ids do not exist for it. */
  get(key: string, id: string): CommandRecord | undefined {
    const rec = this.records.get(id);
    return rec && rec.key === key ? rec : undefined;
  }

  byInvocationId(invocation: string): CommandRecord | undefined {
    return this.byInvocation.get(invocation);
  }

  findRequest(key: string, requestId: string): CommandRecord | undefined {
    return this.byRequest.get(requestKey(key, requestId));
  }

  markDispatched(rec: CommandRecord): void {
    if (rec.status !== "accepted") return;
    rec.status = "dispatched";
    rec.dispatchedAt = this.now();
  }

  /** Moves a record to a terminal status once; later calls are ignored. */
  complete(rec: CommandRecord, status: CommandStatus, reply: Reply, extraIdemKey?: string): void {
    if (isTerminal(rec.status)) return;
    rec.status = status;
    rec.completedAt = this.now();
    if (extraIdemKey !== undefined && !rec.idemKeys.includes(extraIdemKey)) rec.idemKeys.push(extraIdemKey);
    const size = JSON.stringify(reply).length;
    if (rec.requestId !== undefined || size <= KEEP_REPLY_CHARS) {
      rec.reply = reply;
      rec.replySize = size;
      this.replyChars += size;
      this.trimReplies();
    } else {
      rec.replyDropped = true;
    }
    this.byInvocation.delete(rec.invocation);
    rec.finish();
  }

  /** This key's records, newest first. */
  list(key: string, statuses: readonly CommandStatus[] | undefined, limit: number): CommandRecord[] {
    this.prune();
    const out: CommandRecord[] = [];
    for (const rec of [...this.records.values()].reverse()) {
      if (rec.key !== key) continue;
      if (statuses && !statuses.includes(rec.status)) continue;
      out.push(rec);
      if (out.length >= limit) break;
    }
    return out;
  }

  active(): number {
    let n = 0;
    for (const rec of this.records.values()) if (!isTerminal(rec.status)) n++;
    return n;
  }

  /**
   * Drops expired terminal records, then the oldest terminal ones beyond the cap. Every call
   * runs it: the expiry sweep walks all records, so it runs at most once a second (a record
   * lives a second past its five minutes at worst); the cap is kept on every call.
   */
  prune(): void {
    const now = this.now();
    if (now - this.lastSweep >= SWEEP_EVERY_MS || now < this.lastSweep) {
      this.lastSweep = now;
      const cutoff = now - TERMINAL_TTL_MS;
      for (const rec of this.records.values()) {
        if (isTerminal(rec.status) && (rec.completedAt ?? 0) < cutoff) this.drop(rec);
      }
    }
    if (this.records.size < MAX_RECORDS) return;
    for (const rec of this.records.values()) {
      if (this.records.size < MAX_RECORDS) break;
      if (isTerminal(rec.status)) this.drop(rec);
    }
  }

  private drop(rec: CommandRecord): void {
    this.records.delete(rec.id);
    this.byInvocation.delete(rec.invocation);
    if (rec.requestId !== undefined) {
      const k = requestKey(rec.key, rec.requestId);
      if (this.byRequest.get(k) === rec) this.byRequest.delete(k);
    }
    this.replyChars -= rec.reply ? rec.replySize : 0;
    delete rec.reply;
  }

  private trimReplies(): void {
    if (this.replyChars <= REPLY_BUDGET_CHARS) return;
    for (const rec of this.records.values()) {
      if (this.replyChars <= REPLY_BUDGET_CHARS) break;
      if (!rec.reply) continue;
      this.replyChars -= rec.replySize;
      delete rec.reply;
      rec.replyDropped = true;
    }
  }

  /** Random, so ids say nothing about how many commands ran before (or for whom). */
  private newId(): string {
    for (;;) {
      // Web Crypto: node:crypto costs the idle broker megabytes.
      const id = `c${Buffer.from(crypto.getRandomValues(new Uint8Array(6))).toString("hex")}`;
      if (!this.records.has(id)) return id;
    }
  }
}

function requestKey(key: string, requestId: string): string {
  return JSON.stringify([key, requestId]);
}

export function publicCommand(rec: CommandRecord): PublicCommand {
  const iso = (t: number) => new Date(t).toISOString();
  // Lean: `mutating` only when true; the deadline only while the command still runs (after, it is history);
  // no timestamp that repeats the one before it.
  const out: PublicCommand = {
    id: rec.id,
    method: rec.method,
    ...(rec.mutating ? { mutating: true as const } : {}),
    status: rec.status,
    acceptedAt: iso(rec.acceptedAt),
  };
  if (!isTerminal(rec.status)) out.deadlineAt = iso(rec.deadlineAt);
  // A read is dispatched as it starts, so its dispatch time says nothing; a mutating command's
  // says that it reached the browser, even in the millisecond it was accepted.
  let last = rec.acceptedAt;
  if (rec.dispatchedAt !== undefined && (rec.mutating || rec.dispatchedAt !== last)) {
    out.dispatchedAt = iso(rec.dispatchedAt);
    last = rec.dispatchedAt;
  }
  // The status already says it ended: the time only when it is not the one just shown.
  if (rec.completedAt !== undefined && rec.completedAt !== last) out.completedAt = iso(rec.completedAt);
  if (rec.tab !== undefined) out.tab = rec.tab;
  if (rec.cancellationRequested) out.cancellationRequested = true;
  if (rec.requestId !== undefined) out.requestId = rec.requestId;
  return out;
}
