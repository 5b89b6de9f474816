/**
 * The emitter writes a schema out as code with the schema's own verdict and output: checked
 * here on schemas whose checks nest or repeat, and on what it must leave to the schema. The
 * files it writes for the CLI are held to the schemas by src/protocol/wire.test.ts and
 * src/cli/plain-args.test.ts, and to this generator by the last test (and `--check` in CI).
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as v from "valibot";
import type { ArgsSchema } from "../src/protocol/define.ts";
import { rule } from "../src/protocol/rules.ts";
import { Emitter, Unsupported } from "./reader-emit.ts";
import { generated } from "./schema-readers.ts";

const dir = mkdtempSync(join(tmpdir(), "bp-readers-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

/** The emitted reader, loaded as the CLI loads it: a module of its own. */
async function compile(schema: v.GenericSchema): Promise<(value: unknown) => unknown> {
  const e = new Emitter();
  const fn = e.arrow(schema);
  const file = join(dir, `reader-${files++}.ts`);
  writeFileSync(file, `${e.consts.join("\n")}\nexport const read = ${fn};\n`);
  return ((await import(file)) as { read: (value: unknown) => unknown }).read;
}

const refArg = v.pipe(v.number(), v.integer(), v.minValue(1), v.description("Element ref"));
type Clicked = { ref?: number; xy?: string; double?: boolean; right?: boolean };
const oneRef = rule<Clicked>("ref", "ref or xy", (a) => (a.ref === undefined) === (a.xy === undefined));
const noBoth = rule<Clicked>("double", "not both", (a) => a.double === true && a.right === true);

/** Schemas whose checks sit in nested pipes or are given twice. */
const SCHEMAS: Record<string, ArgsSchema> = {
  nestedField: v.object({ ref: v.pipe(refArg, v.maxValue(99)) }),
  nestedOptional: v.object({ key: v.optional(v.pipe(v.pipe(v.string(), v.maxLength(64)), v.description("Key"))) }),
  repeatedMin: v.object({ s: v.pipe(v.string(), v.minLength(5), v.minLength(1)) }),
  repeatedMax: v.object({
    n: v.pipe(v.number(), v.maxValue(3), v.maxValue(10)),
    m: v.pipe(v.number(), v.minValue(4), v.minValue(-2)),
  }),
  nestedObject: v.pipe(
    v.pipe(
      v.object({
        ref: v.optional(v.number()),
        xy: v.optional(v.string()),
        double: v.optional(v.boolean()),
        right: v.optional(v.boolean()),
      }),
      oneRef,
    ),
    noBoth,
  ),
  defaults: v.object({
    mode: v.optional(v.picklist(["a", "b"]), "a"),
    n: v.optional(v.pipe(v.number(), v.integer()), 3),
    flag: v.optional(v.boolean(), false),
  }),
};

const VALUES: unknown[] = [
  0,
  1,
  1.5,
  3,
  4,
  10,
  11,
  99,
  100,
  -2,
  Number.NaN,
  "",
  "a",
  "xxxxx",
  "y".repeat(64),
  "y".repeat(70),
  true,
  false,
  null,
  undefined,
];

function* inputs(names: string[], at = 0, acc: Record<string, unknown> = {}): Generator<Record<string, unknown>> {
  if (at === names.length) {
    yield { ...acc };
    return;
  }
  const name = names[at] ?? "";
  yield* inputs(names, at + 1, acc);
  for (const x of VALUES) yield* inputs(names, at + 1, { ...acc, [name]: x });
}

test("a written-out reader lets through exactly what the schema does, with its output, when checks nest or repeat", async () => {
  for (const [label, schema] of Object.entries(SCHEMAS)) {
    const read = await compile(schema);
    let root: v.GenericSchema = schema;
    while ("pipe" in root && Array.isArray(root.pipe)) root = root.pipe[0] as v.GenericSchema;
    const names = Object.keys((root as v.ObjectSchema<v.ObjectEntries, undefined>).entries);
    let passed = 0;
    for (const input of inputs(names)) {
      const fast = read(input);
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
  // The cases a review named, spelled out.
  const ref = await compile(SCHEMAS.nestedField as ArgsSchema);
  expect(ref({ ref: 0 })).toBeUndefined();
  expect(ref({ ref: 1.5 })).toBeUndefined();
  const key = await compile(SCHEMAS.nestedOptional as ArgsSchema);
  expect(key({ key: "k".repeat(70) })).toBeUndefined();
  expect(await compile(v.object({ a: v.array(v.string()), r: v.record(v.string(), v.number()) }))).toBeDefined();
});

test("what the emitter cannot write out exactly is left to the schema", () => {
  const unsupported = (schema: v.GenericSchema) => expect(() => new Emitter().arrow(schema)).toThrow(Unsupported);
  unsupported(v.object({ mode: v.pipe(v.picklist(["a", "bb"]), v.maxLength(1)) }));
  // valibot's types refuse this one; a schema built around them must still not be written out.
  unsupported(
    v.object({ s: v.pipe(v.string(), v.integer() as unknown as v.MaxLengthAction<string, number, undefined>) }),
  );
  unsupported(v.object({ s: v.pipe(v.string(), v.trim()) }));
  unsupported(v.object({ s: v.fallback(v.string(), "x") }));
  const LIMIT = 3;
  unsupported(
    v.pipe(
      v.object({ n: v.number() }),
      rule("n", "too big", (a) => a.n > LIMIT),
    ),
  );
  unsupported(
    v.pipe(
      v.object({ s: v.string() }),
      rule("s", "digits", (a) => !/^\d+$/.test(a.s)),
    ),
  );
  expect(() => new Emitter({ patterns: false }).arrow(v.object({ id: v.pipe(v.string(), v.regex(/^t\d+$/)) }))).toThrow(
    Unsupported,
  );
});

test("the committed readers are what the generator writes from today's schemas", async () => {
  for (const [path, text] of Object.entries(await generated()))
    expect([path, readFileSync(join(import.meta.dir, "..", path), "utf8") === text]).toEqual([path, true]);
});
