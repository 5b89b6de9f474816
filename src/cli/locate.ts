import { helloReplySchema, locatorSchema, readWith, type HelloReply, type Locator } from "../protocol/wire.ts";
import type { BpPaths } from "../shared/paths.ts";
import { isSameProcessAlive } from "../shared/process-identity.ts";
import { PROTOCOL } from "../shared/version.ts";
import { isUnreachable, request } from "./client.ts";

export type BrokerState =
  | { kind: "running"; locator: Locator; hello: HelloReply }
  | { kind: "stopped" }
  | { kind: "unresponsive"; locator: Locator }
  /** Alive, but no longer listening (its socket gone, refusing, or dropping connections unread): on its way out. */
  | { kind: "exiting"; locator: Locator }
  | { kind: "incompatible"; locator: Locator; hello: HelloReply };

/** The locator is small; anything larger is not one. */
const MAX_LOCATOR_BYTES = 64 * 1024;

/**
 * Reads the locator through Bun's own file API: node:fs would cost every CLI call ~1.5 ms to
 * load. It holds the token, so only a regular file of this OS user counts (a link is judged by
 * the file it reaches: one planted by another user reaches that user's file).
 */
export async function readLocator(paths: BpPaths): Promise<Locator | undefined> {
  try {
    const file = Bun.file(paths.locator);
    // A FIFO or a device there must not block or flood the read: Bun's size is a synchronous
    // stat, Infinity for anything but a file or a directory (whose read fails). The stat with
    // the owner runs alongside the read, so the call waits for one trip to Bun's file thread,
    // not two; nothing read is used before the stat has vouched for the file.
    if (file.size > MAX_LOCATOR_BYTES) return undefined;
    const [st, text] = await Promise.all([file.stat(), file.text()]);
    const uid = typeof process.getuid === "function" ? process.getuid() : undefined;
    if (!st.isFile() || st.size > MAX_LOCATOR_BYTES || (uid !== undefined && st.uid !== uid)) return undefined;
    return readWith(locatorSchema(), JSON.parse(text));
  } catch {
    return undefined;
  }
}

/** Looks for a live broker without starting one. */
export async function probeBroker(paths: BpPaths, timeoutMs = 2000): Promise<BrokerState> {
  const locator = await readLocator(paths);
  if (!locator || !isSameProcessAlive(locator.processIdentity)) return { kind: "stopped" };
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
