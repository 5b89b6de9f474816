import * as v from "valibot";
import { once } from "../shared/once.ts";

// Valibot schemas are the single source for argument parsing, help text and `bp schema`.
export type AnySchema = v.GenericSchema<unknown, unknown>;
type ArgsObject = v.ObjectSchema<v.ObjectEntries, undefined>;
/** A command's arguments: an object of its options, piped through its cross-field rules when it has any. */
export type ArgsSchema = ArgsObject | v.SchemaWithPipe<readonly [ArgsObject, ...v.GenericPipeItem[]]>;

export type CommandGroup =
  | "Connection"
  | "Tabs and navigation"
  | "Observation"
  | "Actions"
  | "Network"
  | "Waiting and recovery"
  | "Files"
  | "Reference";

export interface CommandDef<A extends ArgsSchema = ArgsSchema, R extends AnySchema = AnySchema> {
  /** Words after `bp`, e.g. "tab release" is ["tab", "release"]. */
  name: string;
  group: CommandGroup;
  summary: string;
  /** On the first of a family of subcommands (state save, state load, …): the top help's one line for them all. */
  family?: string;
  /** The flag the top help shows when the command has several (open's --new). */
  topFlag?: string;
  /** Argument names filled from positional words, in order. The last may be variadic. */
  positionals?: readonly string[];
  variadic?: boolean;
  /** One-letter aliases: { n: "new" }. */
  aliases?: Readonly<Record<string, string>>;
  args: A;
  result: R;
  example: string;
  /** Where it runs: "local" needs no broker; "broker" starts one on demand; "passive" asks a live broker only. */
  runs: "local" | "broker" | "passive";
  /** Changes browser state; command records, idempotency and the CLI's retry rules read it here, and only here. */
  mutating?: boolean;
  /** Reads a value from stdin when this positional is absent and stdin is not a TTY. */
  stdinArg?: string;
  /** Arguments naming local files: the CLI makes them absolute against its own working directory. */
  localPaths?: readonly string[];
  /** false: no command record, so no idempotency and no watchdog hints (commands about the broker and the records themselves). */
  recorded?: false;
  /** Shows the agent the page: a fresh look, so the watchdog's count of actions that change nothing starts over. */
  observes?: true;
  /** Manages the handoff itself, so it passes a tab under human control. */
  duringHandoff?: true;
  /** A pointer action: it focuses what it presses, so a focus change is its noise, not its news. */
  pointer?: true;
  /** About dialogs: it says everything about them, so the watchdogs add no dialog hint and count no repeat. */
  aboutDialogs?: true;
  /** What the CLI does for the command beyond parsing its arguments (src/cli/main.ts). */
  cli?: CliFacts;
  /** Its result as a person reads it (--human; src/protocol/human*.ts); without one, or undefined, the CLI prints the fields. */
  human?(result: v.InferOutput<R>, args: Record<string, unknown>): string | undefined;
}

/** Facts the CLI reads from the command's spec (src/protocol/cli-spec.ts), never from its name. */
export interface CliFacts {
  /** The CLI runs it itself (src/cli/tools.ts): it runs other commands, or looks at the machine. */
  tool?: true;
  /** Sends the caller's HOME and XDG_CONFIG_HOME: the broker looks for browsers where the caller would. */
  discovery?: true;
  /** Sends this executable's version and identity, so a broker of another build can be told apart. */
  executable?: true;
  /** Given the boolean argument `flag`, the CLI reads `field` from stdin (never argv) and sends it as the secret. */
  secret?: { flag: string; field: string };
  /** Given any of these arguments and a piped stdin, the CLI reads headers (a JSON object) from stdin. */
  headersWith?: readonly string[];
  /** A number argument in ms that the call's deadline stretches to, plus 15 s (a slow remote handshake). */
  timeoutArg?: string;
  /** A boolean argument that makes the CLI wait for the tab's handback (src/cli/handoff-wait.ts). */
  waitArg?: string;
}

/**
 * A command's argument and result schemas may be given as functions: each is then built on
 * first use (and once). Every agent step is a new process that parses one command's
 * arguments and never reads a result schema, so building every command's schemas would be
 * start-up time spent for nothing (about 1.5 ms for the actions' module); help, `bp schema`,
 * the broker, the tests and the types read them all.
 */
export function defineCommand<A extends ArgsSchema, R extends AnySchema>(
  def: Omit<CommandDef<A, R>, "args" | "result"> & { args: A | (() => A); result: R | (() => R) },
): CommandDef<A, R> {
  const out = { ...def };
  const { args, result } = def;
  if (typeof args === "function") Object.defineProperty(out, "args", { enumerable: true, get: once(args) });
  if (typeof result === "function") Object.defineProperty(out, "result", { enumerable: true, get: once(result) });
  return out as CommandDef<A, R>;
}

export { once };

/** Common argument pieces. */
export const limitArg = (def: number, max: number, what = "elements") =>
  v.optional(
    v.pipe(
      v.number(),
      v.integer(),
      v.minValue(1),
      v.maxValue(max),
      v.description(`Max ${what} (default ${def}, max ${max})`),
    ),
    def,
  );

export const flag = (description: string) => v.optional(v.pipe(v.boolean(), v.description(description)), false);

export const text = (description: string) => v.pipe(v.string(), v.description(description));

export const optText = (description: string) => v.optional(v.pipe(v.string(), v.description(description)));

/** Structured remediation returned with discovery and errors. */
export const remediationSchema = v.object({
  code: v.string(),
  message: v.string(),
  actionRequired: v.optional(v.boolean()),
});

/**
 * A hint the broker's watchdogs add to a browser command's success (src/broker/commands/watchdogs.ts):
 * something the agent should know that happens elsewhere than the command it ran.
 */
export const watchdogHint = once(() =>
  v.union([
    v.object({
      type: v.literal("dialog_pending"),
      tab: v.pipe(v.string(), v.description("Another of this agent's tabs")),
      dialog: v.pipe(v.string(), v.description("The id to answer with 'bp dialog'")),
      dialogType: v.pipe(v.string(), v.description("alert, confirm, prompt or beforeunload")),
      message: v.pipe(
        v.string(),
        v.description("The dialog's text (first 80 characters) and the command that answers it"),
      ),
    }),
    v.object({
      type: v.literal("navigation_stalled"),
      tab: v.optional(v.string()),
      url: v.string(),
      loadingMs: v.number(),
      message: v.string(),
    }),
    v.object({
      type: v.literal("page_errors"),
      tab: v.optional(v.string()),
      count: v.pipe(
        v.number(),
        v.description("Uncaught errors, console errors and failed requests of the page since the action started"),
      ),
      message: v.pipe(v.string(), v.description("The first error (cut) and the 'bp console' call that lists them")),
    }),
    v.object({
      type: v.literal("broker_outdated"),
      message: v.pipe(
        v.string(),
        v.description("The broker runs another build than this CLI (an upgrade): how to restart it"),
      ),
    }),
    v.object({
      type: v.literal("home_differs"),
      message: v.pipe(
        v.string(),
        v.description(
          "connect and status: the broker was started with another HOME than the caller's; browsers are looked for in the caller's",
        ),
      ),
    }),
    v.object({
      type: v.literal("repeated_action"),
      tab: v.optional(v.string()),
      count: v.pipe(v.number(), v.description("Actions in a row on the tab that changed nothing observable")),
      message: v.string(),
    }),
  ]),
);
export type WatchdogHint = v.InferOutput<ReturnType<typeof watchdogHint>>;

/**
 * A browser command's success. Every such command gets a record, so the watchdogs may add
 * `hints` to it. A result with a `hints` list of its own (a snapshot's, an action's), which the
 * watchdogs' join, is built with okPlain.
 */
export const ok = <E extends v.ObjectEntries & { hints?: never }>(entries: E) =>
  v.object({
    ok: v.literal(true),
    ...entries,
    hints: v.optional(
      v.pipe(
        v.array(watchdogHint()),
        v.description(
          "Watchdog hints: a dialog waiting on another tab, a stalled load, actions that change nothing, new page errors",
        ),
      ),
    ),
  });

/**
 * A success with no watchdog hints added: the commands that have no command record (answered
 * without a broker, or about the broker and the records themselves: status, schema, browsers,
 * commands, command, cancel: CommandDef.recorded false), and results whose own
 * `hints` list takes the watchdogs' too.
 */
export const okPlain = <E extends v.ObjectEntries>(entries: E) => v.object({ ok: v.literal(true), ...entries });
