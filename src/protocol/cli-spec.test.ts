import { expect, test } from "bun:test";
import * as v from "valibot";
import { checkPlain } from "../cli/plain-args.ts";
import { commandSpec, plainSpec } from "./cli-spec.ts";
import type { ArgsSchema, CommandDef } from "./define.ts";
import { rule } from "./rules.ts";
import { RULE_CHECKS } from "./rule-checks.ts";

function def(args: ArgsSchema): CommandDef {
  return { name: "probe", group: "Connection", summary: "", args, result: v.object({}), example: "bp probe", runs: "local" };
}

const refArg = v.pipe(v.number(), v.integer(), v.minValue(1), v.description("Element ref"));
type Clicked = { ref?: number; xy?: string; double?: boolean; right?: boolean };
const oneRef = rule<Clicked>("ref", "ref or xy", RULE_CHECKS.refOrXy);
const noBoth = rule<Clicked>("double", "not both", RULE_CHECKS.doubleAndRight);

/** Schemas whose checks sit in nested pipes or are given twice. */
const SCHEMAS: Record<string, ArgsSchema> = {
  nestedField: v.object({ ref: v.pipe(refArg, v.maxValue(99)) }),
  nestedOptional: v.object({ key: v.optional(v.pipe(v.pipe(v.string(), v.maxLength(64)), v.description("Key"))) }),
  repeatedMin: v.object({ s: v.pipe(v.string(), v.minLength(5), v.minLength(1)) }),
  repeatedMax: v.object({ n: v.pipe(v.number(), v.maxValue(3), v.maxValue(10)), m: v.pipe(v.number(), v.minValue(4), v.minValue(-2)) }),
  nestedObject: v.pipe(v.pipe(v.object({ ref: v.optional(v.number()), xy: v.optional(v.string()), double: v.optional(v.boolean()), right: v.optional(v.boolean()) }), oneRef), noBoth),
};

const VALUES: unknown[] = [0, 1, 1.5, 2, 3, 4, 5, 10, 11, 99, 100, -2, -3, "", "x", "xxxxx", "y".repeat(64), "y".repeat(70), true, false, undefined];

function* inputs(names: string[], at = 0, acc: Record<string, unknown> = {}): Generator<Record<string, unknown>> {
  if (at === names.length) {
    yield { ...acc };
    return;
  }
  const name = names[at] ?? "";
  yield* inputs(names, at + 1, acc);
  for (const x of VALUES) {
    if (x === undefined) continue;
    yield* inputs(names, at + 1, { ...acc, [name]: x });
  }
}

test("checkPlain lets through exactly what the schema does when checks sit in nested pipes or repeat", () => {
  for (const [label, schema] of Object.entries(SCHEMAS)) {
    const plain = plainSpec(schema);
    expect([label, plain !== undefined]).toEqual([label, true]);
    if (!plain) continue;
    const names = plain.args.map((a) => a.name);
    let passed = 0;
    for (const input of inputs(names)) {
      const fast = checkPlain(plain, input);
      const slow = v.safeParse(schema, input);
      const at = `${label} ${JSON.stringify(input)}`;
      expect([at, fast !== undefined]).toEqual([at, slow.success]);
      if (fast !== undefined && slow.success) {
        expect([at, JSON.stringify(fast)]).toEqual([at, JSON.stringify(slow.output)]);
        passed++;
      }
    }
    expect([label, passed > 0]).toEqual([label, true]);
  }
  // The cases the reviewer named, spelled out.
  const ref = plainSpec(SCHEMAS.nestedField as ArgsSchema);
  expect(ref && checkPlain(ref, { ref: 0 })).toBeUndefined();
  expect(ref && checkPlain(ref, { ref: 1.5 })).toBeUndefined();
  const key = plainSpec(SCHEMAS.nestedOptional as ArgsSchema);
  expect(key && checkPlain(key, { key: "k".repeat(70) })).toBeUndefined();
  expect(plainSpec(SCHEMAS.repeatedMin as ArgsSchema)?.args[0]?.minLength).toBe(5);
  expect(plainSpec(SCHEMAS.nestedObject as ArgsSchema)?.rules).toEqual(["refOrXy", "doubleAndRight"]);
});

test("a check that does not belong to the field's type leaves the field to the schema", () => {
  expect(plainSpec(v.object({ mode: v.pipe(v.picklist(["a", "bb"]), v.maxLength(1)) }))).toBeUndefined();
  // valibot's types refuse this one; a schema built around them must still not be read as plain.
  const integer = v.integer() as unknown as v.MaxLengthAction<string, number, undefined>;
  expect(plainSpec(v.object({ s: v.pipe(v.string(), integer) }))).toBeUndefined();
});

test("a default computed by a function is not fixed at build time", () => {
  let clock = 1;
  const now = () => clock++;
  for (const args of [
    v.object({ at: v.optional(v.number(), now) }),
    v.object({ at: v.optional(v.pipe(v.number(), v.description("When")), now) }),
    v.object({ opts: v.optional(v.object({ at: v.optional(v.number(), now) }), {}) }),
    v.pipe(v.object({ at: v.optional(v.number(), now) }), v.description("x")),
    v.object({ at: v.fallback(v.number(), now) }),
  ] as ArgsSchema[]) {
    const spec = commandSpec(def(args));
    expect(spec.empty).toBeUndefined();
    expect(spec.plain).toBeUndefined();
  }
  // A constant default is still known at build time.
  expect(commandSpec(def(v.object({ n: v.optional(v.number(), 3), o: v.optional(v.object({ m: v.optional(v.number(), 4) }), {}) }))).empty).toEqual({ n: 3, o: { m: 4 } });
});
