import * as v from "valibot";
import type { ArgsSchema, CliFacts, CommandDef } from "./define.ts";
import { describeArgs } from "./introspect.ts";
import { ruleCheckName } from "./rule-checks.ts";
import { allPipeActions, isAction, isPiped, isSchema } from "./schema-read.ts";
import { commandNamed } from "./registry.ts";
import { COMMAND_INDEX, globalArgs } from "./table.ts";

/*
 * The command table as the CLI's parse reads it, computed from the schemas when the CLI is
 * bundled: src/cli/spec.ts imports these functions as a Bun macro (`with { type: "macro" }`),
 * so what they return is written into the executable as literals. A call then builds no
 * schema to split its argv, and none at all for a command given no arguments: building and
 * running them was most of what the CLI's own code cost a call. Only the command's own
 * arguments, when it has some, are still checked by its schema at run time (src/cli/parse.ts).
 */

/** An argument as the parse treats it; describeArgs (src/protocol/introspect.ts) reads it from the schema. */
export interface OptionSpec {
  name: string;
  kind: "boolean" | "number" | "string";
  alias?: string;
  positional?: true;
}

/**
 * An argument of a plain schema (src/cli/plain-args.ts): a string, number, boolean or
 * picklist whose only checks are these, optional with or without a plain default.
 */
export interface PlainArg {
  name: string;
  type: "string" | "number" | "boolean" | "picklist";
  optional?: true;
  default?: string | number | boolean;
  integer?: true;
  minValue?: number;
  maxValue?: number;
  minLength?: number;
  maxLength?: number;
  options?: readonly (string | number | boolean)[];
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
  /** The arguments as src/cli/plain-args.ts checks them; absent when the schema is not that plain. */
  plain?: PlainSpec;
}

/** A plain schema: its fields, then its cross-field rules by their names in RULE_CHECKS. */
export interface PlainSpec {
  args: PlainArg[];
  rules?: string[];
}

export type Globals = v.InferOutput<ReturnType<typeof globalArgs>>;

export interface GlobalSpec {
  options: OptionSpec[];
  /** globalArgs' output when no global option is given. */
  defaults: Globals;
}

function optionSpecs(def: Pick<CommandDef, "args" | "positionals" | "aliases">): OptionSpec[] {
  return describeArgs(def).map((a) => ({ name: a.name, kind: a.kind, ...(a.alias ? { alias: a.alias } : {}), ...(a.positional ? { positional: true as const } : {}) }));
}

export function commandSpec(def: CommandDef): CommandSpec {
  // A default computed when the schema runs (a clock, say) must not be computed once, here, at build time.
  const empty = computesDefault(def.args) ? undefined : v.safeParse(def.args, {});
  const plain = plainSpec(def.args);
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
    ...(plain ? { plain } : {}),
  };
}

const PLAIN_TYPES = new Set<string>(["string", "number", "boolean", "picklist"]);

/**
 * The schema's arguments as plain checks, or undefined where anything in it is more than
 * that: a field of another kind or with a check its type does not take, a rule whose check
 * is not one of RULE_CHECKS (src/protocol/rule-checks.ts), or a default computed by a function.
 * The checks are read from every pipe, nested ones included (allPipeActions).
 */
export function plainSpec(args: ArgsSchema): PlainSpec | undefined {
  if (!isSchema(args, "object") || computesDefault(args)) return undefined;
  const rules: string[] = [];
  for (const item of allPipeActions(args)) {
    const name = item.type === "raw_check" && "broken" in item ? ruleCheckName(item.broken) : undefined;
    if (name === undefined) return undefined;
    rules.push(name);
  }
  const out: PlainArg[] = [];
  for (const [name, entry] of Object.entries(args.entries)) {
    // `in` finds what Object.prototype holds too: such a name is not checked as plain.
    if (name in {}) return undefined;
    const optional = isSchema(entry, "optional");
    if (optional && isPiped(entry)) return undefined;
    const inner = optional ? entry.wrapped : entry;
    if (!PLAIN_TYPES.has(inner.type)) return undefined;
    const arg: PlainArg = { name, type: inner.type as PlainArg["type"] };
    if (isSchema(inner, "picklist")) {
      const options: readonly unknown[] = inner.options;
      if (!options.every(isPlainValue)) return undefined;
      arg.options = options;
    }
    // Every check of the field's pipes, nested ones included; a bound given twice holds at its strictest, as valibot checks both.
    for (const item of allPipeActions(inner)) {
      if (isAction(item, "description")) continue;
      else if (arg.type === "string" && isAction(item, "min_length")) arg.minLength = Math.max(arg.minLength ?? 0, item.requirement);
      else if (arg.type === "string" && isAction(item, "max_length")) arg.maxLength = Math.min(arg.maxLength ?? Infinity, item.requirement);
      else if (arg.type === "number" && isAction(item, "min_value") && typeof item.requirement === "number") arg.minValue = Math.max(arg.minValue ?? -Infinity, item.requirement);
      else if (arg.type === "number" && isAction(item, "max_value") && typeof item.requirement === "number") arg.maxValue = Math.min(arg.maxValue ?? Infinity, item.requirement);
      else if (arg.type === "number" && item.type === "integer") arg.integer = true;
      else return undefined;
    }
    if (optional) {
      arg.optional = true;
      if (entry.default !== undefined) {
        if (!isPlainValue(entry.default)) return undefined;
        arg.default = entry.default;
      }
    }
    out.push(arg);
  }
  return { args: out, ...(rules.length > 0 ? { rules } : {}) };
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

function isPlainValue(x: unknown): x is string | number | boolean {
  return typeof x === "string" || typeof x === "boolean" || (typeof x === "number" && Number.isFinite(x));
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
