import { chmodSync, lstatSync, rmdirSync, unlinkSync } from "node:fs";
import type { Locator } from "../protocol/wire.ts";
import { BpError } from "../shared/errors.ts";
import { resolvePaths, type BpPaths } from "../shared/paths.ts";
import { scrubSecrets } from "../shared/secrets.ts";
import {
  ensurePrivateDir,
  readPrivateFile,
  stateDirectoryError,
  writePrivateFileAtomic,
} from "../shared/private-fs.ts";
import { processIdentity } from "../shared/process-identity.ts";
import { executableIdentity, executableReplaced, startIdentity } from "../shared/self.ts";
import { LOCATOR_SCHEMA_VERSION, PROTOCOL, STATE_EXIT_CODE, VERSION } from "../shared/version.ts";
import { Broker } from "./broker.ts";
import { HANDLERS } from "./handlers/index.ts";
import { acquireOwnerLock, releaseOwnerLock } from "./owner-lock.ts";
import { startServer } from "./server.ts";
import { closeStores, wipeStore } from "./store/index.ts";

/** With no agents and no browser the broker exits after this long. */
const DEFAULT_IDLE_MS = 60_000;

/**
 * The broker's log: warnings and errors go to stderr, which the starting CLI points at the broker log; information to
 * stdout, which it discards. Not consola: its node:util and node:tty cost the idle broker megabytes.
 */
interface Log {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

function brokerLog(): Log {
  const line = (level: string, message: string) =>
    `${new Date().toISOString()} [broker ${process.pid}] ${level}: ${message}`;
  return {
    info: (m) => console.log(line("info", m)),
    warn: (m) => console.error(line("warn", m)),
    error: (m) => console.error(line("error", m)),
  };
}

export async function runBroker(): Promise<void> {
  const log = brokerLog();
  try {
    await start(log);
  } catch (err) {
    // An unwritable state directory is the environment's, not a bug: the starting CLI reads the exit code and names the
    // fix.
    const state = stateDirectoryError(resolvePaths().home, err, "write the broker's state in");
    log.error(`cannot start: ${describeError(state)}`);
    process.exit(state instanceof BpError && state.code === "state_directory_unusable" ? STATE_EXIT_CODE : 1);
  }
}

async function start(log: Log): Promise<void> {
  const paths = resolvePaths();
  startIdentity();
  ensurePrivateDir(paths.home);
  ensurePrivateDir(paths.runtimeDir);
  const identity = processIdentity(process.pid);
  if (!acquireOwnerLock(paths.ownerLock, identity)) {
    log.info("another broker owns this home; exiting");
    process.exit(0);
  }
  // The owner lock proves no live broker uses the socket, so a leftover file is stale.
  try {
    unlinkSync(paths.socket);
  } catch {
    // none
  }
  // Private storage never outlives its broker; a killed one's leftovers go now.
  wipeStore(paths.home);
  const token = crypto.randomUUID() + crypto.randomUUID();
  const broker = new Broker(paths, HANDLERS);
  // One command's stray failure must never take every agent's state with it.
  process.on("unhandledRejection", (reason) => {
    log.warn(`unhandled rejection (ignored): ${describeError(reason)}`);
  });
  process.on("uncaughtException", (err) => {
    const failed = broker.commands.failCurrent(err);
    log.warn(`uncaught exception${failed ? " failed its command" : " (ignored)"}: ${describeError(err)}`);
  });
  const server = startServer(paths.socket, token, broker);
  chmodSync(paths.socket, 0o600);
  const exe = executableIdentity();
  const locator: Locator = {
    schemaVersion: LOCATOR_SCHEMA_VERSION,
    pid: process.pid,
    processIdentity: identity,
    endpoint: paths.socket,
    startedAt: new Date().toISOString(),
    version: VERSION,
    protocol: { min: PROTOCOL.min, max: PROTOCOL.max },
    executable: { version: VERSION, path: exe.path, identity: exe.identity },
    token,
  };
  const locatorText = JSON.stringify(locator);
  try {
    writePrivateFileAtomic(paths.locator, locatorText);
  } catch (err) {
    releaseOwnerLock(paths.ownerLock, identity);
    throw err;
  }
  log.info(`listening on ${paths.socket}`);

  let stopping = false;
  const stop = async (reason: string) => {
    if (stopping) return;
    stopping = true;
    log.info(`stopping: ${reason}`);
    server.stop();
    await broker.shutdown();
    closeStores();
    // Remove our files only while they are still ours: a newer broker may have replaced them.
    const current = readPrivateFile(paths.locator);
    if (current?.includes(token)) {
      try {
        unlinkSync(paths.locator);
      } catch {
        // gone
      }
    }
    try {
      unlinkSync(paths.socket);
    } catch {
      // gone
    }
    releaseOwnerLock(paths.ownerLock, identity);
    process.exit(0);
  };
  broker.onStopRequested = (reason) => void stop(reason);
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGHUP", () => undefined);

  const idleMs =
    Number(process.env.BROWSER_PILOT_IDLE_MS) > 0 ? Number(process.env.BROWSER_PILOT_IDLE_MS) : DEFAULT_IDLE_MS;
  setInterval(
    () => {
      broker.executableReplaced = executableReplaced();
      if (!stopping) repairLocator(paths, locatorText, token, identity, log);
      broker.sweep();
      if (broker.isIdle() && Date.now() - broker.lastActivity > idleMs) void stop("idle");
    },
    Math.min(1000, idleMs),
  );
}

/**
 * Every CLI finds this broker through the locator: one truncated, emptied or replaced is written again while we hold
 * the owner lock.
 */
function repairLocator(paths: BpPaths, text: string, token: string, identity: string, log: Log): void {
  if (readPrivateFile(paths.locator)?.includes(token) || !readPrivateFile(paths.ownerLock)?.includes(identity)) return;
  try {
    if (lstatSync(paths.locator, { throwIfNoEntry: false })?.isDirectory()) rmdirSync(paths.locator);
    writePrivateFileAtomic(paths.locator, text);
    log.warn("rewrote a broken or missing locator");
  } catch (err) {
    // A directory with files in it, a full disk: CLIs name this broker from the owner lock.
    log.warn(`cannot repair the locator: ${describeError(err)}`);
  }
}

function describeError(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return scrubSecrets(text).slice(0, 500);
}
