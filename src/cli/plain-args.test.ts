import { expect, test } from "bun:test";
import * as v from "valibot";
import type { PlainArg } from "../protocol/cli-spec.ts";
import type { ArgsSchema } from "../protocol/define.ts";
import { isSchema } from "../protocol/schema-read.ts";
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

/** A field's schema in an argument schema (piped or not, valibot keeps the object's entries on it). */
function entryOf(args: ArgsSchema, name: string): v.GenericSchema {
  const entry = isSchema(args, "object") ? args.entries[name] : undefined;
  if (!entry) throw new Error(`no field ${name}`);
  return entry;
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
    const pools = plain.args.map(pool);
    // Values each field passes on its own (by the schema), so that whole inputs often pass
    // the fields and reach the rules across them.
    const fine = plain.args.map((p, i) => (pools[i] ?? []).filter((x) => v.safeParse(v.object({ [p.name]: entryOf(def.args, p.name) }), { [p.name]: x }).success));
    for (let round = 0; round < 300; round++) {
      const input: Record<string, unknown> = {};
      for (const [i, p] of plain.args.entries()) {
        const r = next();
        const values = r < 0.5 ? (fine[i] ?? []) : (pools[i] ?? []);
        if (r >= 0.25 && r < 0.5) continue;
        if (values.length > 0) input[p.name] = values[Math.floor(next() * values.length)];
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

test("the commands agents call most are plain; a pattern or a rule written inline is not", () => {
  for (const name of ["eval", "snapshot", "click", "type", "press", "hover", "open", "read", "wait", "scroll"]) expect([name, specOf(name)?.plain !== undefined]).toEqual([name, true]);
  // click's, wait's and scroll's rules are named checks; tab's id pattern and select's inline rule are the schema's to check.
  expect(specOf("click")?.plain?.rules).toEqual(["oneClickTarget", "doubleAndRight"]);
  expect(specOf("wait")?.plain?.rules).toEqual(["oneWaitCondition"]);
  expect(specOf("scroll")?.plain?.rules?.length).toBe(5);
  for (const name of ["tab", "select"]) expect([name, specOf(name)?.plain]).toEqual([name, undefined]);
});
