import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, openSync, statSync, unlinkSync } from "node:fs";
import type { Locator } from "../protocol/wire.ts";
import { BpError } from "../shared/errors.ts";
import type { BpPaths } from "../shared/paths.ts";
import { createExclusive, ensurePrivateDir, readPrivateFile, stateDirectoryError } from "../shared/private-fs.ts";
import { isSameProcessAlive, processIdentity } from "../shared/process-identity.ts";
import { selfCommand } from "../shared/self.ts";
import { PROTOCOL, STATE_EXIT_CODE } from "../shared/version.ts";
import { probeBroker, unresponsiveError, type BrokerState } from "./locate.ts";

const START_DEADLINE_MS = 20_000;
/** A broker that has been alive this long and still does not answer is wedged, not starting. */
const STARTING_GRACE_MS = 10_000;
const UNREADABLE_LOCK_MS = 2_000;
/** A live broker rewrites a locator that is not its own every second (src/broker/main.ts). */
const LOCATOR_REPAIR_MS = 2_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Returns a live compatible broker, starting one when none runs. Racing CLIs serialise on an
 * O_EXCL startup lock, so N cold starts produce exactly one broker. A live broker is never
 * replaced: unresponsive or incompatible ones are reported instead; one on its way out is
 * waited for.
 */
export async function ensureBroker(paths: BpPaths, callDeadline = Number.POSITIVE_INFINITY): Promise<Locator> {
  // A mistyped BROWSER_PILOT_HOME under a missing path would otherwise become a new home silently.
  if (ensurePrivateDir(paths.home)) process.stderr.write(`bp: created the state directory ${paths.home}\n`);
  // The broker would refuse a squatted or foreign runtime directory and exit; say so now,
  // naming the path, instead of waiting for a broker that cannot start.
  if (paths.runtimeDir !== paths.home) ensurePrivateDir(paths.runtimeDir);
  // The caller's --timeout bounds the wait too: a missing socket or an unusable lock must
  // not hold a call past it.
  const deadline = Math.min(Date.now() + START_DEADLINE_MS, callDeadline);
  const probe = () => probeBroker(paths, Math.max(100, Math.min(1500, deadline - Date.now())));
  let spawned: ChildProcess | undefined;
  let exiting: Locator | undefined;
  let unlocatedSince: number | undefined;
  while (Date.now() < deadline) {
    const state = await probe();
    if (state.kind === "running") return state.locator;
    failIfNotUsable(state);
    if (state.kind === "unlocated") {
      // A live broker behind a broken locator rewrites it within a second; one that does not
      // (frozen, wedged) is named at once, never waited for until the deadline.
      unlocatedSince ??= Date.now();
      if (Date.now() - state.since > STARTING_GRACE_MS && Date.now() - unlocatedSince > LOCATOR_REPAIR_MS)
        throw unresponsiveError(
          state.pid,
          "is running but unreachable: its locator is broken and it did not repair it",
        );
      await sleep(25);
      continue;
    }
    unlocatedSince = undefined;
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
      spawned = spawnBroker(paths);
      while (Date.now() < deadline) {
        const s = await probe();
        if (s.kind === "running") return s.locator;
        failIfNotUsable(s);
        if (s.kind === "unlocated") break;
        // It could not use the state directory (read-only, full): say so now, not after 20 s.
        if (spawned.exitCode === STATE_EXIT_CODE) throw stateUnusable(paths);
        await sleep(10);
      }
    } finally {
      releaseLock(paths, lock);
    }
  }
  if (exiting) throw unresponsiveError(exiting.pid);
  if (deadline === callDeadline) {
    // The caller's own deadline ran out first: its command never reached a broker.
    throw new BpError("command_expired", "No broker could take the command within --timeout; it was not sent.", {
      retryable: true,
      context: { reason: "broker_start", log: paths.brokerLog },
    });
  }
  throw new BpError("browser_disconnected", "The Browser Pilot broker did not start in time.", {
    retryable: true,
    context: { log: paths.brokerLog },
  });
}

function failIfNotUsable(state: BrokerState): void {
  if (state.kind === "incompatible") {
    throw new BpError(
      "protocol_incompatible",
      `A Browser Pilot broker ${state.hello.version} that speaks protocol ${state.hello.protocol.min}-${state.hello.protocol.max} is running; this CLI speaks ${PROTOCOL.version}.`,
      {
        context: { brokerVersion: state.hello.version, brokerPid: state.locator.pid },
        remediation: {
          code: "stop_incompatible_broker_or_isolate",
          message:
            "Stop the old broker with the executable that started it ('bp disconnect'), or set BROWSER_PILOT_HOME to isolate this installation.",
          actionRequired: true,
        },
      },
    );
  }
  if (state.kind === "unresponsive") {
    const started = Date.parse(state.locator.startedAt);
    if (Number.isFinite(started) && Date.now() - started > STARTING_GRACE_MS)
      throw unresponsiveError(state.locator.pid);
  }
}

type Lock = "held" | string;

function tryLock(paths: BpPaths): Lock {
  const token = crypto.randomUUID();
  const body = JSON.stringify({
    schemaVersion: 1,
    pid: process.pid,
    identity: processIdentity(process.pid),
    token,
    createdAt: new Date().toISOString(),
  });
  try {
    if (createExclusive(paths.startupLock, body)) return token;
  } catch (err) {
    throw stateDirectoryError(paths.startupLock, err, "create the start-up lock");
  }
  // Reclaim only a lock whose owner is provably gone; a live owner is starting the broker.
  const text = readPrivateFile(paths.startupLock);
  let ownerAlive = true;
  try {
    const owner = JSON.parse(text ?? "") as { identity?: string };
    ownerAlive = typeof owner.identity === "string" && isSameProcessAlive(owner.identity);
  } catch {
    // Its creator writes it the moment it exists: one still empty or unreadable after a moment
    // is what a start that failed (a full disk) left behind.
    try {
      ownerAlive = Date.now() - statSync(paths.startupLock).mtimeMs < UNREADABLE_LOCK_MS;
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

function spawnBroker(paths: BpPaths): ChildProcess {
  const self = selfCommand();
  let log: number;
  try {
    log = openSync(paths.brokerLog, "a", 0o600);
  } catch (err) {
    throw stateDirectoryError(paths.brokerLog, err, "open the broker log");
  }
  try {
    const [cmd, ...rest] = self.cmd;
    const child = spawn(cmd ?? process.execPath, [...rest, "--browser-pilot-internal=broker"], {
      argv0: self.argv0,
      detached: true,
      stdio: ["ignore", "ignore", log],
      env: process.env,
    });
    child.unref();
    return child;
  } finally {
    closeSync(log);
  }
}

/** The broker exited because it could not write its state (its own log may be unwritable too). */
function stateUnusable(paths: BpPaths): BpError {
  return new BpError(
    "state_directory_unusable",
    `The broker could not write its state in ${paths.home} (read-only, full, or not a directory of this user); see ${paths.brokerLog}.`,
    {
      context: { path: paths.home, log: paths.brokerLog },
      remediation: {
        code: "fix_state_directory",
        message: `Free space on or make ${paths.home} writable, or set BROWSER_PILOT_HOME to another directory.`,
        actionRequired: true,
      },
    },
  );
}
