import * as v from "valibot";
import { browserCandidateSchema, connectedBrowserSchema } from "./common.ts";
import { defineCommand, okPlain, watchdogHint } from "./define.ts";
import { policySummarySchema } from "./policy-summary.ts";
import { statusText } from "./human.ts";

/** A module of its own, like eval's: see commands-eval.ts. */
export const status = defineCommand({
  name: "status",
  group: "Connection",
  summary: "Broker, browser and this agent's tab; passive, starts nothing",
  args: () => v.object({}),
  result: () =>
    okPlain({
      service: v.object({
        state: v.picklist(["running", "stopped", "unresponsive", "incompatible"]),
        version: v.string(),
        target: v.string(),
        pid: v.optional(v.pipe(v.number(), v.description("The broker's pid, when it is unresponsive or incompatible"))),
        frozen: v.optional(
          v.pipe(
            v.literal(true),
            v.description("The unresponsive broker is stopped by a signal (SIGSTOP, a debugger)"),
          ),
        ),
      }),
      browser: v.union([connectedBrowserSchema, v.object({ state: v.literal("disconnected") })]),
      browsers: v.optional(v.array(browserCandidateSchema)),
      session: v.object({
        state: v.picklist(["active", "none", "unavailable"]),
        tabs: v.optional(v.pipe(v.number(), v.description("This agent's tabs (absent: none)"))),
        selectedTab: v.optional(
          v.pipe(
            v.object({ id: v.string(), title: v.string(), url: v.string() }),
            v.description("Absent: no tab selected"),
          ),
        ),
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
      commands: v.optional(
        v.pipe(
          v.object({
            active: v.optional(v.array(v.record(v.string(), v.unknown()))),
            uncertain: v.optional(v.array(v.record(v.string(), v.unknown()))),
          }),
          v.description("Only when this agent has commands running (active) or of unknown outcome (uncertain)"),
        ),
      ),
      policy: v.optional(policySummarySchema()),
      recovery: v.optional(
        v.pipe(
          v.object({
            required: v.literal(true),
            code: v.string(),
            reason: v.optional(
              v.pipe(
                v.literal("remote_session_ended"),
                v.description("The remote service ended the session (its tabs are gone)"),
              ),
            ),
            action: v.pipe(
              v.string(),
              v.description("The command to run; <id> stands for a browser's id from browsers"),
            ),
            endpoint: v.optional(
              v.pipe(v.string(), v.description("The remote endpoint to reconnect to, credentials as ***")),
            ),
            message: v.optional(v.string()),
          }),
          v.description("Only when something must be done before browser commands work"),
        ),
      ),
      hints: v.optional(v.pipe(v.array(watchdogHint()), v.description("broker_outdated after an upgrade"))),
    }),
  example: "bp status",
  runs: "passive",
  human: statusText,
  recorded: false,
  cli: { discovery: true },
});
