import { spawn } from "node:child_process";
import { closeSync, openSync, statSync, unlinkSync } from "node:fs";
import type { Locator } from "../protocol/wire.ts";
import { BpError } from "../shared/errors.ts";
import type { BpPaths } from "../shared/paths.ts";
import { createExclusive, ensurePrivateDir, readPrivateFile } from "../shared/private-fs.ts";
import { isSameProcessAlive, processIdentity } from "../shared/process-identity.ts";
import { selfCommand } from "../shared/self.ts";
import { PROTOCOL } from "../shared/version.ts";
import { probeBroker, type BrokerState } from "./locate.ts";

const START_DEADLINE_MS = 20_000;
/** A broker that has been alive this long and still does not answer is wedged, not starting. */
const STARTING_GRACE_MS = 10_000;
const STALE_LOCK_MS = 30_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Returns a live compatible broker, starting one when none runs. Racing CLIs serialise on an
 * O_EXCL startup lock, so N cold starts produce exactly one broker. A live broker is never
 * replaced: unresponsive or incompatible ones are reported instead; one on its way out is
 * waited for.
 */
export async function ensureBroker(paths: BpPaths, callDeadline = Number.POSITIVE_INFINITY): Promise<Locator> {
  ensurePrivateDir(paths.home);
  // The broker would refuse a squatted or foreign runtime directory and exit; say so now,
  // naming the path, instead of waiting for a broker that cannot start.
  if (paths.runtimeDir !== paths.home) ensurePrivateDir(paths.runtimeDir);
  // The caller's --timeout bounds the wait too: a missing socket or an unusable lock must
  // not hold a call past it.
  const deadline = Math.min(Date.now() + START_DEADLINE_MS, callDeadline);
  const probe = () => probeBroker(paths, Math.max(100, Math.min(1500, deadline - Date.now())));
  let spawned = false;
  let exiting: Locator | undefined;
  while (Date.now() < deadline) {
    const state = await probe();
    if (state.kind === "running") return state.locator;
    failIfNotUsable(state);
    exiting = state.kind === "exiting" ? state.locator : undefined;
    if (state.kind === "unresponsive" || state.kind === "exiting") {
      await sleep(25);
      continue;
    }
    if (spawned) {
      await sleep(15);
      continue;
    }
    const lock = tryLock(paths);
    if (lock === "held") {
      await sleep(15);
      continue;
    }
    try {
      const again = await probe();
      if (again.kind === "running") return again.locator;
      failIfNotUsable(again);
      spawnBroker(paths);
      spawned = true;
      while (Date.now() < deadline) {
        const s = await probe();
        if (s.kind === "running") return s.locator;
        failIfNotUsable(s);
        await sleep(10);
      }
    } finally {
      releaseLock(paths, lock);
    }
  }
  if (exiting) throw unresponsive(exiting);
  if (deadline === callDeadline) {
    // The caller's own deadline ran out first: its command never reached a broker.
    throw new BpError("command_expired", "No broker could take the command within --timeout; it was not sent.", { retryable: true, context: { reason: "broker_start", log: paths.brokerLog } });
  }
  throw new BpError("browser_disconnected", "The Browser Pilot broker did not start in time.", {
    retryable: true,
    context: { log: paths.brokerLog },
  });
}

function failIfNotUsable(state: BrokerState): void {
  if (state.kind === "incompatible") {
    throw new BpError("protocol_incompatible", `A Browser Pilot broker ${state.hello.version} that speaks protocol ${state.hello.protocol.min}-${state.hello.protocol.max} is running; this CLI speaks ${PROTOCOL.version}.`, {
      context: { brokerVersion: state.hello.version, brokerPid: state.locator.pid },
      remediation: { code: "stop_incompatible_broker_or_isolate", message: "Stop the old broker with the executable that started it ('bp disconnect'), or set BROWSER_PILOT_HOME to isolate this installation.", actionRequired: true },
    });
  }
  if (state.kind === "unresponsive") {
    const started = Date.parse(state.locator.startedAt);
    if (Number.isFinite(started) && Date.now() - started > STARTING_GRACE_MS) throw unresponsive(state.locator);
  }
}

function unresponsive(locator: Locator): BpError {
  return new BpError("browser_disconnected", `The Browser Pilot broker (pid ${locator.pid}) is running but does not answer.`, {
    retryable: true,
    context: { brokerPid: locator.pid },
    remediation: { code: "restart_unresponsive_broker", message: `Stop process ${locator.pid} yourself, then run the command again. Browser Pilot never replaces a live broker.`, actionRequired: true },
  });
}

type Lock = "held" | string;

function tryLock(paths: BpPaths): Lock {
  const token = crypto.randomUUID();
  const body = JSON.stringify({ schemaVersion: 1, pid: process.pid, identity: processIdentity(process.pid), token, createdAt: new Date().toISOString() });
  if (createExclusive(paths.startupLock, body)) return token;
  // Reclaim only a lock whose owner is provably gone; a live owner is starting the broker.
  const text = readPrivateFile(paths.startupLock);
  let ownerAlive = true;
  try {
    const owner = JSON.parse(text ?? "") as { identity?: string };
    ownerAlive = typeof owner.identity === "string" && isSameProcessAlive(owner.identity);
  } catch {
    try {
      ownerAlive = Date.now() - statSync(paths.startupLock).mtimeMs < STALE_LOCK_MS;
    } catch {
      ownerAlive = false;
    }
  }
  if (!ownerAlive) {
    try {
      unlinkSync(paths.startupLock);
    } catch {
      // another CLI reclaimed it first
    }
  }
  return "held";
}

function releaseLock(paths: BpPaths, token: string): void {
  const text = readPrivateFile(paths.startupLock);
  if (text?.includes(token)) {
    try {
      unlinkSync(paths.startupLock);
    } catch {
      // already gone
    }
  }
}

function spawnBroker(paths: BpPaths): void {
  const log = openSync(paths.brokerLog, "a", 0o600);
  try {
    const [cmd, ...rest] = selfCommand();
    const child = spawn(cmd ?? process.execPath, [...rest, "--browser-pilot-internal=broker"], {
      detached: true,
      stdio: ["ignore", "ignore", log],
      env: process.env,
    });
    child.unref();
  } finally {
    closeSync(log);
  }
}
