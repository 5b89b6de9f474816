import * as v from "valibot";
import { defineCommand, flag, ok, okPlain, once, optText, remediationSchema } from "./define.ts";
import { rule } from "./rules.ts";
import { commandText } from "./human.ts";
import { commandsText, waitText } from "./human-devtools.ts";

/** What 'bp wait' can wait for; it takes exactly one. */
export const WAIT_CONDITIONS = ["url", "text", "selector", "dialog", "popup", "download", "network-idle"] as const;

export const COMMAND_STATUSES = [
  "accepted",
  "dispatched",
  "completed",
  "unknown_outcome",
  "cancelled",
  "expired",
] as const;

const COMMAND_ID = /^c[0-9a-f]{12}$/;
const commandIdArg = v.pipe(
  v.string(),
  v.regex(COMMAND_ID, "Command ids look like c1a2b3c4d5e6f (from 'bp commands')"),
  v.description("Command id from 'bp commands'"),
);

export const commandSchema = v.object({
  id: v.string(),
  method: v.string(),
  mutating: v.optional(v.pipe(v.literal(true), v.description("Changes browser state (absent: a read)"))),
  status: v.picklist(COMMAND_STATUSES),
  acceptedAt: v.string(),
  deadlineAt: v.optional(v.pipe(v.string(), v.description("Only while accepted or dispatched"))),
  dispatchedAt: v.optional(
    v.pipe(v.string(), v.description("When it reached the browser; a read's only when later than acceptedAt")),
  ),
  completedAt: v.optional(
    v.pipe(v.string(), v.description("Absent while running, or when in the same millisecond as the time before it")),
  ),
  tab: v.optional(v.string()),
  cancellationRequested: v.optional(v.literal(true)),
  requestId: v.optional(v.string()),
});

/** A stored error reply, without its `ok` (the error shape every failed call answers with). */
export const storedErrorSchema = v.object({
  error: v.string(),
  code: v.string(),
  retryable: v.boolean(),
  hint: v.optional(v.string()),
  context: v.optional(v.record(v.string(), v.unknown())),
  remediation: v.optional(remediationSchema),
});

const commandResult = once(() =>
  okPlain({
    command: commandSchema,
    result: v.optional(v.record(v.string(), v.unknown())),
    error: v.optional(storedErrorSchema),
    resultDropped: v.optional(v.pipe(v.boolean(), v.description("The reply was too large to keep"))),
  }),
);

export const commands = defineCommand({
  human: commandsText,
  name: "commands",
  group: "Waiting and recovery",
  summary: "This agent's recent commands (browser commands and their status)",
  aliases: { l: "limit" },
  args: () =>
    v.object({
      limit: v.optional(
        v.pipe(
          v.number(),
          v.integer(),
          v.minValue(1),
          v.maxValue(100),
          v.description("Max commands (default 20, max 100)"),
        ),
        20,
      ),
      status: v.optional(
        v.pipe(
          v.string(),
          v.regex(
            new RegExp(`^(${COMMAND_STATUSES.join("|")})(,(${COMMAND_STATUSES.join("|")}))*$`),
            `Comma list of: ${COMMAND_STATUSES.join(", ")}`,
          ),
          v.description("Only these statuses, comma-separated"),
        ),
      ),
    }),
  result: () =>
    okPlain({
      // With --status naming one status, every record has it: the agent's own filter is not repeated.
      commands: v.array(
        v.object({
          ...commandSchema.entries,
          status: v.optional(
            v.pipe(commandSchema.entries.status, v.description("Absent when --status named only this one")),
          ),
        }),
      ),
    }),
  example: "bp commands --status dispatched,unknown_outcome",
  runs: "broker",
  recorded: false,
});

export const command = defineCommand({
  name: "command",
  group: "Waiting and recovery",
  summary: "One command's record, result or error",
  positionals: ["id"],
  args: () => v.object({ id: commandIdArg }),
  result: commandResult,
  example: "bp command c1a2b3c4d5e6f",
  runs: "broker",
  human: commandText,
  recorded: false,
});

export const cancel = defineCommand({
  name: "cancel",
  group: "Waiting and recovery",
  summary: "Cancel a command (sure before dispatch, best effort after)",
  positionals: ["id"],
  args: () => v.object({ id: commandIdArg }),
  result: commandResult,
  example: "bp cancel c1a2b3c4d5e6f",
  runs: "broker",
  human: commandText,
  recorded: false,
});

export const wait = defineCommand({
  human: waitText,
  name: "wait",
  group: "Waiting and recovery",
  summary: "Wait for a url, text, element, dialog, popup or download (one flag; or network idle)",
  args: () =>
    v.pipe(
      v.object({
        url: optText("Selected tab's URL matches: wildcard '*' over the full URL, else substring (case-insensitive)"),
        text: optText("Text appears in the selected tab (case-insensitive)"),
        selector: optText("A CSS selector matches an element you can see in the selected tab"),
        attached: flag("With --selector: any match counts, visible or not"),
        dialog: flag("A JavaScript dialog is pending on one of this agent's tabs"),
        popup: flag("This agent has a popup tab open"),
        download: flag("A download from this agent's tabs finished (each download ends one wait)"),
        "network-idle": flag("No request in flight in the selected tab for 500 ms (also those begun before the wait)"),
        interval: v.optional(
          v.pipe(v.number(), v.integer(), v.minValue(100), v.maxValue(5000), v.description("Poll interval in ms")),
          250,
        ),
      }),
      rule(
        "condition",
        `Give exactly one condition: ${WAIT_CONDITIONS.map((c) => `--${c}`).join(", ")}.`,
        // The list written out: the CLI copies the rule into code of its own (build/reader-emit.ts).
        (a) =>
          (["url", "text", "selector", "dialog", "popup", "download", "network-idle"] as const).filter(
            (k) => a[k] !== undefined && a[k] !== false,
          ).length !== 1,
      ),
    ),
  result: () =>
    ok({
      elapsedMs: v.number(),
      matched: v.optional(
        v.pipe(
          v.record(v.string(), v.unknown()),
          v.description(
            "What matched, beyond the condition itself: url, context, tagName, frame (absent: top document), visible:false (--attached), tab, dialog, download; absent for network-idle",
          ),
        ),
      ),
    }),
  example: "bp wait --text 'Order placed' --timeout 15000",
  runs: "broker",
});

export const RELIABILITY_COMMANDS = [commands, command, cancel, wait];
