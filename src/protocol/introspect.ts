import * as v from "valibot";
import type { CommandDef } from "./define.ts";
import { isSchema } from "./schema-read.ts";

export interface ArgInfo {
  name: string;
  kind: "boolean" | "number" | "string";
  required: boolean;
  positional: boolean;
  description: string;
  default?: unknown;
  choices?: readonly unknown[];
  alias?: string;
}

/** Reads what parsing and help need from a valibot object schema's entries, through valibot's API. */
export function describeArgs(def: Pick<CommandDef, "args" | "positionals" | "aliases">): ArgInfo[] {
  const positionals = def.positionals ?? [];
  const aliasOf = new Map(Object.entries(def.aliases ?? {}).map(([short, long]) => [long, short]));
  return Object.entries(def.args.entries).map(([name, entry]) => {
    const optional = isSchema(entry, "optional");
    const inner = isSchema(entry, "optional") ? entry.wrapped : entry;
    const kind = inner.type === "boolean" ? "boolean" : inner.type === "number" ? "number" : "string";
    const info: ArgInfo = {
      name,
      kind,
      required: !optional,
      positional: positionals.includes(name),
      description: v.getDescription(inner) ?? "",
    };
    const dflt = optional ? v.getDefault(entry) : undefined;
    if (dflt !== undefined) info.default = dflt;
    if (isSchema(inner, "picklist")) info.choices = inner.options;
    const alias = aliasOf.get(name);
    if (alias !== undefined) info.alias = alias;
    return info;
  });
}
