import * as v from "valibot";
import { ERROR_CODES } from "../shared/errors.ts";
import { once } from "../shared/once.ts";
import * as generated from "./wire.generated.ts";

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
  /** The caller's deadline (epoch ms): a broker that reads the request after it never runs it. */
  deadlineAt?: number;
  tabAccess: "all" | "own";
  /** "human": the broker adds a pre-rendered `text` field, so the CLI needs no page code. */
  mode: "json" | "human";
  /**
   * Headers for 'connect --cdp-url', read from stdin. Kept in broker memory for the
   * connection only; never part of args, command records, output, logs or errors.
   */
  secretHeaders?: Record<string, string>;
  /**
   * A secret read from stdin ('auth --password-stdin', 'net headers --stdin'). Like
   * secretHeaders it is never part of args, command records, output, logs or errors.
   */
  secret?: string;
  /** The caller's HOME and XDG_CONFIG_HOME ('connect', 'status'): installed browsers are looked for there. */
  discovery?: { home?: string; xdgConfigHome?: string };
  /** The CLI's version: a broker of another build says so in every reply's hints. */
  version?: string;
  /** Only 'disconnect' sends it (brokers before 0.1.1 let only the installation that started them stop them). */
  executable?: { version: string; identity: string };
  /** The CLI's working directory: relative output paths resolve against it. */
  cwd?: string;
  /** BROWSER_PILOT_OUTPUT_DIR as the CLI saw it (absolute); outputs must stay inside it. */
  outputDir?: string;
  /** Keep the connection open for the next call after the reply ('bp batch'). */
  keep?: boolean;
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

/*
 * Every line read from the socket is checked against these before any field is used, at
 * both ends: a peer that sends `null`, an array or a half-filled object gets an error and
 * loses its connection, nothing more. Each schema is built on first use: a CLI call builds
 * none (see readReply), where building them all cost every call ~0.3 ms. The requests'
 * schemas, which only the broker reads, are in wire-requests.ts.
 */
export const shortString = (max: number) => v.pipe(v.string(), v.maxLength(max));
const protocolRange = () => v.object({ min: v.pipe(v.number(), v.integer()), max: v.pipe(v.number(), v.integer()) });

/** valibot's record takes an array too (as an object of its indexes): refused before the record sees it. */
export const namedRecord = once(() =>
  v.pipe(
    v.unknown(),
    v.check((a) => !Array.isArray(a), "expected an object"),
    v.record(v.string(), v.unknown()),
  ),
);

export const helloReplySchema = once(() =>
  v.object({
    ok: v.literal(true),
    service: v.literal("browser-pilot"),
    version: shortString(64),
    protocol: protocolRange(),
  }),
);

/**
 * A failed call: the published error shape. Its fields reach the agent as they are, so a
 * reply that only looks like an error (no code, a code outside the contract) is refused.
 */
export const errorReplySchema = once(() =>
  v.object({
    ok: v.literal(false),
    error: v.string(),
    code: v.picklist(ERROR_CODES),
    retryable: v.boolean(),
    hint: v.optional(v.string()),
    context: v.optional(namedRecord()),
    remediation: v.optional(
      v.object({ code: v.string(), message: v.string(), actionRequired: v.optional(v.boolean()) }),
    ),
    handbacks: v.optional(v.array(namedRecord())),
    /** What the host policy stopped in the page while the command ran (src/broker/policy/blocks.ts). */
    policyBlocked: v.optional(v.array(namedRecord())),
  }),
);

/**
 * A reply to a call: the command's result (checked against the command's own result schema
 * by the tests, not here: the CLI prints it as it came) or the error shape.
 */
export const replySchema = once(() => v.variant("ok", [v.looseObject({ ok: v.literal(true) }), errorReplySchema()]));
export type Reply = v.InferOutput<ReturnType<typeof replySchema>>;

/*
 * The readers the CLI runs on every reply and locator, written out from the schemas above at
 * build time (build/schema-readers.ts), so a call builds none of them; `--check` in CI keeps
 * them the schemas' own verdict and output.
 */
export const readReply = (value: unknown): Reply | undefined => generated.readReply(value) as Reply | undefined;
export const readError = (value: unknown): Reply | undefined => generated.readError(value) as Reply | undefined;
export const readLocatorValue = (value: unknown): Locator | undefined =>
  generated.readLocatorValue(value) as Locator | undefined;

/** A schema's output for a value, undefined where the schema refuses it. */
export function readWith<S extends v.GenericSchema>(schema: S, value: unknown): v.InferOutput<S> | undefined {
  const parsed = v.safeParse(schema, value);
  return parsed.success ? parsed.output : undefined;
}

/** What a CLI reads from a cancel reply; anything else in it is ignored. */
export const cancelReplySchema = once(() =>
  v.looseObject({
    ok: v.boolean(),
    command: v.optional(
      v.looseObject({
        id: v.optional(v.string()),
        status: v.optional(v.string()),
        cancellationRequested: v.optional(v.boolean()),
      }),
    ),
  }),
);

export const locatorSchema = once(() =>
  v.object({
    schemaVersion: v.number(),
    pid: v.pipe(v.number(), v.integer(), v.minValue(1)),
    processIdentity: v.string(),
    endpoint: v.string(),
    startedAt: v.string(),
    version: v.string(),
    protocol: protocolRange(),
    executable: v.object({ version: v.string(), path: v.string(), identity: v.string() }),
    token: v.string(),
  }),
);
