import * as v from "valibot";
import { defineCommand, flag, optText } from "./define.ts";

/* Commands the CLI answers itself (src/cli/tools.ts): they run other commands, or look at the machine. */

export const MAX_BATCH_STEPS = 100;

export const batch = defineCommand({
  name: "batch",
  group: "Waiting and recovery",
  summary: `Commands from stdin in one call; one per line (shell words or a JSON array), one process and one broker connection, stopping at the first failure (max ${MAX_BATCH_STEPS})`,
  args: () =>
    v.object({
      continue: flag("Run the remaining lines after a failure"),
    }),
  result: () =>
    v.object({
      ok: v.pipe(v.boolean(), v.description("Every step that ran succeeded, and all of them ran")),
      results: v.pipe(
        v.array(v.record(v.string(), v.unknown())),
        v.description("Each step's own reply, in order; the steps after a failure are not run unless --continue"),
      ),
    }),
  example: "printf 'open example.com\\nsnapshot\\n' | bp batch",
  runs: "local",
  cli: { tool: true },
});

export const doctor = defineCommand({
  name: "doctor",
  group: "Reference",
  summary:
    "What is wrong, with a fix each; what bp sees (browsers, broker, state directory, disk, display), exit 1 when something needs a fix",
  args: () => v.object({}),
  result: () =>
    v.object({
      ok: v.pipe(v.boolean(), v.description("Nothing needs a fix")),
      checks: v.array(
        v.object({
          name: v.string(),
          status: v.picklist(["ok", "warn", "fail"]),
          detail: v.string(),
          fix: v.optional(v.pipe(v.string(), v.description("What to do about it"))),
        }),
      ),
    }),
  example: "bp doctor",
  runs: "local",
  cli: { tool: true },
});

export const skill = defineCommand({
  name: "skill",
  group: "Reference",
  summary: "The bundled agent skill; SKILL.md or one of its references, as built into this executable",
  args: () =>
    v.object({
      reference: optText("A reference instead of SKILL.md, e.g. commands or recovery"),
    }),
  result: () =>
    v.object({
      ok: v.literal(true),
      name: v.pipe(v.string(), v.description("SKILL.md or references/<name>.md")),
      version: v.string(),
      content: v.string(),
    }),
  example: "bp skill --reference commands",
  runs: "local",
  cli: { tool: true },
});

export const TOOL_COMMANDS = [batch, doctor, skill];
