import * as v from "valibot";
import { type BpError, invalidArgument } from "../shared/errors.ts";

/**
 * A cross-field rule of a command's arguments ("exactly one of a ref or --xy"): a valibot raw
 * check piped after the arguments object, so it runs once every field is valid. `field` is
 * the argument the error names and `broken` says when the arguments break the rule. Its
 * message is the whole error: the CLI's parse and the broker's validation both report it
 * through ruleError, so either side gives the same invalid_argument.
 */
export function rule<T extends Record<string, unknown>>(
  field: string,
  message: string,
  broken: (args: NoInfer<T>) => boolean,
): v.RawCheckAction<T> & { readonly broken: (args: T) => boolean } {
  const check = v.rawCheck<T>(({ dataset, addIssue }) => {
    if (!dataset.typed || !broken(dataset.value)) return;
    const input: Record<string, unknown> = dataset.value;
    addIssue({ message, path: [{ type: "object", origin: "value", input, key: field, value: input[field] }] });
  });
  // The predicate stays readable on the action: build/reader-emit.ts copies it into the CLI's own checks.
  return Object.assign(check, { broken });
}

/** The error of a broken cross-field rule; undefined for any other issue. */
export function ruleError(issue: v.BaseIssue<unknown>): BpError | undefined {
  if (issue.type !== "raw_check") return undefined;
  return invalidArgument(issue.path?.map((p) => String(p.key)).join(".") || "arguments", issue.message);
}
