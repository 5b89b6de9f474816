import * as v from "valibot";
import { CAPTURE_COMMANDS } from "./commands-capture.ts";
import { browsers, connect, disconnect, launch, status } from "./commands-connection.ts";
import { click, dialog, dialogs, INPUT_COMMANDS } from "./commands-actions.ts";
import { find, locate, read, search } from "./commands-inspect.ts";
import { frame, snapshot } from "./commands-observe.ts";
import { schema } from "./commands-reference.ts";
import { RELIABILITY_COMMANDS } from "./commands-reliability.ts";
import { back, close, evaluate, forward, open, reload, tab, tabRelease, tabs } from "./commands-tabs.ts";
import type { CommandDef } from "./define.ts";

export const COMMANDS: readonly CommandDef[] = [
  status, browsers, connect, launch, disconnect,
  tabs, tab, tabRelease, open, close, back, forward, reload,
  snapshot, frame, read, search, find, locate, evaluate,
  ...CAPTURE_COMMANDS,
  click, dialogs, dialog,
  ...INPUT_COMMANDS,
  ...RELIABILITY_COMMANDS,
  schema,
];

const BY_NAME = new Map(COMMANDS.map((c) => [c.name, c]));

export function findCommand(name: string): CommandDef | undefined {
  return BY_NAME.get(name);
}

/** Longest match of argv words against command names ("tab release" before "tab"). */
export function matchCommand(words: readonly string[]): { def: CommandDef; consumed: number } | undefined {
  for (let n = Math.min(2, words.length); n >= 1; n--) {
    const def = BY_NAME.get(words.slice(0, n).join(" "));
    if (def) return { def, consumed: n };
  }
  return undefined;
}

export const CLIENT_KEY = /^[A-Za-z0-9][A-Za-z0-9._:-]{2,127}$/;
export const REQUEST_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
export const DEFAULT_CLIENT_KEY = "browser-pilot-cli";
export const DEFAULT_TIMEOUT_MS = 60_000;

/** Options every command accepts. */
export const globalArgs = v.object({
  human: v.optional(v.pipe(v.boolean(), v.description("Human-readable output (default on a TTY)")), false),
  json: v.optional(v.pipe(v.boolean(), v.description("One JSON line on stdout (default when piped)")), false),
  "client-key": v.optional(v.pipe(v.string(), v.regex(CLIENT_KEY, "Client keys are 3-128 of A-Z a-z 0-9 . _ : - starting with a letter or digit"), v.description("Agent namespace (env BROWSER_PILOT_CLIENT_KEY)"))),
  "request-id": v.optional(v.pipe(v.string(), v.regex(REQUEST_ID, "Request ids are 1-128 of A-Z a-z 0-9 . _ : - starting with a letter or digit"), v.description("Stable id of this intended call (env BROWSER_PILOT_REQUEST_ID)"))),
  timeout: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(300_000), v.description("Deadline in ms (default 60000, max 300000)"))),
});
