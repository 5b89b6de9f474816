import * as v from "valibot";
import type { CliFacts, CommandDef } from "./define.ts";
import { describeArgs } from "./introspect.ts";
import { commandNamed } from "./registry.ts";
import { COMMAND_INDEX, globalArgs } from "./table.ts";

/*
 * The command table as the CLI's parse reads it, computed from the schemas when the CLI is
 * bundled: src/cli/spec.ts imports these functions as a Bun macro (`with { type: "macro" }`),
 * so what they return is written into the executable as literals. A call then builds no
 * schema to split its argv, and none at all for a command given no arguments: building and
 * running them was most of what the CLI's own code cost a call. A command's own arguments,
 * when it has some, are checked by the code build/schema-readers.ts writes out of its schema
 * (src/cli/plain-args.generated.ts), or else by the schema itself (src/cli/parse.ts).
 */

/** An argument as the parse treats it; describeArgs (src/protocol/introspect.ts) reads it from the schema. */
export interface OptionSpec {
  name: string;
  kind: "boolean" | "number" | "string";
  alias?: string;
  positional?: true;
}

/** What the CLI needs of a command before (and, without arguments, instead of) its schemas. */
export interface CommandSpec {
  name: string;
  runs: CommandDef["runs"];
  mutating?: true;
  stdinArg?: string;
  localPaths?: readonly string[];
  positionals?: readonly string[];
  variadic?: true;
  cli?: CliFacts;
  /** Every argument, in the schema's order. */
  options: OptionSpec[];
  /** The arguments' schema's output for no arguments at all; absent when it refuses them, or when a default or fallback in it is a function. */
  empty?: Record<string, unknown>;
}

export type Globals = v.InferOutput<ReturnType<typeof globalArgs>>;

export interface GlobalSpec {
  options: OptionSpec[];
  /** globalArgs' output when no global option is given. */
  defaults: Globals;
}

function optionSpecs(def: Pick<CommandDef, "args" | "positionals" | "aliases">): OptionSpec[] {
  return describeArgs(def).map((a) => ({
    name: a.name,
    kind: a.kind,
    ...(a.alias ? { alias: a.alias } : {}),
    ...(a.positional ? { positional: true as const } : {}),
  }));
}

export function commandSpec(def: CommandDef): CommandSpec {
  // A default computed when the schema runs (a clock, say) must not be computed once, here, at build time.
  const empty = computesDefault(def.args) ? undefined : v.safeParse(def.args, {});
  return {
    name: def.name,
    runs: def.runs,
    ...(def.mutating ? { mutating: true as const } : {}),
    ...(def.stdinArg ? { stdinArg: def.stdinArg } : {}),
    ...(def.localPaths ? { localPaths: def.localPaths } : {}),
    ...(def.positionals ? { positionals: def.positionals } : {}),
    ...(def.variadic ? { variadic: true as const } : {}),
    ...(def.cli ? { cli: def.cli } : {}),
    options: optionSpecs(def),
    ...(empty?.success ? { empty: empty.output as Record<string, unknown> } : {}),
  };
}

/** Whether the schema, or any schema inside it, has a default or fallback computed by a function. */
export function computesDefault(schema: object, seen = new Set<object>()): boolean {
  if (seen.has(schema)) return false;
  seen.add(schema);
  for (const [key, value] of Object.entries(schema)) {
    if ((key === "default" || key === "fallback") && typeof value === "function") return true;
    if (key === "~standard" || typeof value !== "object" || value === null) continue;
    // Inner schemas sit in `wrapped`, `item`, `pipe`, `options`, `entries`' values and the like.
    const inner = Array.isArray(value) ? value : isSchemaLike(value) ? [value] : Object.values(value);
    for (const x of inner) if (isSchemaLike(x) && computesDefault(x, seen)) return true;
  }
  return false;
}

function isSchemaLike(x: unknown): x is object {
  return typeof x === "object" && x !== null && "kind" in x && x.kind === "schema";
}

/**
 * Every command's spec as a JSON string, by name: a call parses only its own. A macro's
 * result must be plain data: a spec that JSON would change (a default that is not JSON, an
 * undefined field) fails here, at build time.
 */
export function commandSpecs(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, module] of Object.entries(COMMAND_INDEX)) {
    const def = commandNamed(name);
    if (!def) throw new Error(`The command index names '${name}' in ${module}, which does not define it.`);
    const spec = commandSpec(def);
    const json = JSON.stringify(spec);
    if (!Bun.deepEquals(JSON.parse(json), spec, true)) throw new Error(`The spec of '${name}' is not plain JSON.`);
    out[name] = json;
  }
  return out;
}

export function globalSpec(): GlobalSpec {
  return { options: optionSpecs({ args: globalArgs() }), defaults: v.parse(globalArgs(), {}) };
}
