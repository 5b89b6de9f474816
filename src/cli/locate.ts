import type * as NodeFs from "node:fs";
import { helloReplySchema, readLocatorValue, readWith, type HelloReply, type Locator } from "../protocol/wire.ts";
import type { BpPaths } from "../shared/paths.ts";
import { BpError } from "../shared/errors.ts";
import { isSameProcessAlive, isStopped } from "../shared/process-identity.ts";
import { PROTOCOL } from "../shared/version.ts";
import { isUnreachable, request } from "./client.ts";
import { readLocatorText } from "./locator-file.ts";

export type BrokerState =
  | { kind: "running"; locator: Locator; hello: HelloReply }
  | { kind: "stopped" }
  | { kind: "unresponsive"; locator: Locator }
  /** Alive, but no longer listening (its socket gone, refusing, or dropping connections unread): on its way out. */
  | { kind: "exiting"; locator: Locator }
  | { kind: "incompatible"; locator: Locator; hello: HelloReply }
  /**
   * No usable locator, but the owner lock names a live broker (a locator truncated, emptied,
   * replaced by a directory or a FIFO, or one still being written): `since` is when it took the lock.
   */
  | { kind: "unlocated"; pid: number; since: number };

/** The locator's contents, if it is this user's and well formed; `text` is a read of it already under way. */
export async function readLocator(paths: BpPaths, text?: Promise<string | undefined>): Promise<Locator | undefined> {
  try {
    const read = await (text ?? readLocatorText(paths.locator));
    return read === undefined ? undefined : readLocatorValue(JSON.parse(read));
  } catch {
    return undefined;
  }
}

/** Looks for a live broker without starting one. */
export async function probeBroker(paths: BpPaths, timeoutMs = 2000): Promise<BrokerState> {
  const locator = await readLocator(paths);
  if (!locator || !isSameProcessAlive(locator.processIdentity)) return liveOwner(paths) ?? { kind: "stopped" };
  let hello: HelloReply;
  try {
    hello = await request(locator.endpoint, { op: "hello" }, timeoutMs, (x) => readWith(helloReplySchema(), x));
  } catch (err) {
    // A broker listens before it writes its locator, so a live one that no longer takes
    // connections is stopping (its socket closes first) or was killed and is not yet torn down
    // by the kernel: it will be gone shortly. One that takes a connection and stays silent is
    // wedged, or still starting; callers decide whether to wait.
    return isUnreachable(err) ? { kind: "exiting", locator } : { kind: "unresponsive", locator };
  }
  if (PROTOCOL.version < hello.protocol.min || PROTOCOL.version > hello.protocol.max) {
    return { kind: "incompatible", locator, hello };
  }
  return { kind: "running", locator, hello };
}

/** The broker the owner lock names, when it is alive: the locator cannot hide it. */
export function liveOwner(paths: BpPaths): { kind: "unlocated"; pid: number; since: number } | undefined {
  try {
    // node:fs loads here only: every warm call would pay ~1.5 ms for it.
    const { lstatSync, readFileSync } = import.meta.require("node:fs") as typeof NodeFs;
    const st = lstatSync(paths.ownerLock);
    const uid = typeof process.getuid === "function" ? process.getuid() : undefined;
    if (!st.isFile() || st.size > 4096 || (uid !== undefined && st.uid !== uid)) return undefined;
    const text = readFileSync(paths.ownerLock, "utf8");
    const owner = JSON.parse(text) as { identity?: unknown; createdAt?: unknown };
    if (typeof owner.identity !== "string" || !isSameProcessAlive(owner.identity)) return undefined;
    const pid = Number(owner.identity.split(":")[0]);
    const since = typeof owner.createdAt === "string" ? Date.parse(owner.createdAt) : Number.NaN;
    return { kind: "unlocated", pid, since: Number.isFinite(since) ? since : 0 };
  } catch {
    return undefined;
  }
}

/**
 * A live broker that cannot be reached: one stopped by a signal (SIGSTOP, a debugger) is
 * resumed with SIGCONT; any other is stopped, and the next command starts a new one.
 */
export function unresponsiveError(pid: number, why = "is running but does not answer"): BpError {
  const frozen = isStopped(pid);
  return new BpError(
    "browser_disconnected",
    `The Browser Pilot broker (pid ${pid}) ${frozen ? "is stopped by a signal (frozen)" : why}.`,
    {
      retryable: true,
      hint: "Connecting or launching does not help: the broker itself must be resumed or stopped.",
      context: { brokerPid: pid, ...(frozen ? { frozen: true } : {}) },
      remediation: {
        code: "restart_unresponsive_broker",
        message: frozen
          ? `Resume it ('kill -CONT ${pid}') or stop it ('kill -9 ${pid}'), then run the command again.`
          : `Stop process ${pid} yourself ('kill ${pid}'), then run the command again. Browser Pilot never replaces a live broker.`,
        actionRequired: true,
      },
    },
  );
}
