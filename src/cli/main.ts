import { DEFAULT_CLIENT_KEY, DEFAULT_TIMEOUT_MS, isKeyLike } from "../protocol/table.ts";
import {
  cancelReplySchema,
  readReply,
  readWith,
  type CallRequest,
  type Locator,
  type Reply,
} from "../protocol/wire.ts";
import { BpError, invalidArgument, toBpError, type ErrorShape } from "../shared/errors.ts";
import { isAbsolute, resolvePaths, type BpPaths } from "../shared/paths.ts";
import { isSameProcessAlive } from "../shared/process-identity.ts";
import { executableIdentity } from "../shared/self.ts";
import { BUILD_TARGET, PROTOCOL, VERSION } from "../shared/version.ts";
import { isTimeout, isUnreachable, request, wasWritten } from "./client.ts";
import { probeBroker, readLocator, type BrokerState } from "./locate.ts";
import { runLocal, runPassive } from "./local.ts";
import { chooseMode, isTerminal, printError, printResult, type Mode } from "./output.ts";
import type { EarlyRead } from "./locator-file.ts";
import { checkArgs, commandDef, parseCommandLine } from "./parse.ts";

/** Grace beyond the command deadline for the broker to report expiry itself. */
const REPLY_GRACE_MS = 2_000;
/** status and disconnect never wait long on a broker that does not answer. */
const PASSIVE_REPLY_MS = 3_000;

/** `early` is the locator read src/main.ts started before this call began, if it did. */
export async function runCli(argv: string[], early?: EarlyRead): Promise<void> {
  if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V")) {
    // The first word stays the bare version, so `bp --version | cut -d" " -f1` compares ranges.
    console.log(`${VERSION} (${BUILD_TARGET})`);
    return;
  }
  let mode: Mode = chooseMode({ human: argv.includes("--human"), json: argv.includes("--json") });
  if (argv.length === 0 || (argv.length === 1 && (argv[0] === "--help" || argv[0] === "-h" || argv[0] === "help"))) {
    const { renderTopHelp } = await import("../protocol/help.ts");
    const denied = await (await import("./local.ts")).deniedCommands(process.env).catch(() => undefined);
    console.log(await renderTopHelp(VERSION, denied));
    return;
  }
  const env = process.env;
  let known: BpPaths | undefined;
  try {
    known = resolvePaths(env);
  } catch {
    // reported where it always was, after the arguments
  }
  const locator = locatorReader(known, early);
  try {
    const parsed = parseCommandLine(argv);
    const spec = parsed.spec;
    mode = chooseMode(parsed.globals);
    if (parsed.help) {
      const { renderCommandHelp } = await import("../protocol/help.ts");
      const key = parsed.globals["client-key"] ?? env.BROWSER_PILOT_CLIENT_KEY ?? DEFAULT_CLIENT_KEY;
      const denied = known
        ? await (await import("./local.ts")).deniedFor(known, key, spec.name).catch(() => undefined)
        : undefined;
      console.log(renderCommandHelp(await commandDef(spec), denied));
      return;
    }
    const input = parsed.args;
    if (spec.stdinArg && input[spec.stdinArg] === undefined && !isTerminal(0)) {
      const piped = await Bun.stdin.text();
      // Code is trimmed; text to type keeps its spaces, losing only the final newline.
      input[spec.stdinArg] = spec.stdinArg === "expression" ? piped.trim() : piped.replace(/\r?\n$/, "");
    }
    const args = await checkArgs(spec, input);
    const facts = spec.cli ?? {};
    const secretHeaders =
      facts.headersWith?.some((k) => args[k] !== undefined && args[k] !== false) && !isTerminal(0)
        ? await readHeaders()
        : undefined;
    const secret =
      facts.secret && args[facts.secret.flag] === true ? await readSecret(spec.name, facts.secret.field) : undefined;
    // The broker serves many shells: a relative file name only means something here.
    const local = (spec.localPaths ?? []).filter((k) => typeof args[k] === "string" && args[k] !== "");
    if (local.length > 0) {
      const { resolve } = await import("node:path");
      for (const k of local) args[k] = resolve(String(args[k]));
    }
    const clientKey =
      parsed.globals["client-key"] ?? checkEnv(env.BROWSER_PILOT_CLIENT_KEY, 3, "clientKey") ?? DEFAULT_CLIENT_KEY;
    const requestId = parsed.globals["request-id"] ?? checkEnv(env.BROWSER_PILOT_REQUEST_ID, 1, "requestId");
    // A slow remote handshake (--connect-timeout) gets the time it was given, plus its first calls.
    const stretched = facts.timeoutArg !== undefined ? args[facts.timeoutArg] : undefined;
    const connectMs = typeof stretched === "number" ? stretched + 15_000 : 0;
    const timeoutMs = parsed.globals.timeout ?? Math.max(DEFAULT_TIMEOUT_MS, connectMs);
    if (env.BROWSER_PILOT_OUTPUT_DIR && !isAbsolute(env.BROWSER_PILOT_OUTPUT_DIR)) {
      throw invalidArgument("outputDir", "BROWSER_PILOT_OUTPUT_DIR must be an absolute path.");
    }
    const tabAccess = env.BROWSER_PILOT_TAB_ACCESS ?? "all";
    if (tabAccess !== "all" && tabAccess !== "own")
      throw invalidArgument("tabAccess", "BROWSER_PILOT_TAB_ACCESS must be 'all' or 'own'.");
    const paths = known ?? resolvePaths(env);
    const name = spec.name;

    if (facts.tool)
      return await (await import("./tools.ts")).runTool(name, args, {
        paths,
        locator: locator(paths),
        mode,
        globals: parsed.globals,
        clientKey,
        requestId,
        tabAccess,
      });
    if (spec.runs === "local") {
      await printResult(name, await runLocal(name, args, paths, clientKey), mode);
      return;
    }
    const call: Omit<CallRequest, "token"> = {
      op: "call",
      protocol: PROTOCOL.version,
      clientKey,
      command: name,
      args,
      invocation: crypto.randomUUID(),
      timeoutMs,
      tabAccess,
      mode,
      version: VERSION,
      ...(facts.discovery
        ? {
            discovery: {
              ...(env.HOME !== undefined ? { home: env.HOME } : {}),
              ...(env.XDG_CONFIG_HOME !== undefined ? { xdgConfigHome: env.XDG_CONFIG_HOME } : {}),
            },
          }
        : {}),
      ...(facts.executable ? { executable: { version: VERSION, identity: executableIdentity().identity } } : {}),
      cwd: process.cwd(),
      ...(env.BROWSER_PILOT_OUTPUT_DIR ? { outputDir: env.BROWSER_PILOT_OUTPUT_DIR } : {}),
      ...(requestId !== undefined ? { requestId } : {}),
      ...(secretHeaders ? { secretHeaders } : {}),
      ...(secret !== undefined ? { secret } : {}),
    };
    if (spec.runs === "passive") {
      // Warm path: one round trip to the broker the locator names; it never starts one.
      // Only for reads: a mutating call that timed out here must not be sent a second time.
      const live = spec.mutating ? undefined : await askRunningBroker(locator(paths), call);
      if (live) {
        if (live.ok === true) await printResult(name, live, mode, args);
        else fail(live, mode);
        return;
      }
      const passive = await runPassive(name, paths, clientKey);
      if (passive) {
        await printResult(name, passive, mode);
        return;
      }
    }
    const once = (c: Omit<CallRequest, "token">) => send(paths, locator(paths), c, mode, spec.mutating === true);
    const reply =
      facts.waitArg !== undefined && args[facts.waitArg] === true
        ? await (await import("./handoff-wait.ts")).waitForHandback(call, once, parsed.globals.timeout)
        : await once(call);
    if (reply.ok === true) await printResult(name, reply, mode, args);
    else fail(reply, mode);
  } catch (err) {
    fail(toBpError(err).toJSON(), mode);
  }
}

/**
 * Sends straight to the broker the locator names (one round trip on the warm path); only
 * when no broker read the call (refused, or reset unread by one on its way out) does it
 * start or wait for a broker and send there.
 */
async function send(
  paths: BpPaths,
  read: Promise<Locator | undefined>,
  call: Omit<CallRequest, "token">,
  mode: Mode,
  mutating: boolean,
): Promise<Reply> {
  // The whole call, broker start-up included, keeps to --timeout; the request carries that
  // deadline so a broker that reads it late (frozen, swapped out) never runs it.
  const deadlineAt = Date.now() + call.timeoutMs;
  let locator = await read;
  for (let attempt = 0; attempt < 2; attempt++) {
    if (!locator || attempt > 0) {
      const { ensureBroker } = await import("./start-broker.ts");
      locator = await ensureBroker(paths, deadlineAt);
    }
    const signals = installSignalHandlers(locator.endpoint, locator.token, call.invocation, mode);
    // Past the deadline the broker has the grace to say so itself; meanwhile ask whether it
    // answers at all, so a wedged one is named without a wait of its own.
    let probe: Promise<BrokerState> | undefined;
    const probeTimer = setTimeout(
      () => {
        probe = probeBroker(paths, REPLY_GRACE_MS);
      },
      Math.max(0, deadlineAt - Date.now()),
    );
    try {
      const reply = await request(
        locator.endpoint,
        { ...call, deadlineAt, token: locator.token },
        Math.max(1, deadlineAt - Date.now()) + REPLY_GRACE_MS,
        readReply,
      );
      // After a signal the handler reports and exits; never print a second answer.
      if (signals.fired()) await new Promise<never>(() => undefined);
      // A crashed broker's locator names the socket path a new broker now listens on, with the
      // old token: the new broker refused the call before doing anything, so ask it properly.
      if (attempt === 0 && staleRefusal(reply, locator)) continue;
      return reply;
    } catch (err) {
      if (signals.fired()) await new Promise<never>(() => undefined);
      if (isTimeout(err))
        throw explainTimeout(await (probe ?? probeBroker(paths, 500)), call, mutating && wasWritten(err));
      // The request was delivered and the broker died before answering: a mutation may have happened.
      if (err instanceof BpError && err.context?.reason === "broker_closed" && mutating) {
        throw new BpError(
          "unknown_outcome",
          `The broker went away while '${call.command}' ran; it may or may not have taken effect.`,
          { retryable: true, context: { reason: "broker_lost" } },
        );
      }
      if (!isUnreachable(err) || attempt > 0) throw err;
    } finally {
      clearTimeout(probeTimer);
      signals.stop();
    }
  }
  throw new BpError("internal_error", "unreachable");
}

/**
 * Reads the locator as the call starts (or takes the read src/main.ts started, when it is of
 * the same file): Bun answers a process's first file read only after ~0.5 ms (its file thread
 * starting), which then passes while the arguments are parsed instead of after. The early
 * read serves the first reader only; any later one (a passive command's second try, each of
 * 'handoff --wait's calls) reads the file afresh.
 */
function locatorReader(
  known: BpPaths | undefined,
  early: EarlyRead | undefined,
): (paths: BpPaths) => Promise<Locator | undefined> {
  let first = known ? readLocator(known, early?.path === known.locator ? early.text : undefined) : undefined;
  return (paths) => {
    const read = first ?? readLocator(paths);
    first = undefined;
    return read;
  };
}

/** Refused because the locator read belongs to a broker that is no longer alive. */
function staleRefusal(reply: Reply, locator: { processIdentity: string }): boolean {
  return reply.ok === false && reply.code === "capability_denied" && !isSameProcessAlive(locator.processIdentity);
}

/** Passive commands ask a live broker only, briefly; no answer means the passive local path. */
async function askRunningBroker(
  read: Promise<Locator | undefined>,
  call: Omit<CallRequest, "token">,
): Promise<Reply | undefined> {
  const locator = await read;
  if (!locator) return undefined;
  try {
    const reply = await request(locator.endpoint, { ...call, token: locator.token }, PASSIVE_REPLY_MS, readReply);
    // Another protocol's broker, or a new broker behind a crashed one's locator: the passive path describes it.
    return (reply.ok === false && reply.code === "protocol_incompatible") || staleRefusal(reply, locator)
      ? undefined
      : reply;
  } catch {
    return undefined;
  }
}

/**
 * The broker did not answer within the deadline. If it no longer answers a hello either, it
 * is wedged: say so, and never replace it. Otherwise the command itself ran long.
 */
function explainTimeout(state: BrokerState, call: Omit<CallRequest, "token">, written: boolean): BpError {
  const restart =
    state.kind === "unresponsive"
      ? {
          remediation: {
            code: "restart_unresponsive_broker",
            message: `Stop process ${state.locator.pid} yourself, then run the command again. Browser Pilot never replaces a live broker.`,
            actionRequired: true,
          },
        }
      : {};
  // A mutating request the socket took may have run (a broker that reads it after its
  // deadline drops it, but one may have read it in time and stalled mid-way).
  if (written) {
    const pid = state.kind === "unresponsive" ? { brokerPid: state.locator.pid } : {};
    return new BpError(
      "unknown_outcome",
      `No reply to '${call.command}' within ${call.timeoutMs} ms; it may or may not have taken effect.`,
      {
        retryable: true,
        hint: "Observe the tab (bp snapshot) before deciding whether to act again; it is never replayed for you.",
        context: { timeoutMs: call.timeoutMs, ...pid },
        ...restart,
      },
    );
  }
  if (state.kind === "unresponsive") {
    return new BpError(
      "browser_disconnected",
      `The Browser Pilot broker (pid ${state.locator.pid}) is running but does not answer.`,
      { retryable: true, context: { brokerPid: state.locator.pid }, ...restart },
    );
  }
  return new BpError("command_expired", `No reply to '${call.command}' within ${call.timeoutMs} ms.`, {
    retryable: true,
    context: { timeoutMs: call.timeoutMs },
  });
}

/** Passwords and header values come on stdin, never argv (argv is visible to every local user). */
async function readSecret(name: string, field: string): Promise<string> {
  if (isTerminal(0))
    throw invalidArgument(field, `Pipe the ${field} on stdin, e.g. printf '%s' "$SECRET" | bp ${name} …`);
  const text = (await Bun.stdin.text()).replace(/\r?\n$/, "");
  if (text === "") throw invalidArgument(field, `Nothing was read from stdin for the ${field}.`);
  return text;
}

/** Headers for a remote endpoint come on stdin, never argv (argv is visible to every local user). */
async function readHeaders(): Promise<Record<string, string> | undefined> {
  const text = (await Bun.stdin.text()).trim();
  if (text === "") return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalidArgument("headers", "Headers on stdin must be a JSON object of strings.");
  }
  if (
    typeof parsed !== "object" ||
    parsed === null ||
    Array.isArray(parsed) ||
    !Object.values(parsed).every((x) => typeof x === "string")
  ) {
    throw invalidArgument("headers", "Headers on stdin must be a JSON object of strings.");
  }
  return parsed as Record<string, string>;
}

function fail(shape: ErrorShape, mode: Mode): void {
  printError(shape, mode);
  process.exitCode = 1;
}

function checkEnv(value: string | undefined, min: 1 | 3, field: string): string | undefined {
  if (value === undefined || value === "") return undefined;
  // Says the rule: an agent that picked its own key must learn what a key may be.
  const rule = `${min}-128 characters: letters, digits, '.', '_', ':' or '-', starting with a letter or digit`;
  if (!isKeyLike(value, min))
    throw invalidArgument(
      field,
      `Invalid ${field} in the environment (${field === "clientKey" ? "BROWSER_PILOT_CLIENT_KEY" : "BROWSER_PILOT_REQUEST_ID"}): ${rule}.`,
    );
  return value;
}

/**
 * SIGINT/SIGTERM ask the broker to cancel this invocation's command record (before dispatch
 * it never runs; after, cancellation is best effort), report it, then exit 130/143.
 */
function installSignalHandlers(
  endpoint: string,
  token: string,
  invocation: string,
  mode: Mode,
): { stop(): void; fired(): boolean } {
  let fired = false;
  const handle = (signal: "SIGINT" | "SIGTERM") => {
    if (fired) return;
    fired = true;
    const code = signal === "SIGINT" ? 130 : 143;
    const done = (reply?: { command?: { id?: string; status?: string; cancellationRequested?: boolean } }) => {
      const c = reply?.command;
      const context = c?.id
        ? { commandId: c.id, status: c.status, ...(c.cancellationRequested ? { cancellationRequested: true } : {}) }
        : undefined;
      printError(
        new BpError(
          "command_cancelled",
          `Cancelled by ${signal}; the broker was asked to stop the command (no rollback).`,
          { hint: "Inspect the current tab state before retrying.", ...(context ? { context } : {}) },
        ).toJSON(),
        mode,
      );
      process.exit(code);
    };
    setTimeout(done, 2000);
    request(endpoint, { op: "cancel", token, invocation }, 1500, (x) => readWith(cancelReplySchema(), x)).then(
      done,
      () => done(),
    );
  };
  const onInt = () => handle("SIGINT");
  const onTerm = () => handle("SIGTERM");
  process.on("SIGINT", onInt);
  process.on("SIGTERM", onTerm);
  return {
    fired: () => fired,
    stop: () => {
      if (fired) return;
      process.off("SIGINT", onInt);
      process.off("SIGTERM", onTerm);
    },
  };
}
