import * as v from "valibot";
import type { AnySchema, ArgsSchema, CommandDef } from "../../protocol/define.ts";
import { ruleError } from "../../protocol/rules.ts";
import { BpError, invalidArgument } from "../../shared/errors.ts";
import type { BoundCall, CallContext, Handler, HandlerTable } from "./types.ts";

export type ArgsOf<C extends CommandDef> = v.InferOutput<C["args"]>;

type WithoutOk<T> = T extends unknown ? Omit<T, "ok"> : never;

export type ReplyOf<R extends AnySchema> = WithoutOk<v.InferInput<R>>;

export interface HandlerImpl<A, R> {
  dispatch?: "start" | "lock";
  run(ctx: CallContext, args: A): Promise<R>;
}

/**
 * Registers a handler against its command: args checked by its schema before run(), result typed with no extra field.
 * Curried so literals are not widened.
 *   const tab = defineHandler(commands.tab)({ async run(ctx, { id }) { … } });
 */
export function defineHandler<A extends ArgsSchema, R extends AnySchema>(
  command: CommandDef<A, R>,
): <T extends ReplyOf<R>>(impl: HandlerImpl<v.InferOutput<A>, T> & NoExtraFields<T, ReplyOf<R>>) => Handler {
  return (impl) => bindWith(command, impl);
}

type KeysOf<T> = T extends unknown ? keyof T : never;
/** Names the fields a reply has beyond its schema's, so the type check points at them. */
export type NoExtraFields<T, R> = [Exclude<KeysOf<T>, KeysOf<R>>] extends [never]
  ? unknown
  : { fieldsNotInTheResultSchema: Exclude<KeysOf<T>, KeysOf<R>> };

/** A value of type R with no top-level field R does not name (TypeScript skips spread fields). */
export function exactly<R>(): <T extends R>(value: T & NoExtraFields<T, R>) => R {
  return (value) => value;
}

/** defineHandler for replies a shared pipeline types (defineAction); result-schemas.test.ts checks them. */
export function defineShapedHandler<A extends ArgsSchema>(
  command: CommandDef<A>,
  impl: HandlerImpl<v.InferOutput<A>, object>,
): Handler {
  return bindWith(command, impl);
}

function bindWith<A extends ArgsSchema, R extends object>(
  command: CommandDef<A>,
  impl: HandlerImpl<v.InferOutput<A>, R>,
): Handler {
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

export function handlerTable(handlers: readonly Handler[]): HandlerTable {
  const table: Record<string, Handler> = {};
  for (const h of handlers) {
    if (Object.hasOwn(table, h.command.name))
      throw new BpError("internal_error", `Two handlers for '${h.command.name}'.`);
    table[h.command.name] = h;
  }
  return table;
}
