import * as v from "valibot";
import { defineCommand, okPlain, text } from "./define.ts";
import { schemaText } from "./human.ts";

export const schema = defineCommand({
  name: "schema",
  group: "Reference",
  summary: "JSON Schema of a command (arguments and result)",
  positionals: ["command"],
  variadic: true,
  args: () =>
    v.object({ command: text("Command name, e.g. 'open' or 'tab release'; 'policy': the host policy file's schema") }),
  result: () =>
    okPlain({
      command: v.string(),
      args: v.record(v.string(), v.unknown()),
      result: v.record(v.string(), v.unknown()),
      denied: v.optional(
        v.pipe(
          v.object({ command: v.optional(v.literal(true)), options: v.optional(v.array(v.string())) }),
          v.description("What the host policy removes for this client key"),
        ),
      ),
    }),
  example: "bp schema open",
  runs: "local",
  human: schemaText,
  recorded: false,
});
