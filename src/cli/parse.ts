import * as v from "valibot";
import type { CommandSpec, Globals, OptionSpec } from "../protocol/cli-spec.ts";
import type { CommandDef } from "../protocol/define.ts";
import { ruleError } from "../protocol/rules.ts";
import { findCommand, globalArgs, matchCommandName } from "../protocol/table.ts";
import { BpError, invalidArgument } from "../shared/errors.ts";
import { camel, splitArgs, type OptionSpec as SplitSpec } from "./options.ts";
import { PLAIN_ARGS } from "./plain-args.generated.ts";
import { GLOBALS, specOf } from "./spec.ts";

export interface Parsed {
  spec: CommandSpec;
  args: Record<string, unknown>;
  globals: Globals;
  help: boolean;
}

const GLOBAL_WITH_VALUE = new Set(GLOBALS.options.filter((a) => a.kind !== "boolean").map((a) => `--${a.name}`));

/** Finds the command words, skipping global options and their values wherever they stand. */
export function commandWords(argv: readonly string[]): string[] {
  const words: string[] = [];
  for (let i = 0; i < argv.length && words.length < 2; i++) {
    const a = argv[i] ?? "";
    if (a === "--") break;
    if (a.startsWith("-")) {
      if (GLOBAL_WITH_VALUE.has(a)) i++;
      if (words.length > 0) break;
      continue;
    }
    words.push(a);
  }
  return words;
}

/**
 * Splits argv by the command's spec (src/protocol/cli-spec.ts: what describeArgs reads from
 * its schema, computed at build time), so nothing here builds a schema; checkArgs then holds
 * the arguments to the command's schema.
 */
export function parseCommandLine(argv: readonly string[]): Parsed {
  const words = commandWords(argv);
  const named = matchCommandName(words);
  const spec = named ? specOf(named.name) : undefined;
  if (!named || !spec) {
    const name = words[0] ?? "";
    throw new BpError(
      "invalid_argument",
      name ? `Unknown command '${name}'. Run 'bp --help'.` : "No command given. Run 'bp --help'.",
      {
        context: { field: "command", parserCode: "unknown_command" },
      },
    );
  }
  const consumed = named.consumed;
  const infos = [...spec.options, ...GLOBALS.options];
  const specs: SplitSpec[] = [{ name: "help", kind: "boolean", alias: "h" }];
  for (const a of infos) {
    if (a.positional) continue;
    specs.push({
      name: a.name,
      kind: a.kind === "boolean" ? "boolean" : "string",
      ...(a.alias ? { alias: a.alias } : {}),
    });
  }
  const hasOptions = argv.some((a) => a.startsWith("-"));
  if (hasOptions) rejectOddOptionNames(argv);
  const split = hasOptions ? splitArgs(argv, specs) : { values: {}, positionals: [...argv] };
  const raw: Record<string, unknown> & { _: string[] } = { ...split.values, _: split.positionals };
  const help = raw.help === true;

  rejectUnknown(raw, infos);
  const positionals = raw._.slice(consumed);
  const posNames = spec.positionals ?? [];
  const input: Record<string, unknown> = {};
  for (const [i, name] of posNames.entries()) {
    const last = i === posNames.length - 1;
    const value = last && spec.variadic ? positionals.slice(i).join(" ") || undefined : positionals[i];
    const info = spec.options.find((a) => a.name === name);
    if (value !== undefined) input[name] = info ? coerce(info, value) : value;
  }
  const extra = spec.variadic ? 0 : positionals.length - posNames.length;
  if (extra > 0 && !help) {
    // The word itself is not echoed: it may be text the agent meant to type (a secret).
    throw invalidArgument(
      "arguments",
      `${extra} more argument(s) than '${spec.name}' takes; quote text that contains spaces.`,
      { parserCode: "excess_arguments" },
    );
  }
  const globalsInput: Record<string, unknown> = {};
  for (const [options, target] of [
    [spec.options, input],
    [GLOBALS.options, globalsInput],
  ] as const) {
    for (const a of options) {
      if (a.positional) continue;
      const value = raw[a.name];
      if (value !== undefined) target[a.name] = coerce(a, value);
    }
  }
  // No global option given: the schema's defaults, known at build time, without building it.
  const globals =
    Object.keys(globalsInput).length === 0 ? { ...GLOBALS.defaults } : validate(globalArgs(), globalsInput);
  return { spec, args: input, globals, help };
}

/** The command's definition, schemas and all (help, and arguments to check). */
export async function commandDef(spec: CommandSpec): Promise<CommandDef> {
  const def = await findCommand(spec.name);
  if (!def) throw new BpError("internal_error", `No definition of '${spec.name}'.`);
  return def;
}

/**
 * The arguments as the command's schema gives them (defaults filled in), or its
 * invalid_argument. None at all: the schema's answer to that, computed at build time; a
 * plain schema's arguments that pass its checks written out (src/cli/plain-args.generated.ts):
 * what the schema would output. Either way the command's module is not even loaded; anything else goes
 * through the schema itself.
 */
export async function checkArgs(spec: CommandSpec, input: Record<string, unknown>): Promise<Record<string, unknown>> {
  if (spec.empty !== undefined && Object.keys(input).length === 0) return spec.empty;
  const plain = Object.hasOwn(PLAIN_ARGS, spec.name) ? PLAIN_ARGS[spec.name]?.(input) : undefined;
  return plain ?? validateArgs(await commandDef(spec), input);
}

export function validateArgs(def: CommandDef, input: Record<string, unknown>): Record<string, unknown> {
  return validate(def.args, input) as Record<string, unknown>;
}

function validate<S extends v.GenericSchema>(schema: S, input: unknown): v.InferOutput<S> {
  const result = v.safeParse(schema, input);
  if (result.success) return result.output;
  const issue = result.issues[0];
  // A broken cross-field rule says it all, word for word as the broker would.
  const ruled = ruleError(issue);
  if (ruled) throw ruled;
  const field = issue.path?.map((p) => String(p.key)).join(".") ?? "arguments";
  const message =
    issue.received === "undefined"
      ? `Missing required argument '${field}'.`
      : `Invalid value for '${field}': ${issue.message}`;
  throw invalidArgument(field, message, { received: issue.received });
}

function coerce(info: OptionSpec, value: unknown): unknown {
  if (info.kind === "number" && typeof value === "string" && isDecimal(value.trim())) {
    const n = Number(value);
    // 99999999999999999999 would become 100000000000000000000: say what was given instead.
    if (!value.includes(".") && !Number.isSafeInteger(n)) {
      const shown = value.trim().length > 40 ? `${value.trim().slice(0, 40)}…` : value.trim();
      throw invalidArgument(
        info.name,
        `Invalid value for '${info.name}': ${shown} is beyond the largest safe integer (${Number.MAX_SAFE_INTEGER}).`,
        { received: shown },
      );
    }
    return n;
  }
  if (info.kind === "boolean" && typeof value === "string")
    return value === "true" ? true : value === "false" ? false : value;
  return value;
}

/**
 * `-?\d+(\.\d+)?` in code: the regular expressions of the hot path are written out by hand,
 * as compiling one costs a call ~0.1 ms.
 */
export function isDecimal(s: string): boolean {
  const [int, frac, ...rest] = (s.startsWith("-") ? s.slice(1) : s).split(".");
  return rest.length === 0 && digits(int) && (frac === undefined || digits(frac));
}

function digits(s: string | undefined): boolean {
  if (!s) return false;
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) < 48 || s.charCodeAt(i) > 57) return false;
  return true;
}

/** `[A-Za-z0-9][A-Za-z0-9-]*` */
function isOptionName(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c === 45 && i > 0))) return false;
  }
  return s.length > 0;
}

function rejectUnknown(raw: Record<string, unknown>, infos: readonly OptionSpec[]): void {
  const known = new Set<string>(["_", "help", "h"]);
  for (const a of infos) {
    known.add(a.name);
    known.add(camel(a.name));
    if (a.alias) known.add(a.alias);
  }
  for (const key of Object.keys(raw)) {
    if (known.has(key)) continue;
    const flag = key.length === 1 ? `-${key}` : `--${key}`;
    throw invalidArgument(key, `Unknown option '${flag}'.`, { parserCode: "unknown_option" });
  }
}

/**
 * Option names the parser would mis-read: `--_` overwrites the positional list and
 * `--__proto__` reaches the object's prototype. No real option looks like these.
 */
function rejectOddOptionNames(argv: readonly string[]): void {
  for (const a of argv) {
    if (a === "--") return;
    if (!a.startsWith("-") || a === "-") continue;
    let name = a.slice(a.startsWith("--") ? 2 : 1).split("=")[0] ?? "";
    if (a.startsWith("--") && name.startsWith("no-")) name = name.slice(3);
    if (!isOptionName(name)) {
      const shown = name.length > 40 ? `${name.slice(0, 40)}…` : name;
      throw invalidArgument(shown, `Unknown option '${a.startsWith("--") ? "--" : "-"}${shown}'.`, {
        parserCode: "unknown_option",
      });
    }
  }
}
