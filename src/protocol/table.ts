import * as v from "valibot";
import { once } from "../shared/once.ts";
import type { CommandDef } from "./define.ts";

/**
 * The command table, loaded lazily: building every command's valibot schemas costs a couple
 * of milliseconds, and every agent step pays start-up time, so a call builds only the module
 * of the command it runs. The index below names each command's module, in help order;
 * test/protocol-table.test.ts proves it matches the modules exactly.
 */
const MODULES = {
  status: () => import("./commands-status.ts"),
  connection: () => import("./commands-connection.ts"),
  tabs: () => import("./commands-tabs.ts"),
  eval: () => import("./commands-eval.ts"),
  observe: () => import("./commands-observe.ts"),
  inspect: () => import("./commands-inspect.ts"),
  capture: () => import("./commands-capture.ts"),
  actions: () => import("./commands-actions.ts"),
  reliability: () => import("./commands-reliability.ts"),
  handoff: () => import("./commands-handoff.ts"),
  net: () => import("./commands-net.ts"),
  reference: () => import("./commands-reference.ts"),
  devtools: () => import("./commands-devtools.ts"),
  tools: () => import("./commands-tools.ts"),
  pointer: () => import("./commands-pointer.ts"),
  record: () => import("./commands-record.ts"),
} as const;
export type CommandModule = keyof typeof MODULES;

export const COMMAND_INDEX: Readonly<Record<string, CommandModule>> = {
  status: "status",
  browsers: "connection",
  connect: "connection",
  launch: "connection",
  disconnect: "connection",
  tabs: "tabs",
  tab: "tabs",
  "tab release": "tabs",
  profiles: "tabs",
  profile: "tabs",
  open: "tabs",
  close: "tabs",
  back: "tabs",
  forward: "tabs",
  reload: "tabs",
  stop: "tabs",
  snapshot: "observe",
  frame: "observe",
  read: "inspect",
  search: "inspect",
  find: "inspect",
  locate: "inspect",
  eval: "eval",
  screenshot: "capture",
  pdf: "capture",
  downloads: "net",
  download: "net",
  click: "actions",
  type: "actions",
  keyboard: "actions",
  press: "actions",
  scroll: "actions",
  hover: "actions",
  drag: "actions",
  dropdown: "actions",
  select: "actions",
  upload: "actions",
  dialogs: "actions",
  dialog: "actions",
  cookies: "net",
  auth: "net",
  net: "net",
  "net show": "net",
  "net block": "net",
  "net mock": "net",
  "net headers": "net",
  "net rules": "net",
  "net remove": "net",
  "net clear": "net",
  wait: "reliability",
  commands: "reliability",
  command: "reliability",
  cancel: "reliability",
  handoff: "handoff",
  handback: "handoff",
  view: "handoff",
  schema: "reference",
  console: "devtools",
  storage: "devtools",
  "state save": "devtools",
  "state load": "devtools",
  "state list": "devtools",
  "state remove": "devtools",
  emulate: "devtools",
  batch: "tools",
  doctor: "tools",
  skill: "tools",
  mouse: "pointer",
  focus: "pointer",
  "net har": "record",
  "trace start": "record",
  "trace stop": "record",
};

export function isCommand(x: unknown): x is CommandDef {
  return typeof x === "object" && x !== null && "name" in x && "args" in x && "result" in x && "runs" in x;
}

/** The command definitions a module exports (single or in lists). */
export async function moduleCommands(module: CommandModule): Promise<CommandDef[]> {
  const exported = Object.values(await MODULES[module]()) as unknown[];
  const out: CommandDef[] = [];
  for (const x of exported.flatMap((e) => (Array.isArray(e) ? e : [e])))
    if (isCommand(x) && !out.includes(x)) out.push(x);
  return out;
}

export async function findCommand(name: string): Promise<CommandDef | undefined> {
  const module = Object.hasOwn(COMMAND_INDEX, name) ? COMMAND_INDEX[name] : undefined;
  if (module === undefined) return undefined;
  return (await moduleCommands(module)).find((c) => c.name === name);
}

/** Every command, in help order. */
export async function allCommands(): Promise<CommandDef[]> {
  const mods = [...new Set(Object.values(COMMAND_INDEX))];
  const loaded = new Map(await Promise.all(mods.map(async (m) => [m, await moduleCommands(m)] as const)));
  return Object.entries(COMMAND_INDEX).flatMap(([name, m]) => loaded.get(m)?.filter((c) => c.name === name) ?? []);
}

/** Longest match of argv words against command names ("tab release" before "tab"). */
export function matchCommandName(words: readonly string[]): { name: string; consumed: number } | undefined {
  for (let n = Math.min(2, words.length); n >= 1; n--) {
    const name = words.slice(0, n).join(" ");
    if (Object.hasOwn(COMMAND_INDEX, name)) return { name, consumed: n };
  }
  return undefined;
}

export const CLIENT_KEY = /^[A-Za-z0-9][A-Za-z0-9._:-]{2,127}$/;
export const REQUEST_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/**
 * CLIENT_KEY (min 3) and REQUEST_ID (min 1) as code, for the CLI's check of the environment:
 * compiling a regular expression costs a call ~0.1 ms. test/protocol-table.test.ts holds
 * them to the expressions, which the schemas keep.
 */
export function isKeyLike(value: string, min: 1 | 3): boolean {
  if (value.length < min || value.length > 128) return false;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    const alnum = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
    // . _ : - after the first character
    if (!alnum && (i === 0 || (c !== 46 && c !== 95 && c !== 58 && c !== 45))) return false;
  }
  return true;
}
export const DEFAULT_CLIENT_KEY = "browser-pilot-cli";
export const DEFAULT_TIMEOUT_MS = 60_000;

/**
 * Options every command accepts. Built on first use: the CLI's parse reads them from the
 * table src/protocol/cli-spec.ts computes at build time, and builds this only to check a
 * global option actually given.
 */
export const globalArgs = once(() =>
  v.object({
    human: v.optional(v.pipe(v.boolean(), v.description("Human-readable output (default on a TTY)")), false),
    json: v.optional(v.pipe(v.boolean(), v.description("One JSON line on stdout (default when piped)")), false),
    "client-key": v.optional(
      v.pipe(
        v.string(),
        v.regex(CLIENT_KEY, "Client keys are 3-128 of A-Z a-z 0-9 . _ : - starting with a letter or digit"),
        v.description("Agent namespace (env BROWSER_PILOT_CLIENT_KEY)"),
      ),
    ),
    "request-id": v.optional(
      v.pipe(
        v.string(),
        v.regex(REQUEST_ID, "Request ids are 1-128 of A-Z a-z 0-9 . _ : - starting with a letter or digit"),
        v.description("Stable id of this intended call (env BROWSER_PILOT_REQUEST_ID)"),
      ),
    ),
    timeout: v.optional(
      v.pipe(
        v.number(),
        v.integer(),
        v.minValue(1),
        v.maxValue(300_000),
        v.description("Deadline in ms (default 60000, max 300000)"),
      ),
    ),
  }),
);
