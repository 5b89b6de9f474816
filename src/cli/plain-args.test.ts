import { expect, test } from "bun:test";
import * as v from "valibot";
import type { PlainArg } from "../protocol/cli-spec.ts";
import { allCommands } from "../protocol/table.ts";
import { checkPlain } from "./plain-args.ts";
import { specOf } from "./spec.ts";

/** Values around every bound an argument has, of its type and of others. */
function pool(p: PlainArg): unknown[] {
  const out: unknown[] = [true, false, 0, 1, -1, 1.5, Number.NaN, "", "x", "5", null, undefined, ["x"], { x: 1 }];
  for (const n of [p.minLength, p.maxLength]) if (n !== undefined) out.push("y".repeat(Math.max(0, n - 1)), "y".repeat(n), "y".repeat(n + 1));
  for (const n of [p.minValue, p.maxValue]) if (n !== undefined) out.push(n - 1, n - 0.5, n, n + 0.5, n + 1);
  out.push(...(p.options ?? []), "not-an-option");
  return out;
}

/** A small seeded generator, so a failure names an input that comes back. */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

test("a plain command's arguments pass checkPlain exactly when they pass its schema, with the schema's output", async () => {
  const next = random(7);
  let plainCommands = 0;
  let passed = 0;
  for (const def of await allCommands()) {
    const plain = specOf(def.name)?.plain;
    if (!plain) continue;
    plainCommands++;
    const pools = plain.map(pool);
    for (let round = 0; round < 300; round++) {
      const input: Record<string, unknown> = {};
      for (const [i, p] of plain.entries()) {
        const values = pools[i] ?? [];
        const pick = Math.floor(next() * (values.length + 2));
        if (pick < values.length) input[p.name] = values[pick];
      }
      if (round % 50 === 0) input.unknownOption = "x";
      const schema = v.safeParse(def.args, input);
      const fast = checkPlain(plain, input);
      const label = `${def.name} ${JSON.stringify(input)}`;
      // Sound: what it lets through is the schema's output, key order included.
      if (fast !== undefined) {
        expect([label, schema.success]).toEqual([label, true]);
        expect([label, JSON.stringify(fast)]).toEqual([label, schema.success ? JSON.stringify(schema.output) : ""]);
        passed++;
      } else if (!Object.hasOwn(input, "unknownOption") && !Object.values(input).includes(undefined)) {
        // Complete: it asks the schema only about arguments the schema refuses (the parse
        // gives no unknown option and no undefined value: those are left to the schema).
        expect([label, schema.success]).toEqual([label, false]);
      }
    }
  }
  expect(plainCommands).toBeGreaterThan(20);
  expect(passed).toBeGreaterThan(100);
});

test("the commands agents call most are plain; a schema with a cross-field rule or a pattern is not", () => {
  for (const name of ["eval", "snapshot", "type", "press", "hover", "open", "read"]) expect([name, specOf(name)?.plain !== undefined]).toEqual([name, true]);
  // click's ref-or-xy rule and tab's id pattern are the schema's to check.
  for (const name of ["click", "tab", "wait", "scroll"]) expect([name, specOf(name)?.plain]).toEqual([name, undefined]);
});
