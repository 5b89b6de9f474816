import { DEFAULT_TIMEOUT_MS, isKeyLike } from "../protocol/table.ts";
import { cancelReplySchema, readReply, readWith, type CallRequest, type Locator } from "../protocol/wire.ts";
import type { Globals } from "../protocol/cli-spec.ts";
import { BpError, boundErrorShape, DEFAULT_HINTS, invalidArgument, toBpError } from "../shared/errors.ts";
import type { BpPaths } from "../shared/paths.ts";
import { isSameProcessAlive } from "../shared/process-identity.ts";
import { executableIdentity } from "../shared/self.ts";
import { PROTOCOL, VERSION } from "../shared/version.ts";
import { batchLines, MAX_BATCH_BYTES } from "./batch-lines.ts";
import { request } from "./client.ts";
import { KeptConnection } from "./kept-connection.ts";
import { isTerminal, printError, printResult, type Mode } from "./output.ts";
import { checkArgs, parseCommandLine } from "./parse.ts";

/** Grace beyond a step's deadline for the broker to report expiry itself (as a single call has). */
const REPLY_GRACE_MS = 2_000;
/** MAX_BATCH_STEPS of the command's definition (src/protocol/commands-tools.ts), without loading it. */
export const MAX_STEPS = 100;

interface Step {
  line: number;
  name: string;
  mutating: boolean;
  call: Omit<CallRequest, "token" | "invocation">;
}

export interface BatchEnv {
  paths: BpPaths;
  locator: Promise<Locator | undefined>;
  mode: Mode;
  globals: Globals;
  clientKey: string;
  requestId: string | undefined;
  tabAccess: "all" | "own";
  outputDir: string | undefined;
}

/**
 * 'bp batch': every line is parsed and checked as its own 'bp' call would be before any runs
 * (a malformed line runs nothing), then the calls go one by one over one broker connection.
 * Each is a whole call to the broker (its record, request id, tab guards and handoff gate),
 * so the batch pays the process start-up once. A mutating step without its own --request-id
 * takes `<batch id>.<line>` when the batch has one, so a retried batch replays instead of acting twice.
 */
export async function runBatch(cont: boolean, env: BatchEnv): Promise<void> {
  if (isTerminal(0))
    throw invalidArgument(
      "batch",
      "Pipe the commands on stdin, one per line: printf 'snapshot\\nclick 3\\n' | bp batch.",
      { parserCode: "no_stdin" },
    );
  const bytes = await Bun.stdin.bytes();
  if (bytes.length > MAX_BATCH_BYTES)
    throw invalidArgument("batch", `A batch is at most ${MAX_BATCH_BYTES} bytes on stdin.`, {
      parserCode: "too_large",
    });
  if (env.requestId !== undefined && env.requestId.length > 120)
    throw invalidArgument("requestId", "A batch's request id is at most 120 characters (its steps add .<line>).");
  const steps = await parseSteps(new TextDecoder().decode(bytes), env);
  const results: Record<string, unknown>[] = [];
  let ok = true;
  let conn: KeptConnection | undefined;
  let locator: Locator | undefined;
  try {
    for (const step of steps) {
      const call: CallRequest = { ...step.call, invocation: crypto.randomUUID(), token: "" };
      let reply: Record<string, unknown>;
      try {
        if (!conn || !locator) ({ conn, locator } = await connect(env.paths, locator ?? (await env.locator)));
        reply = await sendStep(conn, locator, call, env.mode);
        // A call to a crashed broker's socket, now a new broker's, was refused unread.
        if (reply.ok === false && reply.code === "capability_denied" && !isSameProcessAlive(locator.processIdentity)) {
          conn.close();
          ({ conn, locator } = await connect(env.paths, undefined));
          reply = await sendStep(conn, locator, call, env.mode);
        }
      } catch (err) {
        reply = stepFailure(err, step, call.timeoutMs);
        conn?.close();
        conn = undefined;
      }
      results.push(reply);
      if (reply.ok !== true) {
        ok = false;
        if (!cont) break;
      }
    }
  } finally {
    conn?.close();
  }
  if (results.length < steps.length) ok = false;
  if (env.mode === "human") await printHuman(steps, results);
  else await printResult("batch", { ok, results }, "json");
  if (!ok) process.exitCode = 1;
}

async function parseSteps(input: string, env: BatchEnv): Promise<Step[]> {
  const steps: Step[] = [];
  const cwd = process.cwd();
  for (const { line, words } of batchLines(input, MAX_STEPS)) {
    try {
      const parsed = parseCommandLine(words);
      const spec = parsed.spec;
      if (parsed.help) throw invalidArgument("help", "--help does not run in a batch.");
      if (spec.runs === "local")
        throw invalidArgument("command", `'${spec.name}' does not run in a batch; run it on its own.`);
      if (spec.name === "handoff" && parsed.args.wait === true)
        throw invalidArgument("wait", "'handoff --wait' does not run in a batch; run it on its own.");
      if (spec.name === "auth" && parsed.args["password-stdin"] === true)
        throw invalidArgument(
          "password",
          "A password comes on stdin, which the batch reads; run 'bp auth' on its own.",
        );
      if (spec.name === "net headers" && parsed.args.stdin === true)
        throw invalidArgument(
          "headers",
          "Headers on stdin cannot be read in a batch (stdin is the batch); run it on its own.",
        );
      if (spec.stdinArg && parsed.args[spec.stdinArg] === undefined)
        throw invalidArgument(spec.stdinArg, `Give ${spec.stdinArg} on the line: stdin is the batch itself.`);
      const args = await checkArgs(spec, parsed.args);
      for (const k of spec.localPaths ?? []) {
        if (typeof args[k] === "string" && args[k] !== "")
          args[k] = (await import("node:path")).resolve(cwd, String(args[k]));
      }
      const own = parsed.globals["request-id"];
      const derived = spec.mutating && env.requestId !== undefined ? `${env.requestId}.${line}` : undefined;
      const requestId = own ?? derived;
      const clientKey = parsed.globals["client-key"] ?? env.clientKey;
      if (requestId !== undefined && !isKeyLike(requestId, 1))
        throw invalidArgument("requestId", "Invalid request id.");
      steps.push({
        line,
        name: spec.name,
        mutating: spec.mutating === true,
        call: {
          op: "call",
          protocol: PROTOCOL.version,
          clientKey,
          command: spec.name,
          args,
          timeoutMs: parsed.globals.timeout ?? env.globals.timeout ?? DEFAULT_TIMEOUT_MS,
          tabAccess: env.tabAccess,
          mode: env.mode,
          cwd,
          ...(env.outputDir ? { outputDir: env.outputDir } : {}),
          ...(requestId !== undefined ? { requestId } : {}),
          // As a lone 'bp disconnect' says it: the broker stops only for the executable that started it.
          ...(spec.name === "disconnect"
            ? { executable: { version: VERSION, identity: executableIdentity().identity } }
            : {}),
        },
      });
    } catch (err) {
      const e = toBpError(err);
      // The line's own failure, said with its line number; nothing of the batch has run.
      throw new BpError(e.code, `Line ${line}: ${e.message}`, {
        ...(e.hint ? { hint: e.hint } : {}),
        context: { ...(e.context ?? {}), line },
      });
    }
  }
  return steps;
}

async function connect(
  paths: BpPaths,
  known: Locator | undefined,
): Promise<{ conn: KeptConnection; locator: Locator }> {
  if (known) {
    try {
      return { conn: await KeptConnection.open(known.endpoint, 2_000), locator: known };
    } catch {
      // no broker there: start or find one
    }
  }
  const { ensureBroker } = await import("./start-broker.ts");
  const locator = await ensureBroker(paths);
  return { conn: await KeptConnection.open(locator.endpoint, 5_000), locator };
}

async function sendStep(
  conn: KeptConnection,
  locator: Locator,
  call: CallRequest,
  mode: Mode,
): Promise<Record<string, unknown>> {
  const stop = onSignal(locator, call.invocation, mode);
  try {
    const raw = await conn.call({ ...call, token: locator.token }, call.timeoutMs + REPLY_GRACE_MS);
    const reply = readReply(raw);
    if (!reply)
      throw new BpError("internal_error", "Broker sent an unreadable reply.", { context: { reason: "bad_reply" } });
    return reply.ok === false
      ? (boundErrorShape(reply) as unknown as Record<string, unknown>)
      : (reply as Record<string, unknown>);
  } finally {
    stop();
  }
}

/** A step the connection failed: a mutating one may have happened (the single-call rule, never re-sent). */
function stepFailure(err: unknown, step: Step, timeoutMs: number): Record<string, unknown> {
  const e = toBpError(err);
  const reason = e.context?.reason;
  if (step.mutating && (reason === "broker_closed" || reason === "broker_timeout")) {
    return new BpError(
      "unknown_outcome",
      `The broker did not answer '${step.name}' (line ${step.line}); it may or may not have taken effect.`,
      {
        retryable: true,
        context: { line: step.line, ...(reason === "broker_timeout" ? { timeoutMs } : { reason: "broker_lost" }) },
      },
    ).toJSON() as unknown as Record<string, unknown>;
  }
  if (reason === "broker_timeout")
    return new BpError("command_expired", `No reply to '${step.name}' within ${timeoutMs} ms.`, {
      retryable: true,
      context: { line: step.line, timeoutMs },
    }).toJSON() as unknown as Record<string, unknown>;
  return e.toJSON() as unknown as Record<string, unknown>;
}

/** SIGINT/SIGTERM cancel the running step's record at the broker, as for a single call, then exit 130/143. */
function onSignal(locator: Locator, invocation: string, mode: Mode): () => void {
  const handle = (signal: "SIGINT" | "SIGTERM") => {
    const code = signal === "SIGINT" ? 130 : 143;
    const done = () => {
      printError(
        new BpError(
          "command_cancelled",
          `Batch cancelled by ${signal}; the broker was asked to stop the running step (no rollback), and no later step ran.`,
          { hint: "Inspect the current tab state before retrying." },
        ).toJSON(),
        mode,
      );
      process.exit(code);
    };
    setTimeout(done, 2000);
    request(locator.endpoint, { op: "cancel", token: locator.token, invocation }, 1500, (x) =>
      readWith(cancelReplySchema(), x),
    ).then(done, done);
  };
  const onInt = () => handle("SIGINT");
  const onTerm = () => handle("SIGTERM");
  process.on("SIGINT", onInt);
  process.on("SIGTERM", onTerm);
  return () => {
    process.off("SIGINT", onInt);
    process.off("SIGTERM", onTerm);
  };
}

async function printHuman(steps: Step[], results: Record<string, unknown>[]): Promise<void> {
  for (const [i, r] of results.entries()) {
    const s = steps[i];
    if (!s) continue;
    console.log(`[${i + 1}] line ${s.line}: ${s.name}`);
    if (r.ok === true) await printResult(s.name, r, "human", s.call.args);
    // On stdout with the rest, so each failure stays under its own step.
    else console.log([`✗ ${String(r.error)} [${String(r.code)}]`, ...hintOf(r)].join("\n"));
  }
  if (results.length < steps.length) console.log(`${steps.length - results.length} step(s) not run.`);
}

function hintOf(r: Record<string, unknown>): string[] {
  const hint = typeof r.hint === "string" ? r.hint : DEFAULT_HINTS[r.code as keyof typeof DEFAULT_HINTS];
  return hint ? [`  hint: ${hint}`] : [];
}
