/*
 * Cross-field rules the CLI can check without loading the command's module. A schema pipes
 * one through rule() (src/protocol/rules.ts) like any other; the CLI's build-time spec names
 * a plain schema's rules by their keys here (src/protocol/cli-spec.ts) and
 * src/cli/plain-args.ts runs them on arguments that passed the field checks, leaving any
 * broken one to the schema, which words the error. A rule written inline in a schema is not
 * here, and its command's arguments always go through the schema. This module imports
 * nothing: the CLI loads it at start-up.
 */

/** What 'bp wait' can wait for; it takes exactly one. */
export const WAIT_CONDITIONS = ["url", "text", "selector", "dialog", "popup", "download", "network-idle"] as const;

/** Says when the arguments break the rule. */
export type RuleCheck = (args: Record<string, unknown>) => boolean;

export const RULE_CHECKS = {
  /** click: a ref or --xy, exactly one. */
  refOrXy: (a) => (a.ref === undefined) === (a.xy === undefined),
  /** click: a ref, --xy or --text, exactly one. */
  oneClickTarget: (a) => [a.ref, a.xy, a.text].filter((t) => t !== undefined).length !== 1,
  /** drag: a target ref or --to-xy, exactly one. */
  oneDropTarget: (a) => (a.to === undefined) === (a["to-xy"] === undefined),
  /** click: one button at a time. */
  doubleAndRight: (a) => a.double === true && a.right === true,
  /** wait: exactly one condition. */
  oneWaitCondition: (a) => WAIT_CONDITIONS.filter((k) => a[k] !== undefined && a[k] !== false).length !== 1,
  /** scroll: a direction, --to or --to-text, exactly one. */
  oneScrollTarget: (a) => [a.direction, a.to, a["to-text"]].filter((m) => m !== undefined).length !== 1,
  /** scroll: --ref or --selector, not both. */
  refAndSelector: (a) => a.ref !== undefined && a.selector !== undefined,
  /** scroll: --exact only with --to-text. */
  exactWithoutText: (a) => a.exact === true && a["to-text"] === undefined,
  /** scroll: --amount only with a direction. */
  amountWithoutDirection: (a) => a.amount !== undefined && a.direction === undefined,
  /** scroll: --to-text with some text. */
  blankToText: (a) => typeof a["to-text"] === "string" && a["to-text"].trim() === "",
} satisfies Record<string, RuleCheck>;

const BY_NAME: Readonly<Record<string, RuleCheck>> = RULE_CHECKS;

/** The named check, if there is one by that name. */
export function ruleCheck(name: string): RuleCheck | undefined {
  return Object.hasOwn(BY_NAME, name) ? BY_NAME[name] : undefined;
}

/** The name a check is kept under, if it is one of these. */
export function ruleCheckName(check: unknown): string | undefined {
  return Object.entries(BY_NAME).find(([, c]) => c === check)?.[0];
}
