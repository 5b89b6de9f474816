import type { PlainArg, PlainSpec } from "../protocol/cli-spec.ts";
import { ruleCheck } from "../protocol/rule-checks.ts";

/*
 * A plain command's arguments checked without valibot. src/protocol/cli-spec.ts marks an
 * argument schema plain, at build time, when it is an object of strings, numbers, booleans
 * and picklists whose only checks are length, integer, value bounds and the list, and whose
 * rules across fields, if any, are named checks of src/protocol/rule-checks.ts. For such a
 * schema these are exactly valibot's checks, so arguments that pass
 * here are what the schema outputs (the given and defaulted fields, in the schema's order);
 * anything else, every refusal included, is left to the schema, which words the error.
 * src/cli/plain-args.test.ts holds the two equal over every plain command, and
 * src/protocol/cli-spec.test.ts over nested pipes and repeated bounds.
 */

/** The schema's output for arguments that pass, or undefined: ask the schema. */
export function checkPlain(plain: PlainSpec, input: Record<string, unknown>): Record<string, unknown> | undefined {
  for (const key of Object.keys(input)) if (!plain.args.some((p) => p.name === key)) return undefined;
  const out: Record<string, unknown> = {};
  for (const p of plain.args) {
    const given = Object.hasOwn(input, p.name);
    const value = given ? input[p.name] : p.default;
    if (value === undefined) {
      if (given || !p.optional) return undefined;
      continue;
    }
    if (!passes(p, value)) return undefined;
    out[p.name] = value;
  }
  // Like valibot's, the rules see the checked fields with their defaults; a broken one is the schema's to report.
  for (const name of plain.rules ?? []) {
    const broken = ruleCheck(name);
    if (!broken || broken(out)) return undefined;
  }
  return out;
}

function passes(p: PlainArg, value: unknown): boolean {
  switch (p.type) {
    case "boolean":
      return typeof value === "boolean";
    case "picklist":
      return (p.options ?? []).some((o) => o === value);
    case "string":
      return typeof value === "string" && (p.minLength === undefined || value.length >= p.minLength) && (p.maxLength === undefined || value.length <= p.maxLength);
    case "number":
      return (
        typeof value === "number" &&
        !Number.isNaN(value) &&
        (p.integer !== true || Number.isInteger(value)) &&
        (p.minValue === undefined || value >= p.minValue) &&
        (p.maxValue === undefined || value <= p.maxValue)
      );
  }
}
