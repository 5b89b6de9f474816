import * as v from "valibot";
import { fileResult, forceArg } from "./commands-capture.ts";
import { downloadItem } from "./download-item.ts";
import { defineCommand, flag, limitArg, ok, once, optText, text } from "./define.ts";
import { rule } from "./rules.ts";
import { downloadsText, netClearText, netRemoveText, netRulesText } from "./human.ts";
import { authText, cookiesText, downloadText, netShowText, netText, ruleText } from "./human-devtools.ts";

const pattern = text("URL pattern: '*' wildcards over the full URL, else a substring (case-insensitive)");
/** Lean: the new rule's id, and its headers as parsed (secret values masked); the rest is what the agent sent. */
const ruleResult = once(() =>
  ok({
    rule: v.object({ id: v.string(), headers: v.optional(v.record(v.string(), v.string())) }),
    intercepting: v.optional(
      v.pipe(v.number(), v.description("Tabs of this agent whose requests now pass through the rules")),
    ),
  }),
);

export const cookies = defineCommand({
  human: cookiesText,
  name: "cookies",
  topFlag: "values",
  group: "Network",
  summary: "Cookies of the tab or a domain (HttpOnly too); values only with --values",
  positionals: ["domain"],
  aliases: { l: "limit" },
  args: () =>
    v.object({
      domain: optText("Domain whose cookies to list (its subdomains' too); default the selected tab's URL"),
      values: flag("Include cookie values (secrets; each cut at 4096 characters)"),
      limit: limitArg(50, 1000, "cookies"),
    }),
  result: () =>
    ok({
      cookies: v.array(
        v.object({
          name: v.string(),
          value: v.optional(v.string()),
          valueLength: v.optional(
            v.pipe(v.number(), v.description("Length of the value (shown instead of it without --values)")),
          ),
          domain: v.string(),
          path: v.string(),
          expires: v.optional(v.pipe(v.string(), v.description("ISO time; absent for session cookies"))),
          httpOnly: v.optional(v.literal(true)),
          secure: v.optional(v.literal(true)),
          sameSite: v.optional(v.string()),
        }),
      ),
      total: v.optional(v.pipe(v.number(), v.description("Only when truncated: cookies found"))),
      truncated: v.optional(v.literal(true)),
    }),
  example: "bp cookies example.com --values",
  runs: "broker",
});

export const auth = defineCommand({
  human: authText,
  name: "auth",
  group: "Network",
  summary: "HTTP auth credentials (password on stdin); --clear removes them",
  positionals: ["user"],
  args: () =>
    v.pipe(
      v.object({
        user: v.optional(
          v.pipe(
            v.string(),
            v.minLength(1, "User name is empty"),
            v.maxLength(1024, "User name is too long"),
            v.description("User name for HTTP authentication"),
          ),
        ),
        "password-stdin": flag("Read the password from stdin (never give it as an argument)"),
        clear: flag("Forget the credentials"),
      }),
      rule("clear", "Give either a user name or --clear.", (a) => a.clear && a.user !== undefined),
      rule(
        "user",
        "Give the user name: bp auth <user> --password-stdin.",
        (a) => !a.clear && a.user === undefined && a["password-stdin"],
      ),
      rule(
        "password",
        "Pass the password on stdin with --password-stdin; it never goes on the command line.",
        (a) => !a.clear && a.user !== undefined && !a["password-stdin"],
      ),
    ),
  result: () => ok({ auth: v.picklist(["set", "cleared"]), intercepting: v.optional(v.number()) }),
  example: "printf '%s' \"$PASS\" | bp auth alice --password-stdin",
  runs: "broker",
  cli: { secret: { flag: "password-stdin", field: "password" } },
  mutating: true,
});

/** Built on first use, like the results that hold them (see defineCommand). */
const requestSummary = once(() =>
  v.object({
    id: v.pipe(v.number(), v.description("Request id for 'bp net show' and --after")),
    method: v.optional(v.pipe(v.string(), v.description("HTTP method (absent: GET)"))),
    url: v.string(),
    type: v.string(),
    status: v.optional(v.number()),
    size: v.optional(v.pipe(v.number(), v.description("Bytes received"))),
    time: v.optional(v.pipe(v.number(), v.description("Duration in ms"))),
    error: v.optional(v.string()),
    rule: v.optional(
      v.pipe(v.string(), v.description("What a rule did: blocked, mocked or headers (with the rule id)")),
    ),
    tab: v.optional(v.pipe(v.string(), v.description("The tab it came from (absent: the selected tab)"))),
  }),
);

/** One request in full: its summary without the id asked for, with headers and post data. */
const requestDetail = () => {
  const { id: _asked, ...summaryFields } = requestSummary().entries;
  const headers = v.record(v.string(), v.string());
  return v.object({
    ...summaryFields,
    statusText: v.optional(v.pipe(v.string(), v.description("Only when not the status code's standard reason phrase"))),
    mimeType: v.optional(
      v.pipe(v.string(), v.description("Only when the Content-Type response header does not say it")),
    ),
    requestHeaders: v.optional(headers),
    responseHeaders: v.optional(headers),
    postData: v.optional(v.pipe(v.string(), v.description("At most 4000 characters"))),
    postDataLength: v.optional(v.pipe(v.number(), v.description("Only when postData was cut: its full length"))),
  });
};

export const net = defineCommand({
  human: netText,
  name: "net",
  group: "Network",
  summary:
    "This agent's request journal (the selected tab's current document; with a filter or --all the whole journal)",
  aliases: { l: "limit" },
  args: () =>
    v.object({
      limit: limitArg(20, 1000, "requests"),
      all: flag("The whole journal (every tab and earlier document), not only the current document"),
      url: optText("URL pattern ('*' wildcards, else substring)"),
      method: optText("HTTP method, e.g. POST"),
      status: v.optional(
        v.pipe(
          v.string(),
          v.regex(/^([1-5]xx|[1-9]\d\d)$/i, "Give a status like 200 or a class like 4xx"),
          v.description("Status code (200) or class (4xx)"),
        ),
      ),
      type: optText("Comma list of types: document, xhr, fetch, script, stylesheet, image, other…"),
      after: v.optional(
        v.pipe(
          v.number(),
          v.integer(),
          v.minValue(0),
          v.description("Only requests after this id (the nextCursor of an earlier call)"),
        ),
      ),
    }),
  result: () =>
    ok({
      requests: v.array(requestSummary()),
      total: v.optional(
        v.pipe(v.number(), v.description("Only when truncated: matching requests kept (before --limit)")),
      ),
      truncated: v.optional(v.literal(true)),
      gap: v.optional(
        v.pipe(v.literal(true), v.description("Requests after --after were dropped from the bounded journal")),
      ),
      nextCursor: v.number(),
      covers: v.optional(
        v.pipe(
          v.object({ tab: v.string(), since: v.number() }),
          v.description(
            "A bare 'bp net': the list covers this tab's requests from its current document's request (id since) on",
          ),
        ),
      ),
    }),
  example: "bp net --type xhr,fetch --status 4xx",
  runs: "broker",
});

export const netShow = defineCommand({
  human: netShowText,
  name: "net show",
  group: "Network",
  family: "Request details and rules (block, mock, headers)",
  summary: "A request's headers and body; --save writes the body to a file",
  positionals: ["id"],
  aliases: { l: "limit" },
  args: () =>
    v.object({
      id: v.pipe(v.number(), v.integer(), v.minValue(1), v.description("Request id from 'bp net'")),
      save: optText(
        "Write the response body's bytes to this file (relative names resolve in BROWSER_PILOT_OUTPUT_DIR if set)",
      ),
      force: forceArg,
      limit: limitArg(4000, 100_000, "characters of body"),
      values: flag("Show the Cookie and Set-Cookie headers' values (secrets; masked otherwise)"),
    }),
  result: () =>
    v.union([
      ok({
        request: requestDetail(),
        body: v.optional(v.string()),
        bodyEncoding: v.optional(v.literal("base64")),
        bodyLength: v.optional(
          v.pipe(v.number(), v.description("Only when the body is cut or base64: its full length (bytes for base64)")),
        ),
        bodyTruncated: v.optional(v.literal(true)),
      }),
      v.pipe(ok({ ...fileResult }), v.description("With --save: the file result only")),
    ]),
  example: "bp net show 12 --save body.json",
  runs: "broker",
});

export const netBlock = defineCommand({
  human: ruleText("block"),
  name: "net block",
  group: "Network",
  summary: "Fail matching requests (BlockedByClient)",
  positionals: ["pattern"],
  args: () => v.object({ pattern }),
  result: ruleResult,
  example: "bp net block '*://*/ads/*'",
  runs: "broker",
  mutating: true,
});

export const netMock = defineCommand({
  human: ruleText("mock"),
  name: "net mock",
  group: "Network",
  summary: "Answer requests locally (--body, --file, --status, --header)",
  positionals: ["pattern"],
  localPaths: ["file"],
  args: () =>
    v.pipe(
      v.object({
        pattern,
        body: optText("Response body text"),
        file: optText("Response body from this file"),
        status: v.optional(
          v.pipe(v.number(), v.integer(), v.minValue(100), v.maxValue(599), v.description("HTTP status")),
          200,
        ),
        header: optText("Response header 'Name: value' (several: separate with newlines)"),
      }),
      rule("body", "Give --body or --file, not both.", (a) => a.body !== undefined && a.file !== undefined),
    ),
  result: ruleResult,
  example: "bp net mock '*/api/user' --body '{\"name\":\"Ada\"}' --header 'Content-Type: application/json'",
  runs: "broker",
  mutating: true,
});

export const netHeaders = defineCommand({
  human: ruleText("headers"),
  name: "net headers",
  group: "Network",
  summary: 'Set request headers ("Name: value"…, or --stdin)',
  positionals: ["pattern", "headers"],
  variadic: true,
  args: () =>
    v.pipe(
      v.object({
        pattern,
        headers: optText("One or more 'Name: value' arguments"),
        stdin: flag("Read 'Name: value' lines from stdin (keeps tokens out of the process list)"),
      }),
      rule("headers", "Give headers as arguments or on stdin, not both.", (a) => a.headers !== undefined && a.stdin),
    ),
  result: ruleResult,
  example: "bp net headers '*/api/*' 'X-Debug: 1'",
  runs: "broker",
  cli: { secret: { flag: "stdin", field: "headers" } },
  mutating: true,
});

export const netRules = defineCommand({
  name: "net rules",
  group: "Network",
  summary: "This agent's network rules (in the order they apply)",
  args: () => v.object({}),
  result: () => ok({ rules: v.array(v.record(v.string(), v.unknown())), intercepting: v.optional(v.number()) }),
  example: "bp net rules",
  runs: "broker",
  human: netRulesText,
});

export const netRemove = defineCommand({
  name: "net remove",
  group: "Network",
  summary: "Remove a rule, or --all",
  positionals: ["id"],
  args: () =>
    v.pipe(
      v.object({ id: optText("Rule id from 'bp net rules'"), all: flag("Remove every rule of this agent") }),
      rule("id", "Give a rule id or --all.", (a) => (a.id === undefined) === !a.all),
    ),
  result: () => ok({ removed: v.number(), remaining: v.number() }),
  example: "bp net remove r2",
  runs: "broker",
  human: netRemoveText,
  mutating: true,
});

export const netClear = defineCommand({
  name: "net clear",
  group: "Network",
  summary: "Empty the request journal (rules stay)",
  args: () => v.object({}),
  result: () => ok({ cleared: v.number() }),
  example: "bp net clear",
  runs: "broker",
  human: netClearText,
  mutating: true,
});

export const downloads = defineCommand({
  name: "downloads",
  group: "Files",
  summary: "Downloads from this agent's tabs (newest first)",
  args: () => v.object({}),
  result: () => ok({ downloads: v.array(downloadItem()) }),
  example: "bp downloads",
  runs: "broker",
  human: downloadsText,
});

export const download = defineCommand({
  human: downloadText,
  name: "download",
  group: "Files",
  summary: "Copy a finished download (Chrome's file is never touched)",
  positionals: ["id", "file"],
  args: () =>
    v.object({
      id: text("Download id from 'bp downloads' (dl1, …; a bare 1 means dl1)"),
      file: optText(
        "Output file (default: the download's own name in BROWSER_PILOT_OUTPUT_DIR or the working directory)",
      ),
      force: forceArg,
    }),
  result: () =>
    ok({ ...fileResult, id: v.optional(v.pipe(v.string(), v.description("Only when not the id given (1 → dl1)"))) }),
  example: "bp download dl1 report.csv",
  runs: "broker",
});

export const NET_COMMANDS = [
  cookies,
  auth,
  net,
  netShow,
  netBlock,
  netMock,
  netHeaders,
  netRules,
  netRemove,
  netClear,
  downloads,
  download,
];
