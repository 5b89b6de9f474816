import * as v from "valibot";
import type { AnySchema, ArgsSchema, CommandDef } from "../../protocol/define.ts";
import { ruleError } from "../../protocol/rules.ts";
import { BpError, invalidArgument } from "../../shared/errors.ts";
import type { BoundCall, CallContext, Handler, HandlerTable } from "./types.ts";

/** A command's arguments as its handler sees them: the output of its args schema (defaults filled in). */
export type ArgsOf<C extends CommandDef> = v.InferOutput<C["args"]>;

type WithoutOk<T> = T extends unknown ? Omit<T, "ok"> & HumanText : never;
/** In human mode (req.mode) a handler may add the text the CLI prints instead of the fields. */
interface HumanText {
  text?: string;
}
/** Adds the text a human-mode reply prints (computed only in that mode) to a reply. */
export function withText<T extends object>(ctx: CallContext, out: T, text: () => string): T | (T & { text: string }) {
  return ctx.req.mode === "human" ? { ...out, text: text() } : out;
}

/** What a handler returns: its command's result schema without the `ok` the runtime adds. */
export type ReplyOf<R extends AnySchema> = WithoutOk<v.InferInput<R>>;

export interface HandlerImpl<A, R> {
  /** When a mutating command counts as dispatched (Invocation.dispatch). */
  dispatch?: "start" | "lock";
  run(ctx: CallContext, args: A): Promise<R>;
}

/**
 * Registers a handler against its command: `args` is typed by the args schema and checked before run(), and run()
 * returns the result type with no top-level field the schema does not name. Curried so the implementation is checked
 * against types already fixed (passed alongside, its literals would widen to string).
 *   const tab = defineHandler(commands.tab)({ async run(ctx, { id }) { … } });
 */
export function defineHandler<A extends ArgsSchema, R extends AnySchema>(
  command: CommandDef<A, R>,
): <T extends ReplyOf<R>>(impl: HandlerImpl<v.InferOutput<A>, T> & NoExtraFields<T, ReplyOf<R>>) => Handler {
  return (impl) => bindWith(command, impl);
}

type KeysOf<T> = T extends unknown ? keyof T : never;
/** Names the fields a reply has beyond its schema's, so the type check points at them. */
export type NoExtraFields<T, R> = [Exclude<KeysOf<T>, KeysOf<R>>] extends [never] ? unknown : { fieldsNotInTheResultSchema: Exclude<KeysOf<T>, KeysOf<R>> };

/**
 * A value of type R with no top-level field R does not name (TypeScript does not check fields a spread brings in).
 *   return exactly<ClickEvidence>()({ status, ...(hit ? { target: hit } : {}) });
 */
export function exactly<R>(): <T extends R>(value: T & NoExtraFields<T, R>) => R {
  return (value) => value;
}

/**
 * Like defineHandler for a handler whose reply a shared pipeline types (defineAction in act/pipeline.ts);
 * test/e2e/result-schemas.test.ts checks those replies against the schema.
 */
export function defineShapedHandler<A extends ArgsSchema>(command: CommandDef<A>, impl: HandlerImpl<v.InferOutput<A>, object>): Handler {
  return bindWith(command, impl);
}

function bindWith<A extends ArgsSchema, R extends object>(command: CommandDef<A>, impl: HandlerImpl<v.InferOutput<A>, R>): Handler {
  return {
    command,
    bind(raw): BoundCall {
      const parsed = v.safeParse(command.args, raw);
      if (!parsed.success) throw argsError(parsed.issues[0]);
      const args = parsed.output;
      return {
        // Keys the schema does not name pass through untouched (the record's fingerprint keeps them).
        args: { ...raw, ...args },
        mutating: command.mutating === true,
        ...(impl.dispatch ? { dispatch: impl.dispatch } : {}),
        run: (ctx) => impl.run(ctx, args),
      };
    },
  };
}

/** The same invalid_argument as the CLI's parse gives for a broken rule; a field error names the field. */
function argsError(issue: v.BaseIssue<unknown>): BpError {
  const ruled = ruleError(issue);
  if (ruled) return ruled;
  const field = issue.path?.map((p) => String(p.key)).join(".") || "args";
  return invalidArgument(field, `Invalid ${field}: ${issue.message}.`);
}

/** The table the broker dispatches on, keyed by each handler's command name; a name registered twice is a bug. */
export function handlerTable(handlers: readonly Handler[]): HandlerTable {
  const table: Record<string, Handler> = {};
  for (const h of handlers) {
    if (Object.hasOwn(table, h.command.name)) throw new BpError("internal_error", `Two handlers for '${h.command.name}'.`);
    table[h.command.name] = h;
  }
  return table;
}
