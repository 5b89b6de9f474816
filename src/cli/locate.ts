import * as v from "valibot";
import { helloReplySchema, locatorSchema, type HelloReply, type Locator } from "../protocol/wire.ts";
import type { BpPaths } from "../shared/paths.ts";
import { readPrivateFile } from "../shared/private-fs.ts";
import { isSameProcessAlive } from "../shared/process-identity.ts";
import { PROTOCOL } from "../shared/version.ts";
import { request } from "./client.ts";

export type BrokerState =
  | { kind: "running"; locator: Locator; hello: HelloReply }
  | { kind: "stopped" }
  | { kind: "unresponsive"; locator: Locator }
  | { kind: "incompatible"; locator: Locator; hello: HelloReply };

export function readLocator(paths: BpPaths): Locator | undefined {
  const text = readPrivateFile(paths.locator);
  if (text === undefined) return undefined;
  try {
    const parsed = v.safeParse(locatorSchema, JSON.parse(text));
    return parsed.success ? parsed.output : undefined;
  } catch {
    return undefined;
  }
}

/** Looks for a live broker without starting one. */
export async function probeBroker(paths: BpPaths, timeoutMs = 2000): Promise<BrokerState> {
  const locator = readLocator(paths);
  if (!locator || !isSameProcessAlive(locator.processIdentity)) return { kind: "stopped" };
  let hello: HelloReply;
  try {
    hello = await request(locator.endpoint, { op: "hello" }, timeoutMs, helloReplySchema);
  } catch {
    // The process is alive: maybe it is still starting. Callers decide whether to wait.
    return { kind: "unresponsive", locator };
  }
  if (PROTOCOL.version < hello.protocol.min || PROTOCOL.version > hello.protocol.max) {
    return { kind: "incompatible", locator, hello };
  }
  return { kind: "running", locator, hello };
}
