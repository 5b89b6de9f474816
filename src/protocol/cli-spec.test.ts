import { expect, test } from "bun:test";
import * as v from "valibot";
import { Emitter, Unsupported } from "../../build/reader-emit.ts";
import { commandSpec } from "./cli-spec.ts";
import type { ArgsSchema, CommandDef } from "./define.ts";

function def(args: ArgsSchema): CommandDef {
  return {
    name: "probe",
    group: "Connection",
    summary: "",
    args,
    result: v.object({}),
    example: "bp probe",
    runs: "local",
  };
}

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
    expect(commandSpec(def(args)).empty).toBeUndefined();
    // Nor written out for the CLI: the default is the schema's to compute, each time.
    expect(() => new Emitter().arrow(args)).toThrow(Unsupported);
  }
  // A constant default is still known at build time.
  expect(
    commandSpec(
      def(v.object({ n: v.optional(v.number(), 3), o: v.optional(v.object({ m: v.optional(v.number(), 4) }), {}) })),
    ).empty,
  ).toEqual({ n: 3, o: { m: 4 } });
});
