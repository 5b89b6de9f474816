/**
 * Handlers are registered against their command definitions: the table covers exactly the
 * commands the broker runs, `mutating` comes from the definition alone, and a broken
 * cross-field rule (now in the command's schema) gives the same error from the CLI's parse
 * as from the broker's own check of a call that came straight to the socket.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { defineHandler } from "../src/broker/context/handler.ts";
import { HANDLERS } from "../src/broker/handlers/index.ts";
import { defineCommand, flag, ok } from "../src/protocol/define.ts";
import { checkArgs, parseCommandLine } from "../src/cli/parse.ts";
import { allCommands, findCommand } from "../src/protocol/table.ts";
import { BpError } from "../src/shared/errors.ts";

/** The name a command's handler constant has: "net mock" → netMockHandler. */
function handlerName(command: string): string {
  return `${command.replace(/ (\w)/g, (_, c: string) => c.toUpperCase())}Handler`;
}

function failure(fn: () => unknown): { code: string; message: string; context: unknown } {
  try {
    fn();
  } catch (err) {
    if (!(err instanceof BpError)) throw err;
    return { code: err.code, message: err.message, context: err.context };
  }
  throw new Error("expected a failure");
}

async function failureOf(promise: Promise<unknown>): Promise<{ code: string; message: string; context: unknown }> {
  try {
    await promise;
  } catch (err) {
    if (!(err instanceof BpError)) throw err;
    return { code: err.code, message: err.message, context: err.context };
  }
  throw new Error("expected a failure");
}

describe("handler table", () => {
  test("one handler per command the broker runs, registered against that very definition", async () => {
    const defs = await allCommands();
    const served = defs.filter((d) => d.runs !== "local").map((d) => d.name);
    expect(Object.keys(HANDLERS).sort()).toEqual(served.sort());
    for (const name of served) expect(HANDLERS[name]?.command).toBe(await findCommand(name));
  });

  test("every registered handler is named after its command: `net mock` is netMockHandler", async () => {
    const names = new Set((await allCommands()).filter((d) => d.runs !== "local").map((d) => handlerName(d.name)));
    const registered: string[] = [];
    const dir = join(import.meta.dir, "../src/broker/handlers");
    for (const file of readdirSync(dir).filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"))) {
      const text = readFileSync(join(dir, file), "utf8");
      for (const m of text.matchAll(/^export const \w+_HANDLERS: Handler\[\] = \[([^\]]*)\]/gm)) {
        for (const item of (m[1] ?? "").split(",").map((x) => x.trim()))
          if (item && !item.startsWith("...")) registered.push(item);
      }
    }
    expect(registered.filter((n) => !names.has(n))).toEqual([]);
    expect(registered.length).toBe(names.size);
  });

  test("mutating is the definition's", async () => {
    for (const def of await allCommands()) {
      const h = HANDLERS[def.name];
      if (!h) continue;
      expect({ name: def.name, mutating: h.bind({ ...minimalArgs[def.name] }).mutating }).toEqual({
        name: def.name,
        mutating: def.mutating === true,
      });
    }
    // And the definitions say what the commands do: page actions and history change the page,
    // observations do not (an independent list, so a definition that lost its flag fails here).
    const mutating = (name: string) => HANDLERS[name]?.bind({ ...minimalArgs[name] }).mutating === true;
    for (const name of [
      "click",
      "type",
      "keyboard",
      "press",
      "scroll",
      "hover",
      "back",
      "forward",
      "reload",
      "open",
      "close",
    ])
      expect({ name, mutating: mutating(name) }).toEqual({ name, mutating: true });
    for (const name of ["snapshot", "read", "find", "search", "tabs", "status", "dropdown"])
      expect({ name, mutating: mutating(name) }).toEqual({ name, mutating: false });
  });

  test("arguments are checked and defaults filled in before a handler runs", () => {
    const bound = HANDLERS.snapshot?.bind({});
    expect(bound?.args).toMatchObject({ limit: 50, diff: false });
    expect(failure(() => HANDLERS.snapshot?.bind({ limit: 0 }))).toMatchObject({
      code: "invalid_argument",
      context: { field: "limit" },
    });
  });
});

/** Arguments that satisfy each command's schema, for binding without running. */
const minimalArgs: Record<string, Record<string, unknown>> = {
  tab: { id: "t1" },
  profile: { id: "p" },
  open: { url: "example.com" },
  eval: { expression: "1" },
  read: {},
  search: { query: "x" },
  find: { selector: "a" },
  locate: { selector: "a" },
  click: { ref: 1 },
  type: { ref: 1, text: "x" },
  keyboard: { text: "x" },
  press: { key: "a" },
  scroll: { direction: "down" },
  hover: { ref: 1 },
  drag: { from: 1, to: 2 },
  dropdown: { ref: 1 },
  select: { ref: 1, option: "a" },
  upload: { ref: 1, file: "/x" },
  dialog: { id: "d1", accept: true },
  download: { id: "dl1" },
  "net show": { id: 1 },
  "net block": { pattern: "*" },
  "net mock": { pattern: "*" },
  "net headers": { pattern: "*", headers: "A: b" },
  "net remove": { all: true },
  command: { id: "c0123456789ab" },
  cancel: { id: "c0123456789ab" },
  wait: { dialog: true },
  "state save": { name: "s" },
  "state load": { name: "s" },
  "state remove": { name: "s" },
  mouse: { action: "move", at: "1,2" },
  focus: { ref: 1 },
  "net har": { file: "x.har" },
};

const RULES: [argv: string[], field: string, message: string][] = [
  [["click"], "ref", "Give exactly one of a ref, --xy or --text."],
  [["click", "3", "--xy", "1,2"], "ref", "Give exactly one of a ref, --xy or --text."],
  [["click", "3", "--double", "--right"], "button", "--double and --right cannot be combined."],
  [["dialog", "d1"], "accept", "Give exactly one of --accept or --dismiss."],
  [["dialog", "d1", "--accept", "--dismiss"], "accept", "Give exactly one of --accept or --dismiss."],
  [
    ["scroll"],
    "direction",
    "Give exactly one of a direction (up, down, left, right), --to start|end, or --to-text <text>.",
  ],
  [
    ["scroll", "down", "--to", "end"],
    "direction",
    "Give exactly one of a direction (up, down, left, right), --to start|end, or --to-text <text>.",
  ],
  [["scroll", "down", "--ref", "2", "--selector", "main"], "selector", "Use either --ref or --selector, not both."],
  [["scroll", "--to", "end", "--exact"], "exact", "--exact goes with --to-text."],
  [["scroll", "--to", "end", "--amount", "2"], "amount", "--amount goes with a direction."],
  [["scroll", "--to-text", "  "], "to-text", "--to-text needs some text."],
  [["select", "3", "Canada", "--by", "index"], "option", "With --by index the option is a number from 'bp dropdown'."],
  [
    ["connect", "--browser", "chrome", "--cdp-url", "ws://127.0.0.1:9/x"],
    "cdpUrl",
    "Give --browser or --cdp-url, not both.",
  ],
  [
    ["wait"],
    "condition",
    "Give exactly one condition: --url, --text, --selector, --dialog, --popup, --download, --network-idle.",
  ],
  [
    ["wait", "--dialog", "--popup"],
    "condition",
    "Give exactly one condition: --url, --text, --selector, --dialog, --popup, --download, --network-idle.",
  ],
  [
    ["screenshot", "--full", "--annotate", "1"],
    "annotate",
    "--annotate draws on the viewport; it cannot be combined with --full or --selector.",
  ],
  [["screenshot", "--full", "--selector", "main"], "selector", "Use either --full or --selector, not both."],
  [["auth", "alice", "--clear"], "clear", "Give either a user name or --clear."],
  [["auth", "--password-stdin"], "user", "Give the user name: bp auth <user> --password-stdin."],
  [
    ["auth", "alice"],
    "password",
    "Pass the password on stdin with --password-stdin; it never goes on the command line.",
  ],
  [["net", "mock", "*/api", "--body", "x", "--file", "/tmp/body"], "body", "Give --body or --file, not both."],
  [["net", "headers", "*/api", "X-A: 1", "--stdin"], "headers", "Give headers as arguments or on stdin, not both."],
  [["net", "remove"], "id", "Give a rule id or --all."],
  [["net", "remove", "r1", "--all"], "id", "Give a rule id or --all."],
];

describe("cross-field rules live in the schemas", () => {
  for (const [argv, field, message] of RULES) {
    test(`bp ${argv.join(" ")}: the CLI and the broker refuse it alike`, async () => {
      const parsed = parseCommandLine(argv);
      const cli = await failureOf(checkArgs(parsed.spec, { ...parsed.args }));
      const broker = failure(() => HANDLERS[parsed.spec.name]?.bind({ ...parsed.args }));
      expect(cli).toEqual({ code: "invalid_argument", message, context: { field } });
      expect(broker).toEqual(cli);
    });
  }

  test("arguments that keep the rules pass both", async () => {
    for (const argv of [
      ["click", "3"],
      ["click", "--xy", "1,2"],
      ["scroll", "down", "--amount", "2"],
      ["wait", "--text", "done"],
      ["net", "remove", "--all"],
      ["auth"],
    ]) {
      const parsed = parseCommandLine(argv);
      const checked = await checkArgs(parsed.spec, { ...parsed.args });
      expect(HANDLERS[parsed.spec.name]?.bind({ ...parsed.args }).args).toEqual(checked);
    }
  });
});

/** Shell words of an example line after its `bp` (quotes as a POSIX shell reads them). */
function exampleArgv(line: string): string[] {
  const words: string[] = [];
  let cur: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] ?? "";
    if (c === "'" || c === '"') {
      const end = line.indexOf(c, i + 1);
      cur = (cur ?? "") + line.slice(i + 1, end);
      i = end;
    } else if (c === " ") {
      if (cur !== undefined) words.push(cur);
      cur = undefined;
    } else cur = (cur ?? "") + c;
  }
  if (cur !== undefined) words.push(cur);
  return words.slice(words.lastIndexOf("bp") + 1);
}

test("every command's help example passes the CLI's parse and the broker's check", async () => {
  const refused: string[] = [];
  for (const def of await allCommands()) {
    const parsed = parseCommandLine(exampleArgv(def.example));
    expect(parsed.spec.name).toBe(def.name);
    try {
      const args = await checkArgs(parsed.spec, { ...parsed.args });
      HANDLERS[def.name]?.bind(args);
    } catch (err) {
      refused.push(`${def.example}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  expect(refused).toEqual([]);
});

describe("types from the definition (checked by tsc over test/)", () => {
  const command = defineCommand({
    name: "probe",
    group: "Reference",
    summary: "",
    example: "bp probe",
    runs: "broker",
    args: v.object({ ref: v.pipe(v.number(), v.integer()), all: flag("All") }),
    result: ok({ state: v.picklist(["on", "off"]), count: v.optional(v.number()) }),
  });

  test("args and reply follow the schemas; an extra reply field or an unknown argument does not compile", async () => {
    const good = defineHandler(command)({
      run: async (_ctx, { ref, all }) => ({ state: all ? "on" : "off", ...(ref > 1 ? { count: ref } : {}) }),
    });
    // @ts-expect-error a field the result schema does not name
    defineHandler(command)({ run: async () => ({ state: "on", extra: true }) });
    // @ts-expect-error a value outside the result schema's picklist
    defineHandler(command)({ run: async () => ({ state: "maybe" }) });
    // @ts-expect-error an argument the args schema does not have
    defineHandler(command)({ run: async (_ctx, args) => ({ state: args.nope ? "on" : "off" }) });
    expect(good.command).toBe(command);
    expect(failure(() => good.bind({ ref: 1.5 }))).toMatchObject({
      code: "invalid_argument",
      context: { field: "ref" },
    });
    expect(good.bind({ ref: 2 }).args).toEqual({ ref: 2, all: false });
  });
});
