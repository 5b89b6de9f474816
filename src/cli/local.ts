import type { BpPaths } from "../shared/paths.ts";
import { BpError } from "../shared/errors.ts";
import { BUILD_TARGET, VERSION } from "../shared/version.ts";
import { isSameProcessAlive, isStopped } from "../shared/process-identity.ts";
import { probeBroker, unresponsiveError, type BrokerState } from "./locate.ts";

type Result = Record<string, unknown>;

/** Commands answered without a broker. */
export async function runLocal(name: string, args: Record<string, unknown>, _paths: BpPaths): Promise<Result> {
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
    const def = await findCommand(String(args.command));
    if (!def) throw new BpError("invalid_argument", `Unknown command '${String(args.command)}'.`, { context: { field: "command" } });
    return { ok: true, command: def.name, args: toJsonSchema(def.args), result: toJsonSchema(def.result) };
  }
  throw new BpError("internal_error", `No local handler for ${name}.`);
}

/**
 * Passive commands talk to a broker only if one is already running; they never start one.
 * Returns undefined when a live broker should answer instead.
 */
export async function runPassive(name: string, paths: BpPaths): Promise<Result | undefined> {
  const state = await probePast(paths);
  if (state.kind === "running") return undefined;
  const pid = state.kind === "stopped" ? undefined : state.kind === "unlocated" ? state.pid : state.locator.pid;
  if (name === "disconnect") {
    if (pid === undefined) return { ok: true, message: "No broker is running." };
    // A broker is there but cannot be told: say so rather than claim there is none.
    if (state.kind !== "incompatible") throw unresponsiveError(pid, "does not answer; nothing was released");
    throw new BpError("protocol_incompatible", `The Browser Pilot broker (pid ${pid}) speaks another protocol; nothing was released.`, {
      context: { brokerPid: pid },
      remediation: { code: "stop_incompatible_broker_or_isolate", message: "Disconnect with the executable that started it, or set BROWSER_PILOT_HOME to isolate this installation.", actionRequired: true },
    });
  }
  const { connectAction, discoverBrowsers, publicCandidate } = await import("../discovery/index.ts");
  const browsers = (await discoverBrowsers()).map(publicCandidate);
  const serviceState = state.kind === "stopped" ? "stopped" : state.kind === "incompatible" ? "incompatible" : "unresponsive";
  const frozen = pid !== undefined && serviceState === "unresponsive" && isStopped(pid);
  // Lean: the recovery names the one command that helps; each browser's own remediation is in its entry.
  const recovery =
    pid === undefined
      ? { required: true, code: "browser_disconnected", action: connectAction(browsers) }
      : serviceState === "incompatible"
        ? { required: true, code: "stop_incompatible_broker_or_isolate", action: "bp disconnect (with the bp that started it)" }
        : { required: true, code: "restart_unresponsive_broker", action: frozen ? `kill -CONT ${pid}` : `kill ${pid}` };
  return {
    ok: true,
    service: { state: serviceState, version: VERSION, target: BUILD_TARGET, ...(pid !== undefined ? { pid } : {}), ...(frozen ? { frozen: true } : {}) },
    browser: { state: "disconnected" },
    browsers,
    session: { state: "unavailable" },
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
