import { expect, test } from "bun:test";
import * as v from "valibot";
import type { ArgsSchema } from "../protocol/define.ts";
import { allPipeActions, isPiped, isSchema } from "../protocol/schema-read.ts";
import { WAIT_CONDITIONS } from "../protocol/commands-reliability.ts";
import { allCommands } from "../protocol/table.ts";
import { PLAIN_ARGS } from "./plain-args.generated.ts";

/** A field's bounds and options, read from every pipe of its schema. */
interface Bounds {
  minLength?: number;
  maxLength?: number;
  minValue?: number;
  maxValue?: number;
  options?: readonly unknown[];
}

function boundsOf(entry: v.GenericSchema): Bounds {
  const inner = isSchema(entry, "optional") ? (entry.wrapped as v.GenericSchema) : entry;
  const out: Bounds = {};
  const base = isPiped(inner) ? (inner.pipe[0] as v.GenericSchema) : inner;
  if (isSchema(base, "picklist")) out.options = base.options;
  for (const item of allPipeActions(inner)) {
    const req = (item as { requirement?: unknown }).requirement;
    if (typeof req !== "number") continue;
    if (item.type === "min_length") out.minLength = req;
    else if (item.type === "max_length") out.maxLength = req;
    else if (item.type === "min_value") out.minValue = req;
    else if (item.type === "max_value") out.maxValue = req;
  }
  return out;
}

/** Values around every bound an argument has, of its type and of others. */
function pool(p: Bounds): unknown[] {
  const out: unknown[] = [true, false, 0, 1, -1, 1.5, Number.NaN, "", "x", "5", " ", null, undefined, ["x"], { x: 1 }];
  for (const n of [p.minLength, p.maxLength])
    if (n !== undefined) out.push("y".repeat(Math.max(0, n - 1)), "y".repeat(n), "y".repeat(n + 1));
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

/** The schema's own object of fields, under any pipes. */
function fieldsOf(args: ArgsSchema): string[] {
  let s: v.GenericSchema = args;
  while (isPiped(s)) s = s.pipe[0] as v.GenericSchema;
  return isSchema(s, "object") ? Object.keys(s.entries) : [];
}

test("the generated readers pass a command's arguments exactly when its schema does, with the schema's output", async () => {
  const next = random(7);
  let plainCommands = 0;
  let passed = 0;
  for (const def of await allCommands()) {
    const read = Object.hasOwn(PLAIN_ARGS, def.name) ? PLAIN_ARGS[def.name] : undefined;
    if (!read) continue;
    plainCommands++;
    const names = fieldsOf(def.args);
    const pools = names.map((n) => pool(boundsOf(entryOf(def.args, n))));
    // Values each field passes on its own (by the schema), so that whole inputs often pass
    // the fields and reach the rules across them.
    const fine = names.map((n, i) =>
      (pools[i] ?? []).filter((x) => v.safeParse(v.object({ [n]: entryOf(def.args, n) }), { [n]: x }).success),
    );
    for (let round = 0; round < 300; round++) {
      const input: Record<string, unknown> = {};
      for (const [i, name] of names.entries()) {
        const r = next();
        const values = r < 0.5 ? (fine[i] ?? []) : (pools[i] ?? []);
        if (r >= 0.25 && r < 0.5) continue;
        if (values.length > 0) input[name] = values[Math.floor(next() * values.length)];
      }
      if (round % 50 === 0) input.unknownOption = "x";
      const schema = v.safeParse(def.args, input);
      const fast = read(input);
      const label = `${def.name} ${JSON.stringify(input)}`;
      // Sound: what it lets through is the schema's output, key order included.
      if (fast !== undefined) {
        expect([label, schema.success]).toEqual([label, true]);
        expect([label, JSON.stringify(fast)]).toEqual([label, schema.success ? JSON.stringify(schema.output) : ""]);
        passed++;
      } else {
        // Complete: it asks the schema only about arguments the schema refuses.
        expect([label, schema.success]).toEqual([label, false]);
      }
    }
  }
  expect(plainCommands).toBeGreaterThan(20);
  expect(passed).toBeGreaterThan(100);
});

test("the commands agents call most are written out; a pattern, or a rule that names more than its arguments, is not", () => {
  for (const name of [
    "eval",
    "snapshot",
    "click",
    "type",
    "press",
    "hover",
    "open",
    "read",
    "wait",
    "scroll",
    "net mock",
  ])
    expect([name, Object.hasOwn(PLAIN_ARGS, name)]).toEqual([name, true]);
  // tab's id pattern would be compiled at every start; select's rule holds a pattern, find's a function of its module.
  for (const name of ["tab", "select", "find"]) expect([name, Object.hasOwn(PLAIN_ARGS, name)]).toEqual([name, false]);
});

test("wait's rule lists every condition the command takes", () => {
  const read = PLAIN_ARGS.wait;
  for (const c of WAIT_CONDITIONS)
    expect([c, read?.({ [c]: c === "url" || c === "text" || c === "selector" ? "x" : true }) !== undefined]).toEqual([
      c,
      true,
    ]);
  expect(read?.({})).toBeUndefined();
});
