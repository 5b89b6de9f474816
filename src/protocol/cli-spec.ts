import * as v from "valibot";
import * as actions from "./commands-actions.ts";
import * as capture from "./commands-capture.ts";
import * as connection from "./commands-connection.ts";
import * as evaluate from "./commands-eval.ts";
import * as handoff from "./commands-handoff.ts";
import * as inspect from "./commands-inspect.ts";
import * as net from "./commands-net.ts";
import * as observe from "./commands-observe.ts";
import * as reference from "./commands-reference.ts";
import * as reliability from "./commands-reliability.ts";
import * as status from "./commands-status.ts";
import * as tabs from "./commands-tabs.ts";
import type { CommandDef } from "./define.ts";
import { describeArgs } from "./introspect.ts";
import { COMMAND_INDEX, globalArgs, isCommand, type CommandModule } from "./table.ts";

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

/** What the CLI needs of a command before (and, without arguments, instead of) its schemas. */
export interface CommandSpec {
  name: string;
  runs: CommandDef["runs"];
  mutating?: true;
  stdinArg?: string;
  localPaths?: readonly string[];
  positionals?: readonly string[];
  variadic?: true;
  /** Every argument, in the schema's order. */
  options: OptionSpec[];
  /** The arguments' schema's output for no arguments at all; absent when it refuses none. */
  empty?: Record<string, unknown>;
}

export type Globals = v.InferOutput<ReturnType<typeof globalArgs>>;

export interface GlobalSpec {
  options: OptionSpec[];
  /** globalArgs' output when no global option is given. */
  defaults: Globals;
}

const MODULE_EXPORTS: Record<CommandModule, Record<string, unknown>> = {
  status, connection, tabs, eval: evaluate, observe, inspect, capture, actions, reliability, handoff, net, reference,
};

function optionSpecs(def: Pick<CommandDef, "args" | "positionals" | "aliases">): OptionSpec[] {
  return describeArgs(def).map((a) => ({ name: a.name, kind: a.kind, ...(a.alias ? { alias: a.alias } : {}), ...(a.positional ? { positional: true as const } : {}) }));
}

export function commandSpec(def: CommandDef): CommandSpec {
  const empty = v.safeParse(def.args, {});
  return {
    name: def.name,
    runs: def.runs,
    ...(def.mutating ? { mutating: true as const } : {}),
    ...(def.stdinArg ? { stdinArg: def.stdinArg } : {}),
    ...(def.localPaths ? { localPaths: def.localPaths } : {}),
    ...(def.positionals ? { positionals: def.positionals } : {}),
    ...(def.variadic ? { variadic: true as const } : {}),
    options: optionSpecs(def),
    ...(empty.success ? { empty: empty.output as Record<string, unknown> } : {}),
  };
}

/**
 * Every command's spec as a JSON string, by name: a call parses only its own. A macro's
 * result must be plain data: a spec that JSON would change (a default that is not JSON, an
 * undefined field) fails here, at build time.
 */
export function commandSpecs(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, module] of Object.entries(COMMAND_INDEX)) {
    const defs = Object.values(MODULE_EXPORTS[module]).flatMap((e) => (Array.isArray(e) ? e : [e]));
    const def = defs.find((d): d is CommandDef => isCommand(d) && d.name === name);
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
