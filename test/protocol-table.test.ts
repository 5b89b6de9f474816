import { describe, expect, test } from "bun:test";
import { COMMAND_INDEX, allCommands, findCommand, moduleCommands, type CommandModule } from "../src/protocol/table.ts";

describe("lazy command table", () => {
  test("the index names every command of every module, and nothing else", async () => {
    const modules = [...new Set(Object.values(COMMAND_INDEX))] as CommandModule[];
    const defined = (await Promise.all(modules.map(async (m) => (await moduleCommands(m)).map((c) => `${m}:${c.name}`)))).flat().sort();
    const indexed = Object.entries(COMMAND_INDEX).map(([name, m]) => `${m}:${name}`).sort();
    expect(defined).toEqual(indexed);
  });

  test("allCommands keeps help order and findCommand loads one", async () => {
    expect((await allCommands()).map((c) => c.name)).toEqual(Object.keys(COMMAND_INDEX));
    expect((await findCommand("tab release"))?.name).toBe("tab release");
    expect(await findCommand("toString")).toBeUndefined();
  });
});
