import * as v from "valibot";
import { browserCandidateSchema, connectedBrowserSchema } from "./common.ts";
import { defineCommand, ok, remediationSchema } from "./define.ts";

/** A module of its own, like eval's: see commands-eval.ts. */
export const status = defineCommand({
  name: "status",
  group: "Connection",
  summary: "Passive state: broker, browser, this agent's tab; starts nothing",
  args: v.object({}),
  result: ok({
    service: v.object({ state: v.picklist(["running", "stopped", "unresponsive", "incompatible"]), version: v.string(), target: v.string() }),
    browser: v.union([connectedBrowserSchema, v.object({ state: v.literal("disconnected") })]),
    browsers: v.optional(v.array(browserCandidateSchema)),
    session: v.object({
      state: v.picklist(["active", "none", "unavailable"]),
      tabs: v.optional(v.number()),
      selectedTab: v.optional(v.nullable(v.object({ id: v.string(), title: v.string(), url: v.string() }))),
      profile: v.optional(v.string()),
    }),
    humanControl: v.optional(
      v.array(
        v.object({
          tab: v.string(),
          phase: v.picklist(["draining", "human", "returning"]),
          until: v.string(),
          message: v.optional(v.string()),
          yours: v.optional(v.pipe(v.literal(true), v.description("This agent handed it off"))),
        }),
      ),
    ),
    commands: v.optional(v.object({ active: v.array(v.record(v.string(), v.unknown())), uncertain: v.array(v.record(v.string(), v.unknown())) })),
    recovery: v.object({ required: v.boolean(), code: v.optional(v.string()), action: v.optional(v.string()), remediation: v.optional(remediationSchema) }),
  }),
  example: "bp status",
  runs: "passive",
});
