import type { CommandSpec, GlobalSpec } from "../protocol/cli-spec.ts";
// A Bun macro: both run when the CLI is bundled (or transpiled), and their results are inlined here.
import { commandSpecs, globalSpec } from "../protocol/cli-spec.ts" with { type: "macro" };

const SPECS: Readonly<Record<string, string>> = commandSpecs();

/** The global options, and their values when none is given. */
export const GLOBALS: GlobalSpec = globalSpec();

/** A command's spec by its full name ("tab release"); each is parsed from its JSON only when asked for. */
export function specOf(name: string): CommandSpec | undefined {
  const json = Object.hasOwn(SPECS, name) ? SPECS[name] : undefined;
  return json === undefined ? undefined : (JSON.parse(json) as CommandSpec);
}
