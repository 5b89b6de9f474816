import * as v from "valibot";
import { defineCommand, flag, limitArg, ok, optText } from "./define.ts";
import { rule } from "./rules.ts";
import { emulateText, stateListText } from "./human.ts";
import { consoleText, stateLoadText, stateRemoveText, stateSaveText, storageText } from "./human-devtools.ts";

/** Console levels, most severe first; --level shows that level and the more severe ones. */
export const CONSOLE_LEVELS = ["error", "warning", "info", "log"] as const;

export const consoleLog = defineCommand({
  human: consoleText,
  name: "console",
  group: "Observation",
  summary: "Console messages and page errors (failed requests count as error)",
  aliases: { l: "limit" },
  args: () =>
    v.object({
      level: v.optional(
        v.pipe(
          v.picklist(CONSOLE_LEVELS, "Levels are error, warning, info or log"),
          v.description("This level and the more severe ones: error, warning, info, log (default: all)"),
        ),
      ),
      since: v.optional(
        v.pipe(
          v.number(),
          v.integer(),
          v.minValue(0),
          v.description("Only messages after this cursor (the nextCursor of an earlier call)"),
        ),
      ),
      limit: limitArg(50, 1000, "messages"),
    }),
  result: () =>
    ok({
      messages: v.array(
        v.object({
          id: v.number(),
          level: v.picklist(CONSOLE_LEVELS),
          text: v.pipe(v.string(), v.description("At most 2000 characters")),
          kind: v.optional(
            v.pipe(
              v.picklist(["exception", "network", "browser"]),
              v.description("Absent: a console call of the page"),
            ),
          ),
          source: v.optional(v.pipe(v.string(), v.description("URL:line:column where it came from"))),
          time: v.pipe(v.string(), v.description("ISO time")),
        }),
      ),
      total: v.optional(v.pipe(v.number(), v.description("Only when truncated: matching messages kept"))),
      truncated: v.optional(v.literal(true)),
      gap: v.optional(
        v.pipe(v.literal(true), v.description("Messages after --since were dropped from the bounded log")),
      ),
      nextCursor: v.number(),
    }),
  example: "bp console --level error --since 12",
  runs: "broker",
});

export const STORAGE_AREAS = ["local", "session"] as const;
export const STORAGE_OPS = ["get", "set", "remove", "clear"] as const;

export const storage = defineCommand({
  human: storageText,
  name: "storage",
  group: "Network",
  summary: "The tab's local or session storage (list, get, set, remove, clear)",
  positionals: ["area", "op", "key", "value"],
  aliases: { l: "limit" },
  args: () =>
    v.pipe(
      v.object({
        area: v.optional(
          v.pipe(
            v.picklist(
              STORAGE_AREAS,
              "Give the area first: bp storage local|session [get KEY|set KEY VALUE|remove KEY|clear]",
            ),
            v.description("local or session (default local when listing)"),
          ),
        ),
        op: v.optional(
          v.pipe(
            v.picklist(STORAGE_OPS, "Operations are get, set, remove and clear"),
            v.description("get KEY, set KEY VALUE, remove KEY or clear (absent: list)"),
          ),
        ),
        key: optText("The item's key"),
        value: optText("The value to set"),
        full: flag("Values in full (default: each cut at 1000 characters in a list, 4000 for get)"),
        limit: limitArg(100, 1000, "items"),
      }),
      rule(
        "key",
        "Give the key: bp storage local get|set|remove KEY.",
        (a) => (a.op === "get" || a.op === "set" || a.op === "remove") && a.key === undefined,
      ),
      rule("value", "Give the value: bp storage local set KEY VALUE.", (a) => a.op === "set" && a.value === undefined),
      rule("key", "clear takes no key.", (a) => a.op === "clear" && a.key !== undefined),
      rule("value", "Only set takes a value.", (a) => a.op !== "set" && a.value !== undefined),
    ),
  result: () =>
    ok({
      origin: v.pipe(v.string(), v.description("The origin whose storage this is")),
      items: v.optional(
        v.array(
          v.object({
            key: v.string(),
            value: v.string(),
            length: v.optional(v.pipe(v.number(), v.description("Only when the value was cut: its full length"))),
          }),
        ),
      ),
      value: v.optional(
        v.pipe(v.nullable(v.string()), v.description("get: the value, null when there is no such key")),
      ),
      length: v.optional(v.pipe(v.number(), v.description("get: only when the value was cut, its full length"))),
      removed: v.optional(v.pipe(v.boolean(), v.description("remove: whether the key was there"))),
      cleared: v.optional(v.pipe(v.number(), v.description("clear: items removed"))),
      total: v.optional(v.pipe(v.number(), v.description("Only when the list was cut: items there"))),
      truncated: v.optional(v.literal(true)),
    }),
  example: "bp storage local set theme dark",
  runs: "broker",
  mutating: true,
});

const STATE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const stateName = v.pipe(
  v.string(),
  v.regex(
    STATE_NAME,
    "State names are 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit (no '/')",
  ),
  v.description("Name of the saved state"),
);

export const stateSave = defineCommand({
  human: stateSaveText,
  name: "state save",
  group: "Network",
  family: "Cookies and localStorage saved by name",
  summary: "Save the tab's cookies and localStorage privately, by name",
  positionals: ["name"],
  args: () => v.object({ name: stateName }),
  result: () =>
    ok({
      cookies: v.number(),
      origins: v.pipe(v.array(v.string()), v.description("Origins whose localStorage was saved")),
      items: v.pipe(v.number(), v.description("localStorage items saved")),
      replaced: v.optional(v.pipe(v.literal(true), v.description("A state of that name was overwritten"))),
    }),
  example: "bp state save github-login",
  runs: "broker",
});

export const stateLoad = defineCommand({
  human: stateLoadText,
  name: "state load",
  group: "Network",
  summary: "Load a saved state's cookies and localStorage into this browser",
  positionals: ["name"],
  args: () =>
    v.object({
      name: stateName,
      "into-user-profile": flag("Allow loading into a person's own browser (overwrites their cookies for those sites)"),
    }),
  result: () => ok({ cookies: v.number(), origins: v.array(v.string()), items: v.number() }),
  example: "bp state load github-login",
  runs: "broker",
  mutating: true,
});

export const stateList = defineCommand({
  name: "state list",
  group: "Network",
  summary: "This agent's saved states",
  args: () => v.object({}),
  result: () =>
    ok({
      states: v.array(
        v.object({ name: v.string(), savedAt: v.string(), cookies: v.number(), origins: v.array(v.string()) }),
      ),
    }),
  example: "bp state list",
  runs: "broker",
  human: stateListText,
});

export const stateRemove = defineCommand({
  human: stateRemoveText,
  name: "state remove",
  group: "Network",
  summary: "Delete a saved state",
  positionals: ["name"],
  args: () => v.object({ name: stateName }),
  result: () => ok({}),
  example: "bp state remove github-login",
  runs: "broker",
  mutating: true,
});

const VIEWPORT = /^(\d{1,5})x(\d{1,5})$/;
const LATLON = /^(-?\d{1,3}(?:\.\d+)?),\s*(-?\d{1,3}(?:\.\d+)?)$/;
/** Width and height of a WxH viewport, or undefined when it is not one. */
export function viewportSize(s: string): { width: number; height: number } | undefined {
  const m = VIEWPORT.exec(s);
  return m ? { width: Number(m[1]), height: Number(m[2]) } : undefined;
}
export function latLon(s: string): { latitude: number; longitude: number } | undefined {
  const m = LATLON.exec(s);
  if (!m) return undefined;
  const latitude = Number(m[1]);
  const longitude = Number(m[2]);
  return Math.abs(latitude) <= 90 && Math.abs(longitude) <= 180 ? { latitude, longitude } : undefined;
}

/** What is in force on a tab: every field absent when not emulated. */
export const emulationState = () =>
  v.object({
    viewport: v.optional(v.string()),
    scale: v.optional(v.number()),
    mobile: v.optional(v.literal(true)),
    userAgent: v.optional(v.string()),
    colorScheme: v.optional(v.picklist(["light", "dark"])),
    reducedMotion: v.optional(v.literal(true)),
    timezone: v.optional(v.string()),
    locale: v.optional(v.string()),
    geolocation: v.optional(v.string()),
    offline: v.optional(v.literal(true)),
    throttle: v.optional(v.picklist(["slow-3g", "fast-3g"])),
    cpuSlowdown: v.optional(v.number()),
  });

export const emulate = defineCommand({
  name: "emulate",
  group: "Tabs and navigation",
  summary: "Emulate a device, locale, network or CPU (own tabs only); alone: what is in force",
  args: () =>
    v.pipe(
      v.object({
        viewport: optText("WIDTHxHEIGHT in CSS pixels, e.g. 390x844"),
        scale: v.optional(
          v.pipe(v.number(), v.minValue(0.1), v.maxValue(10), v.description("Device scale factor (0.1-10)")),
        ),
        mobile: flag("Mobile: touch events, a mobile user agent and viewport meta"),
        "user-agent": v.optional(
          v.pipe(
            v.string(),
            v.minLength(1, "The user agent is empty"),
            v.maxLength(1024, "The user agent is too long"),
            v.description("User-Agent header and navigator.userAgent"),
          ),
        ),
        "color-scheme": v.optional(
          v.pipe(
            v.picklist(["light", "dark"], "Color schemes are light or dark"),
            v.description("prefers-color-scheme: light or dark"),
          ),
        ),
        "reduced-motion": flag("prefers-reduced-motion: reduce"),
        timezone: v.optional(
          v.pipe(
            v.string(),
            v.regex(/^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/, "Give an IANA time zone like Europe/Berlin"),
            v.description("IANA time zone, e.g. Asia/Tokyo"),
          ),
        ),
        locale: v.optional(
          v.pipe(
            v.string(),
            v.regex(/^[A-Za-z]{2,3}([_-][A-Za-z0-9]{2,8})*$/, "Give a locale like de-DE"),
            v.description("ICU locale, e.g. de-DE"),
          ),
        ),
        geolocation: optText("LAT,LON, e.g. 52.52,13.40 (also grants the permission)"),
        offline: flag("No network"),
        throttle: v.optional(
          v.pipe(
            v.picklist(["slow-3g", "fast-3g"], "Throttle profiles are slow-3g or fast-3g"),
            v.description("Network profile: slow-3g or fast-3g"),
          ),
        ),
        "cpu-slowdown": v.optional(
          v.pipe(v.number(), v.minValue(1), v.maxValue(20), v.description("CPU slowdown factor (1-20; 1 is none)")),
        ),
        reset: flag("Clear every emulation of the tab (others given with it apply after)"),
      }),
      rule("viewport", "Give the viewport as WIDTHxHEIGHT, each 1-10000, e.g. 390x844.", (a) => {
        if (a.viewport === undefined) return false;
        const s = viewportSize(a.viewport);
        return !s || s.width < 1 || s.height < 1 || s.width > 10_000 || s.height > 10_000;
      }),
      rule(
        "geolocation",
        "Give the geolocation as LAT,LON in degrees, e.g. 52.52,13.40.",
        (a) => a.geolocation !== undefined && !latLon(a.geolocation),
      ),
      rule("offline", "Give --offline or --throttle, not both.", (a) => a.offline && a.throttle !== undefined),
    ),
  result: () => ok({ emulation: emulationState() }),
  example: "bp emulate --viewport 390x844 --scale 3 --mobile --color-scheme dark",
  runs: "broker",
  human: emulateText,
  mutating: true,
});

export const DEVTOOLS_COMMANDS = [consoleLog, storage, stateSave, stateLoad, stateList, stateRemove, emulate];
