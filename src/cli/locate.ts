import { helloReplySchema, readLocatorValue, readWith, type HelloReply, type Locator } from "../protocol/wire.ts";
import type { BpPaths } from "../shared/paths.ts";
import { isSameProcessAlive } from "../shared/process-identity.ts";
import { PROTOCOL } from "../shared/version.ts";
import { isUnreachable, request } from "./client.ts";
import { readLocatorText } from "./locator-file.ts";

export type BrokerState =
  | { kind: "running"; locator: Locator; hello: HelloReply }
  | { kind: "stopped" }
  | { kind: "unresponsive"; locator: Locator }
  /** Alive, but no longer listening (its socket gone, refusing, or dropping connections unread): on its way out. */
  | { kind: "exiting"; locator: Locator }
  | { kind: "incompatible"; locator: Locator; hello: HelloReply };

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
