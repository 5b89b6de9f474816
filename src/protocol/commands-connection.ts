import * as v from "valibot";
import { browserCandidateSchema, connectedBrowserSchema } from "./common.ts";
import { defineCommand, flag, ok, okPlain, optText } from "./define.ts";
import { rule } from "./rules.ts";
import { browsersText, connectText, disconnectText, launchText } from "./human.ts";

/** Within the default call timeout (60 s) with room for the first calls after the handshake. */
export const REMOTE_CONNECT_TIMEOUT_MS = 45_000;

const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export const browsers = defineCommand({
  name: "browsers",
  group: "Connection",
  summary: "Installed browsers and their debugging state (Chromium family; passive)",
  aliases: { b: "browser" },
  args: () => v.object({ browser: optText("Filter by id, product or channel") }),
  result: () => okPlain({ browsers: v.array(browserCandidateSchema) }),
  example: "bp browsers --browser chrome",
  runs: "local",
  human: browsersText,
});

export const connect = defineCommand({
  name: "connect",
  group: "Connection",
  summary: "Attach to a running browser (remote debugging on; the only command that may show Chrome's Allow dialog)",
  aliases: { b: "browser" },
  args: () =>
    v.pipe(
      v.object({
        browser: optText("Browser id or name from 'bp browsers'"),
        "cdp-url": optText(
          "Browser-level ws:// or wss:// endpoint of a remote browser; headers as a JSON object on stdin",
        ),
        reconnect: flag("Connect again to the last remote endpoint (its headers, if any, again on stdin)"),
        "connect-timeout": v.optional(
          v.pipe(
            v.number(),
            v.integer(),
            v.minValue(1000),
            v.maxValue(600_000),
            v.description("Remote handshake limit in ms: a queued service answers only once its browser runs"),
          ),
          REMOTE_CONNECT_TIMEOUT_MS,
        ),
      }),
      rule(
        "cdpUrl",
        "Give --browser or --cdp-url, not both.",
        (a) => a.browser !== undefined && a["cdp-url"] !== undefined,
      ),
      rule(
        "reconnect",
        "--reconnect takes no --browser or --cdp-url: it reuses the last remote endpoint.",
        (a) => a.reconnect && (a.browser !== undefined || a["cdp-url"] !== undefined),
      ),
    ),
  result: () =>
    ok({
      browser: connectedBrowserSchema,
      reused: v.optional(v.pipe(v.literal(true), v.description("Already connected (absent: connected now)"))),
      /** Several profiles are open and nothing says which one this agent's new tabs go to. */
      profileSelectionRequired: v.optional(v.literal(true)),
      profiles: v.optional(v.array(v.object({ id: v.string(), label: v.string(), tabCount: v.number() }))),
    }),
  example: "bp connect --browser chromium",
  runs: "broker",
  human: connectText,
  cli: { discovery: true, headersWith: ["cdp-url", "reconnect"], timeoutArg: "connect-timeout" },
});

export const launch = defineCommand({
  name: "launch",
  group: "Connection",
  summary: "Start a Browser Pilot-owned Chromium (own profile), then connect",
  args: () =>
    v.object({
      headless: flag("Run without a window (default when there is no display)"),
      executable: optText("Path of the Chromium-family executable to start"),
      profile: v.optional(
        v.pipe(
          v.string(),
          v.regex(PROFILE_NAME, "Profile names are 1-64 letters, digits, '.', '_' or '-'"),
          v.description("Profile name under the Browser Pilot home (default 'default')"),
        ),
        "default",
      ),
    }),
  result: () =>
    ok({
      browser: connectedBrowserSchema,
      reused: v.optional(
        v.pipe(v.literal(true), v.description("That browser was already running (absent: started now)")),
      ),
      headless: v.optional(
        v.pipe(
          v.boolean(),
          v.description("Only when not what was asked: headless without a display, or a reused browser's mode"),
        ),
      ),
    }),
  example: "bp launch --headless",
  runs: "broker",
  human: launchText,
});

export const disconnect = defineCommand({
  name: "disconnect",
  group: "Connection",
  summary: "Release this agent (closes its managed tabs); stops the broker when no one else uses it",
  args: () => v.object({}),
  result: () =>
    ok({
      closedTabs: v.optional(v.pipe(v.number(), v.description("Managed tabs closed (absent: none)"))),
      brokerStopped: v.optional(v.literal(true)),
      message: v.optional(
        v.pipe(v.string(), v.description("Why the broker keeps running (absent with brokerStopped)")),
      ),
    }),
  example: "bp disconnect",
  runs: "passive",
  human: disconnectText,
  cli: { executable: true },
  mutating: true,
});
