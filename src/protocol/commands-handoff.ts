import * as v from "valibot";
import { TAB_ID } from "./common.ts";
import { defineCommand, flag, ok, optText } from "./define.ts";
import { handbackText, handoffText, viewText } from "./human.ts";

/** Control lease bounds in seconds (min/default/max), as the hosted-service policy has them. */
export const LEASE_SECONDS = { min: 60, default: 300, max: 3600 } as const;

const tabOpt = (description: string) =>
  v.optional(v.pipe(v.string(), v.regex(TAB_ID, "Tab ids look like t1, t2, …"), v.description(description)));

const leaseArg = v.optional(
  v.pipe(
    v.number(),
    v.integer("Lease seconds are a whole number"),
    v.minValue(LEASE_SECONDS.min, `Lease seconds are ${LEASE_SECONDS.min}-${LEASE_SECONDS.max}`),
    v.maxValue(LEASE_SECONDS.max, `Lease seconds are ${LEASE_SECONDS.min}-${LEASE_SECONDS.max}`),
    v.description(
      `Control lease in seconds (default ${LEASE_SECONDS.default}, ${LEASE_SECONDS.min}-${LEASE_SECONDS.max})`,
    ),
  ),
);

/**
 * What an agent is told, on its next reply of any command (field `handbacks`), after a tab it
 * handed off or was blocked on comes back: only what changed.
 */
export const handbackNoticeSchema = v.object({
  tab: v.string(),
  ended: v.picklist(["handback", "lease_ended", "agent_released"]),
  url: v.optional(v.pipe(v.string(), v.description("New URL (absent: unchanged)"))),
  title: v.optional(v.pipe(v.string(), v.description("New title (absent: unchanged)"))),
  authentication_surface: v.optional(v.picklist(["entered", "left", "present"])),
  newTabs: v.optional(v.array(v.object({ id: v.string(), url: v.string(), title: v.string(), origin: v.string() }))),
  closed: v.optional(v.literal(true)),
  hint: v.string(),
});

export const handoff = defineCommand({
  name: "handoff",
  group: "Waiting and recovery",
  summary: "Hand the selected tab to a person (login, CAPTCHA, 2FA); agents get human_control until handback",
  args: () =>
    v.object({
      tab: tabOpt("Tab id (default: selected tab)"),
      message: optText("What the person should do (shown in status and the viewer)"),
      "lease-seconds": leaseArg,
      wait: flag("Block until handback or lease end, then print what changed"),
      renew: flag("Extend the lease of a tab already handed off (never shortens)"),
    }),
  result: () =>
    ok({
      tab: v.string(),
      control: v.picklist(["draining", "human", "automation"]),
      until: v.optional(v.pipe(v.string(), v.description("When the control lease ends (ISO time)"))),
      hint: v.optional(v.string()),
      handbacks: v.optional(v.array(handbackNoticeSchema)),
    }),
  example: "bp handoff --message 'Please sign in' --wait",
  runs: "broker",
  human: handoffText,
  duringHandoff: true,
  cli: { waitArg: "wait" },
});

export const handback = defineCommand({
  name: "handback",
  group: "Waiting and recovery",
  summary: "Give a handed-off tab back to the agent (from the agent or the person's shell)",
  args: () => v.object({ tab: tabOpt("Tab id (default: the one tab under human control)") }),
  result: () =>
    ok({
      tab: v.pipe(v.string(), v.description("The tab now back under automation")),
      handbacks: v.optional(v.array(handbackNoticeSchema)),
    }),
  example: "bp handback",
  runs: "broker",
  human: handbackText,
  duringHandoff: true,
});

export const view = defineCommand({
  name: "view",
  group: "Waiting and recovery",
  summary: "One-time link to a live view of the tab (loopback; for headless or remote browsers)",
  args: () => v.object({ tab: tabOpt("Tab id (default: selected tab, else the one under human control)") }),
  result: () =>
    ok({
      tab: v.string(),
      url: v.pipe(v.string(), v.description("Opens once; a secret: give it only to the person")),
      expiresAt: v.pipe(v.string(), v.description("The link must be opened before this time")),
    }),
  example: "bp view",
  runs: "broker",
  human: viewText,
  duringHandoff: true,
});

export const HANDOFF_COMMANDS = [handoff, handback, view];
