import type { CommandDef } from "./define.ts";

interface Node {
  type: string;
  wrapped?: Node;
  pipe?: readonly Node[];
  default?: unknown;
  description?: string;
  options?: readonly unknown[];
  entries?: Record<string, Node>;
}

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

/** Reads what parsing and help need from a valibot object schema's entries. */
export function describeArgs(def: Pick<CommandDef, "args" | "positionals" | "aliases">): ArgInfo[] {
  const entries = (def.args as unknown as Node).entries ?? {};
  const positionals = def.positionals ?? [];
  const aliasOf = new Map(Object.entries(def.aliases ?? {}).map(([short, long]) => [long, short]));
  return Object.entries(entries).map(([name, node]) => {
    let inner = node;
    let required = true;
    let dflt: unknown;
    if (inner.type === "optional") {
      required = false;
      dflt = inner.default;
      inner = inner.wrapped ?? inner;
    }
    const description = inner.pipe?.find((p) => p.type === "description")?.description ?? "";
    const kind = inner.type === "boolean" ? "boolean" : inner.type === "number" ? "number" : "string";
    const info: ArgInfo = { name, kind, required, positional: positionals.includes(name), description };
    if (dflt !== undefined && typeof dflt !== "function") info.default = dflt;
    if (inner.type === "picklist" && inner.options) info.choices = inner.options;
    const alias = aliasOf.get(name);
    if (alias !== undefined) info.alias = alias;
    return info;
  });
}
