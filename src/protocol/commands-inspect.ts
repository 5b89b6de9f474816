import * as v from "valibot";
import { defineCommand, flag, limitArg, ok } from "./define.ts";
import { findText, locateText, readText, searchText } from "./human-inspect.ts";

/** Attributes `bp find` reports when --attributes is not given (upstream's default set). */
export const FIND_DEFAULT_ATTRIBUTES = "id,class,name,type,href,placeholder,data-testid";
export const MAX_FIND_ATTRIBUTES = 20;
const ATTR_NAME = /^[^\s"'>/=\u0000-\u001f]{1,100}$/;

const selectorText = (description: string) =>
  v.pipe(
    v.string(),
    v.minLength(1, "Selector is empty"),
    v.maxLength(4096, "Selector is longer than 4096 characters"),
    v.description(description),
  );

/** "a, b,c" → ["a","b","c"]: trimmed, lower-cased, de-duplicated. */
export function splitAttributes(list: string): string[] {
  const out: string[] = [];
  for (const raw of list.split(",")) {
    const name = raw.trim().toLowerCase();
    if (name && !out.includes(name)) out.push(name);
  }
  return out;
}

const attributesArg = v.optional(
  v.pipe(
    v.string(),
    v.check((s) => splitAttributes(s).length > 0, "Give at least one attribute name"),
    v.check((s) => splitAttributes(s).length <= MAX_FIND_ATTRIBUTES, `At most ${MAX_FIND_ATTRIBUTES} attributes`),
    v.check(
      (s) => splitAttributes(s).every((a) => ATTR_NAME.test(a)),
      "Attribute names may not contain spaces, quotes, '>', '/' or '='",
    ),
    v.description(
      `Comma-separated attribute names to report (max ${MAX_FIND_ATTRIBUTES}; default ${FIND_DEFAULT_ATTRIBUTES})`,
    ),
  ),
);

/** Where a match is: its frame and, for a control the snapshot listed, its ref. */
const placed = {
  f: v.optional(v.pipe(v.string(), v.description("Frame number, as 'bp frame' lists it (absent in the top document)"))),
  r: v.optional(v.pipe(v.number(), v.description("Its own ref, from your latest snapshot of this page"))),
  container: v.optional(
    v.pipe(
      v.number(),
      v.description("Ref of the listed control it is inside (not its own: a click there may do something else)"),
    ),
  ),
};

const box = { x: v.number(), y: v.number(), width: v.number(), height: v.number() };

export const read = defineCommand({
  human: readText,
  name: "read",
  group: "Observation",
  summary: "Readable text of the page (nav, footer and hidden text stripped)",
  positionals: ["selector"],
  aliases: { l: "limit" },
  args: () =>
    v.object({
      selector: v.optional(selectorText("CSS selector of the part to read (default main, article, [role=main], body)")),
      limit: limitArg(3000, 100_000, "characters"),
    }),
  result: () =>
    ok({
      title: v.string(),
      url: v.string(),
      text: v.string(),
      length: v.optional(
        v.pipe(
          v.number(),
          v.description("Only when truncated: characters of readable text found; text holds the first --limit"),
        ),
      ),
      truncated: v.optional(v.literal(true)),
      hint: v.optional(v.string()),
    }),
  example: "bp read article --limit 8000",
  runs: "broker",
  observes: true,
});

export const search = defineCommand({
  human: searchText,
  name: "search",
  group: "Observation",
  summary: "Find visible text (open shadow DOM and all frames too)",
  positionals: ["query"],
  variadic: true,
  aliases: { l: "limit" },
  args: () =>
    v.object({
      query: v.pipe(
        v.string(),
        v.check((s) => s.trim().length > 0, "Query is empty"),
        v.maxLength(500, "Query is longer than 500 characters"),
        v.description("Text to find; whitespace runs match any whitespace"),
      ),
      selector: v.optional(selectorText("Only search inside elements matching this CSS selector")),
      "case-sensitive": flag("Match case exactly"),
      "whole-word": flag("Match whole words only"),
      limit: limitArg(20, 200, "matches"),
    }),
  result: () =>
    ok({
      title: v.string(),
      url: v.string(),
      matches: v.array(
        v.object({
          text: v.optional(
            v.pipe(v.string(), v.description("The text matched, when it is not the query as given (case, whitespace)")),
          ),
          context: v.pipe(v.string(), v.description("Up to 120 characters either side (at most 500)")),
          tagName: v.string(),
          visible: v.optional(
            v.pipe(v.literal(false), v.description("The match has no box inside the viewport (absent: in view)")),
          ),
          ...box,
          ...placed,
        }),
      ),
      totalMatches: v.optional(v.pipe(v.number(), v.description("Only when truncated: matches found"))),
      truncated: v.optional(v.literal(true)),
    }),
  example: "bp search 'Add to cart' --whole-word",
  runs: "broker",
  observes: true,
});

export const find = defineCommand({
  human: findText,
  name: "find",
  group: "Observation",
  summary: "Elements matching CSS, with refs (role, name, state, box)",
  positionals: ["selector"],
  aliases: { l: "limit" },
  args: () =>
    v.object({
      selector: selectorText("CSS selector"),
      limit: limitArg(20, 200),
      attributes: attributesArg,
      shadow: v.optional(v.pipe(v.boolean(), v.description("Search open shadow roots; --no-shadow skips them")), true),
    }),
  result: () =>
    ok({
      elements: v.array(
        v.object({
          tagName: v.string(),
          role: v.string(),
          name: v.optional(v.pipe(v.string(), v.description("Accessible name (absent: none)"))),
          text: v.optional(v.pipe(v.string(), v.description("Text content, when it is not the name (absent: none)"))),
          visible: v.optional(v.pipe(v.literal(false), v.description("Hidden (absent: visible)"))),
          enabled: v.optional(v.pipe(v.literal(false), v.description("Disabled (absent: enabled)"))),
          ...box,
          attributes: v.optional(
            v.pipe(
              v.array(v.object({ name: v.string(), value: v.string() })),
              v.description("Of those asked for, the ones it has (absent: none)"),
            ),
          ),
          ...placed,
        }),
      ),
      total: v.optional(v.pipe(v.number(), v.description("Only when truncated: elements found"))),
      truncated: v.optional(v.literal(true)),
    }),
  example: "bp find 'form input' --attributes name,type,required",
  runs: "broker",
  observes: true,
});

export const locate = defineCommand({
  human: locateText,
  name: "locate",
  group: "Observation",
  summary: "Scroll the first CSS match into view; its centre and box",
  positionals: ["selector"],
  args: () => v.object({ selector: selectorText("CSS selector") }),
  result: () =>
    ok({
      x: v.pipe(v.number(), v.description("Centre x in viewport CSS px")),
      y: v.pipe(v.number(), v.description("Centre y in viewport CSS px")),
      top: v.number(),
      left: v.number(),
      width: v.number(),
      height: v.number(),
    }),
  example: "bp locate '#checkout'",
  runs: "broker",
});
