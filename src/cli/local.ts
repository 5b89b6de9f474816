import type { BpPaths } from "../shared/paths.ts";
import { BpError } from "../shared/errors.ts";
import { BUILD_TARGET, VERSION } from "../shared/version.ts";
import { isSameProcessAlive, isStopped } from "../shared/process-identity.ts";
import { probeBroker, unresponsiveError, type BrokerState } from "./locate.ts";

type Result = Record<string, unknown>;

/** Commands answered without a broker. */
export async function runLocal(
  name: string,
  args: Record<string, unknown>,
  paths: BpPaths,
  clientKey = "",
): Promise<Result> {
  if (name === "browsers") {
    const { discoverBrowsers, matchBrowser, publicCandidate } = await import("../discovery/index.ts");
    const all = await discoverBrowsers();
    const filter = args.browser as string | undefined;
    const list = filter ? matchBrowser(all, filter) : all;
    return { ok: true, browsers: list.map(publicCandidate) };
  }
  if (name === "schema") {
    const { findCommand } = await import("../protocol/table.ts");
    const { toJsonSchema } = await import("../protocol/json-schema.ts");
    if (args.command === "policy") {
      // The host policy file's schema (args) and what 'bp status' shows of it (result).
      const { policySchema, policySummarySchema } = await import("../protocol/policy.ts");
      return {
        ok: true,
        command: "policy",
        args: toJsonSchema(policySchema()),
        result: toJsonSchema(policySummarySchema()),
      };
    }
    const def = await findCommand(String(args.command));
    if (!def)
      throw new BpError("invalid_argument", `Unknown command '${String(args.command)}'.`, {
        context: { field: "command" },
      });
    const denied = await deniedFor(paths, clientKey, def.name);
    return {
      ok: true,
      command: def.name,
      args: toJsonSchema(def.args),
      result: toJsonSchema(def.result),
      ...(denied ? { denied } : {}),
    };
  }
  throw new BpError("internal_error", `No local handler for ${name}.`);
}

/**
 * What the host policy removes of a command for this key: the whole command, or some options.
 * A broken policy file fails closed here too (policy_invalid).
 */
export async function deniedFor(
  paths: BpPaths,
  clientKey: string,
  command: string,
): Promise<{ command?: true; options?: string[] } | undefined> {
  const { readPolicy } = await import("../protocol/policy-file.ts");
  const { commandDenied, rulesFor } = await import("../protocol/policy.ts");
  const policy = await readPolicy(paths.home);
  if (!policy) return undefined;
  const rules = rulesFor(policy, clientKey);
  if (commandDenied(rules, command)) return { command: true };
  const options = rules.deny.filter((d) => d.startsWith(`${command} --`)).map((d) => d.slice(command.length + 3));
  return options.length > 0 ? { options } : undefined;
}

/** For the top help: which commands the host policy removes for the environment's key. */
export async function deniedCommands(env: NodeJS.ProcessEnv): Promise<((name: string) => boolean) | undefined> {
  const { resolvePaths } = await import("../shared/paths.ts");
  const { readPolicy } = await import("../protocol/policy-file.ts");
  const { commandDenied, rulesFor } = await import("../protocol/policy.ts");
  const { DEFAULT_CLIENT_KEY } = await import("../protocol/table.ts");
  const policy = await readPolicy(resolvePaths(env).home);
  if (!policy) return undefined;
  const rules = rulesFor(policy, env.BROWSER_PILOT_CLIENT_KEY || DEFAULT_CLIENT_KEY);
  return (name) => commandDenied(rules, name);
}

/**
 * Passive commands talk to a broker only if one is already running; they never start one.
 * Returns undefined when a live broker should answer instead.
 */
export async function runPassive(name: string, paths: BpPaths, clientKey = ""): Promise<Result | undefined> {
  const state = await probePast(paths);
  if (state.kind === "running") return undefined;
  const pid = state.kind === "stopped" ? undefined : state.kind === "unlocated" ? state.pid : state.locator.pid;
  if (name === "disconnect") {
    if (pid === undefined) return { ok: true, message: "No broker is running." };
    // A broker is there but cannot be told: say so rather than claim there is none.
    if (state.kind !== "incompatible") throw unresponsiveError(pid, "does not answer; nothing was released");
    throw new BpError(
      "protocol_incompatible",
      `The Browser Pilot broker (pid ${pid}) speaks another protocol; nothing was released.`,
      {
        context: { brokerPid: pid },
        remediation: {
          code: "stop_incompatible_broker_or_isolate",
          message:
            "Disconnect with the executable that started it, or set BROWSER_PILOT_HOME to isolate this installation.",
          actionRequired: true,
        },
      },
    );
  }
  const { connectAction, discoverBrowsers, publicCandidate } = await import("../discovery/index.ts");
  const browsers = (await discoverBrowsers()).map(publicCandidate);
  const serviceState =
    state.kind === "stopped" ? "stopped" : state.kind === "incompatible" ? "incompatible" : "unresponsive";
  const frozen = pid !== undefined && serviceState === "unresponsive" && isStopped(pid);
  // Lean: the recovery names the one command that helps; each browser's own remediation is in its entry.
  const recovery =
    pid === undefined
      ? { required: true, code: "browser_disconnected", action: connectAction(browsers) }
      : serviceState === "incompatible"
        ? {
            required: true,
            code: "stop_incompatible_broker_or_isolate",
            action: "bp disconnect (with the bp that started it)",
          }
        : { required: true, code: "restart_unresponsive_broker", action: frozen ? `kill -CONT ${pid}` : `kill ${pid}` };
  // The policy a broker would enforce (a broken file fails closed here too).
  const { readPolicy } = await import("../protocol/policy-file.ts");
  const { summarize } = await import("../protocol/policy.ts");
  const policy = await readPolicy(paths.home);
  return {
    ok: true,
    service: {
      state: serviceState,
      version: VERSION,
      target: BUILD_TARGET,
      ...(pid !== undefined ? { pid } : {}),
      ...(frozen ? { frozen: true } : {}),
    },
    browser: { state: "disconnected" },
    browsers,
    session: { state: "unavailable" },
    ...(policy ? { policy: summarize(policy, clientKey) } : {}),
    recovery,
  };
}

/** How long a broker that no longer takes connections gets to finish exiting before it is named. */
const EXITING_WAIT_MS = 2_000;
/** A live broker rewrites a locator that is not its own within a second (src/broker/main.ts). */
const REPAIR_WAIT_MS = 1_500;

/**
 * The broker's state, once one on its way out (alive, no longer taking connections) is gone:
 * a stop or a kill ends within moments. One still alive after that is named as unresponsive
 * (its socket may have been removed under it), never reported as no broker at all. A broker
 * hidden by a broken locator gets the moment it takes to repair it.
 */
async function probePast(paths: BpPaths): Promise<Exclude<BrokerState, { kind: "exiting" }>> {
  let state = await probeBroker(paths);
  const deadline = Date.now() + EXITING_WAIT_MS;
  const repaired = Date.now() + REPAIR_WAIT_MS;
  while (state.kind === "exiting" || (state.kind === "unlocated" && Date.now() < repaired)) {
    if (state.kind === "exiting" && !isSameProcessAlive(state.locator.processIdentity)) return { kind: "stopped" };
    if (state.kind === "exiting" && Date.now() >= deadline) return { kind: "unresponsive", locator: state.locator };
    await Bun.sleep(50);
    state = await probeBroker(paths, 500);
  }
  return state;
}
