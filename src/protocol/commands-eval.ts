import * as v from "valibot";
import { defineCommand, ok } from "./define.ts";
import { evalText } from "./human.ts";

/*
 * eval and status have modules of their own: they are the calls agents make most between
 * steps, and a call builds only the schemas of its command's module (src/protocol/table.ts).
 */

export const evaluate = defineCommand({
  name: "eval",
  group: "Observation",
  summary: "Run JavaScript in the page (escape hatch; expression or stdin)",
  positionals: ["expression"],
  stdinArg: "expression",
  args: () =>
    v.object({
      expression: v.pipe(
        v.string(),
        v.minLength(1, "Expression is empty"),
        v.description("JavaScript expression; awaited if it returns a promise"),
      ),
    }),
  result: () =>
    ok({
      value: v.optional(v.unknown()),
      type: v.optional(v.string()),
      truncated: v.optional(v.boolean()),
      dialog: v.optional(
        v.pipe(
          v.object({ id: v.string(), type: v.string(), message: v.string() }),
          v.description("The expression opened this dialog and waits for it; no value yet"),
        ),
      ),
      hint: v.optional(v.string()),
    }),
  example: "bp eval 'document.title'",
  runs: "broker",
  human: evalText,
  mutating: true,
});
