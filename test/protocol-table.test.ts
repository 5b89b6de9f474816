import { describe, expect, test } from "bun:test";
import { GLOBALS, specOf } from "../src/cli/spec.ts";
import { commandSpec, globalSpec } from "../src/protocol/cli-spec.ts";
import {
  CLIENT_KEY,
  COMMAND_INDEX,
  REQUEST_ID,
  allCommands,
  findCommand,
  isKeyLike,
  moduleCommands,
  type CommandModule,
} from "../src/protocol/table.ts";

describe("lazy command table", () => {
  test("the index names every command of every module, and nothing else", async () => {
    const modules = [...new Set(Object.values(COMMAND_INDEX))] as CommandModule[];
    const defined = (
      await Promise.all(modules.map(async (m) => (await moduleCommands(m)).map((c) => `${m}:${c.name}`)))
    )
      .flat()
      .sort();
    const indexed = Object.entries(COMMAND_INDEX)
      .map(([name, m]) => `${m}:${name}`)
      .sort();
    expect(defined).toEqual(indexed);
  });

  test("allCommands keeps help order and findCommand loads one", async () => {
    expect((await allCommands()).map((c) => c.name)).toEqual(Object.keys(COMMAND_INDEX));
    expect((await findCommand("tab release"))?.name).toBe("tab release");
    expect(await findCommand("toString")).toBeUndefined();
  });
});

test("isKeyLike is the client key and request id expressions, written out", () => {
  const cases = [
    "",
    "a",
    "ab",
    "abc",
    "a-b",
    "-ab",
    ".ab",
    "a.b_c:d-e",
    "A9",
    "ab c",
    "abé",
    "ab/c",
    "a\n",
    "abc\n",
    "x".repeat(128),
    "x".repeat(129),
    "_x",
    "9:.",
    "a+b",
  ];
  for (const s of cases) {
    expect([s, isKeyLike(s, 3)]).toEqual([s, CLIENT_KEY.test(s)]);
    expect([s, isKeyLike(s, 1)]).toEqual([s, REQUEST_ID.test(s)]);
  }
});

test("every command builds its argument and result schemas on first use, once", async () => {
  // A CLI call builds only the arguments of the command it runs (src/protocol/define.ts): a
  // schema built when its module loads is start-up time every call of that module pays.
  const eager: string[] = [];
  for (const def of await allCommands()) {
    for (const key of ["args", "result"] as const) {
      const d = Object.getOwnPropertyDescriptor(def, key);
      if (typeof d?.get !== "function") eager.push(`${def.name}.${key}`);
      else expect(def[key]).toBe(def[key]);
    }
  }
  expect(eager).toEqual([]);
});

test("the CLI's build-time spec of every command is what its schemas say now", async () => {
  // src/cli/spec.ts inlines these when it is bundled (a macro); each must be the schema's word.
  for (const def of await allCommands()) expect([def.name, specOf(def.name)]).toEqual([def.name, commandSpec(def)]);
  expect(specOf("toString")).toBeUndefined();
  expect(GLOBALS).toEqual(globalSpec());
  // A command that takes nothing is checked at build time; one that needs something is not.
  expect(specOf("status")?.empty).toEqual({});
  expect(specOf("snapshot")?.empty).toBeDefined();
  expect(specOf("eval")?.empty).toBeUndefined();
  expect(specOf("click")?.empty).toBeUndefined();
});
