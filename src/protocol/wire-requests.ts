import * as v from "valibot";
import { CLIENT_KEY, REQUEST_ID } from "./table.ts";
import { namedRecord, shortString } from "./wire.ts";

/* The broker's side of src/protocol/wire.ts: the schemas of what a CLI sends. */

/** Only the fields needed to route a request and check its token; the full shape comes after. */
export const requestEnvelopeSchema = v.object({
  op: v.picklist(["hello", "cancel", "call"]),
  token: v.optional(v.string()),
  keep: v.optional(v.boolean()),
});

export const callProtocolSchema = v.object({ protocol: v.pipe(v.number(), v.integer()) });

export const cancelRequestSchema = v.object({
  op: v.literal("cancel"),
  token: v.string(),
  invocation: shortString(64),
});

export const callRequestSchema = v.object({
  op: v.literal("call"),
  token: v.string(),
  protocol: v.pipe(v.number(), v.integer()),
  clientKey: v.pipe(v.string(), v.regex(CLIENT_KEY)),
  command: shortString(64),
  args: namedRecord(),
  requestId: v.optional(v.pipe(v.string(), v.regex(REQUEST_ID))),
  invocation: shortString(64),
  timeoutMs: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(300_000)),
  deadlineAt: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
  tabAccess: v.picklist(["all", "own"]),
  mode: v.picklist(["json", "human"]),
  secretHeaders: v.optional(v.record(v.string(), v.string())),
  secret: v.optional(shortString(1_000_000)),
  executable: v.optional(v.object({ version: v.string(), identity: v.string() })),
  version: v.optional(shortString(64)),
  discovery: v.optional(
    v.object({ home: v.optional(shortString(4096)), xdgConfigHome: v.optional(shortString(4096)) }),
  ),
  cwd: v.optional(shortString(4096)),
  outputDir: v.optional(shortString(4096)),
});
