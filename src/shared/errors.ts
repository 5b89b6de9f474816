/** Stable error codes: consumers branch on `code`, so a published code is never renamed. */
import { cutString } from "./page-strings.ts";

export const ERROR_CODES = [
  "protocol_incompatible",
  "not_initialized",
  "capability_denied",
  "browser_not_found",
  "browser_not_authorized",
  "browser_disconnected",
  "broker_in_use",
  "profile_selection_required",
  "profile_context_stale",
  "profile_context_unavailable",
  "workspace_not_found",
  "lease_expired",
  "target_not_owned",
  "target_busy",
  "stale_ref",
  "action_not_verified",
  "command_cancelled",
  "command_expired",
  "wait_timeout",
  "unknown_outcome",
  "artifact_not_found",
  "artifact_expired",
  "cursor_expired",
  "result_too_large",
  "invalid_argument",
  "internal_error",
  // ours
  "no_selected_tab",
  "tab_not_found",
  "script_error",
  "human_control",
  "navigation_failed",
  "navigation_pending",
  "dialog_pending",
  "quota_exceeded",
  "auth_failed",
  "state_directory_unusable",
  "browser_busy",
  "policy_denied",
  "policy_invalid",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export interface Remediation {
  code: string;
  message: string;
  actionRequired?: boolean;
}

export interface ErrorShape {
  ok: false;
  error: string;
  code: ErrorCode;
  retryable: boolean;
  hint?: string;
  context?: Record<string, unknown>;
  remediation?: Remediation;
  handbacks?: Record<string, unknown>[];
  /** What the host policy stopped since the key's previous reply (a redirect to a denied origin ends here). */
  policyBlocked?: Record<string, unknown>[];
}

export interface ErrorOptions {
  retryable?: boolean;
  hint?: string;
  context?: Record<string, unknown>;
  remediation?: Remediation;
  cause?: unknown;
}

export class BpError extends Error {
  readonly code: ErrorCode;
  readonly retryable: boolean;
  readonly hint?: string;
  readonly context?: Record<string, unknown>;
  readonly remediation?: Remediation;

  constructor(code: ErrorCode, message: string, options: ErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "BpError";
    this.code = code;
    this.retryable = options.retryable ?? false;
    if (options.hint !== undefined) this.hint = options.hint;
    if (options.context !== undefined) this.context = options.context;
    if (options.remediation !== undefined) this.remediation = options.remediation;
  }

  /** Bounded: an error never echoes a huge input back (a 200 KB argument costs 200 KB of tokens). */
  toJSON(): ErrorShape {
    const out: ErrorShape = {
      ok: false,
      error: clip(this.message, MAX_MESSAGE_CHARS),
      code: this.code,
      retryable: this.retryable,
    };
    if (this.hint !== undefined) out.hint = clip(this.hint, MAX_MESSAGE_CHARS);
    if (this.context !== undefined) out.context = boundValue(this.context, 0) as Record<string, unknown>;
    if (this.remediation !== undefined) out.remediation = this.remediation;
    return out;
  }

  static fromJSON(shape: ErrorShape): BpError {
    const opts: ErrorOptions = { retryable: shape.retryable };
    if (shape.hint !== undefined) opts.hint = shape.hint;
    if (shape.context !== undefined) opts.context = shape.context;
    if (shape.remediation !== undefined) opts.remediation = shape.remediation;
    return new BpError(shape.code, shape.error, opts);
  }
}

const MAX_MESSAGE_CHARS = 600;
const MAX_CONTEXT_STRING = 300;
const MAX_CONTEXT_ITEMS = 50;

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${cutString(text, max)}… (${text.length - max} more characters)`;
}

function boundValue(value: unknown, depth: number): unknown {
  if (typeof value === "string") return clip(value, MAX_CONTEXT_STRING);
  if (typeof value !== "object" || value === null) return value;
  if (depth >= 4) return "…";
  if (Array.isArray(value)) {
    const items = value.slice(0, MAX_CONTEXT_ITEMS).map((x) => boundValue(x, depth + 1));
    if (value.length > MAX_CONTEXT_ITEMS) items.push(`… ${value.length - MAX_CONTEXT_ITEMS} more`);
    return items;
  }
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(value).slice(0, MAX_CONTEXT_ITEMS)) out[k] = boundValue(x, depth + 1);
  return out;
}

export function boundErrorShape(shape: ErrorShape): ErrorShape {
  return BpError.fromJSON(shape).toJSON();
}

export function invalidArgument(field: string, message: string, context: Record<string, unknown> = {}): BpError {
  return new BpError("invalid_argument", message, { context: { field, ...context } });
}

/** Anything that is not a BpError becomes internal_error: never a stack trace on stdout. */
export function toBpError(err: unknown): BpError {
  if (err instanceof BpError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new BpError("internal_error", message || "Internal error");
}

/** Default recovery hints, as upstream's CLI wrapper added them. */
export const DEFAULT_HINTS: Partial<Record<ErrorCode, string>> = {
  stale_ref: "Run 'bp snapshot' to refresh element refs.",
  browser_disconnected: "Run 'bp connect' (or 'bp launch') first.",
  unknown_outcome: "Inspect the current tab state before deciding whether to retry.",
  no_selected_tab: "Run 'bp tabs' and 'bp tab <id>', or 'bp open <url> --new'.",
  target_busy: "Another agent controls this tab; use another tab or ask it to run 'bp tab release'.",
};
