import * as v from "valibot";
import { fileResult, forceArg } from "./commands-capture.ts";
import { defineCommand, ok, optText, text } from "./define.ts";
import { netHarText, traceStartText } from "./human.ts";
import { traceStopText } from "./human-devtools.ts";

/* Files recorded from the browser: the request journal as HAR, a performance trace. */

export const netHar = defineCommand({
  name: "net har",
  group: "Network",
  summary: "The journal as HAR 1.2; this agent's requests, secrets masked as in 'net show', bodies within limits",
  positionals: ["file"],
  args: () =>
    v.object({
      file: text(
        "Output .har file; relative names resolve in BROWSER_PILOT_OUTPUT_DIR if set, else the working directory",
      ),
      force: forceArg,
    }),
  result: () => ok({ file: fileResult.file, sizeBytes: fileResult.sizeBytes, entries: v.number() }),
  example: "bp net har session.har",
  runs: "broker",
  human: netHarText,
});

export const traceStart = defineCommand({
  name: "trace start",
  group: "Files",
  summary: "Start a performance trace; one per agent, 'trace stop' writes it",
  args: () =>
    v.object({
      categories: optText("Comma list of trace categories (default: the DevTools performance set)"),
    }),
  result: () =>
    ok({ tab: v.string(), categories: v.pipe(v.number(), v.description("How many categories are recorded")) }),
  example: "bp trace start",
  runs: "broker",
  human: traceStartText,
  mutating: true,
});

export const traceStop = defineCommand({
  name: "trace stop",
  group: "Files",
  summary: "Write the trace as JSON; stops this agent's trace, Chrome trace JSON for Perfetto and chrome://tracing",
  positionals: ["file"],
  args: () =>
    v.object({
      file: optText("Output .json file (default trace-<UTC time>.json)"),
      force: forceArg,
    }),
  result: () =>
    ok({
      file: fileResult.file,
      sizeBytes: fileResult.sizeBytes,
      events: v.number(),
      tab: v.pipe(v.optional(v.string()), v.description("The traced tab (human output only)")),
    }),
  example: "bp trace stop trace.json",
  human: traceStopText,
  runs: "broker",
  // It ends the browser's recording: a retry must replay, not find no trace.
  mutating: true,
});

export const RECORD_COMMANDS = [netHar, traceStart, traceStop];
