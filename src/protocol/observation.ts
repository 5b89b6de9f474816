import * as v from "valibot";
import { once } from "./define.ts";

/**
 * The observation a snapshot answers with, and an action after its evidence: lean (no empty
 * lists, no defaults; `total` and the truncation fields only when the list was cut). Built on
 * first use, like the result schemas that carry it (src/protocol/define.ts).
 */
export const observationSchemas = once(() => {
  const record = v.record(v.string(), v.unknown());
  // src/protocol/elements.ts: [ref, role, name?, {more}?], a text block as a string, a heading, fold or churn run as an object.
  const entry = v.pipe(
    v.union([v.array(v.unknown()), v.string(), record]),
    v.description(
      'An element [ref, role, name, {v, s, …}] (name and object only when not empty); a text block "…"; {h, x} a heading; {fold, …} and {replaced, …} runs',
    ),
  );

  const observation = {
    title: v.optional(v.pipe(v.string(), v.description("Absent with --diff (a new title is in the diff)"))),
    url: v.optional(v.pipe(v.string(), v.description("Absent with --diff (a new url is in the diff)"))),
    urlTruncated: v.optional(v.literal(true)),
    page: v.optional(
      v.pipe(
        v.record(v.string(), v.number()),
        v.description("Only for a page that scrolls: per scrolling axis vw/dw, vh/dh, and sx/sy when not 0"),
      ),
    ),
    elements: v.optional(v.array(entry)),
    total: v.optional(v.pipe(v.number(), v.description("Only when truncated: candidates found"))),
    truncated: v.optional(v.literal(true)),
    truncationReasons: v.optional(v.array(v.string())),
    hints: v.optional(
      v.pipe(
        v.array(record),
        v.description("The page's hints (overlay, authentication, …), then the watchdogs' (see any command's hints)"),
      ),
    ),
    hint: v.optional(v.string()),
  };

  const changes = {
    added: v.optional(v.array(entry)),
    removed: v.optional(
      v.pipe(v.array(v.union([v.number(), v.string()])), v.description('Refs gone; 3 or more consecutive as "a-b"')),
    ),
    changed: v.optional(v.array(entry)),
    announced: v.optional(
      v.pipe(
        v.array(v.string()),
        v.description(
          "What the page's live regions (status, alert, log, aria-live, output) say now that they did not before: a toast, an error, a log's new line",
        ),
      ),
    ),
    text: v.optional(
      v.pipe(
        v.array(v.string()),
        v.description(
          "Text that is no control and appeared or changed (a status line, a result, a month title): at most 3 of 160 characters, nearest the change first",
        ),
      ),
    ),
    order: v.optional(
      v.pipe(
        v.array(v.string()),
        v.description("Listed elements that moved among each other: their names in the new order"),
      ),
    ),
    title: v.optional(v.string()),
    url: v.optional(v.string()),
  };

  return {
    observation,
    /** What changed since the agent's previous observation of the same document. */
    diff: v.object({
      added: changes.added,
      removed: changes.removed,
      changed: changes.changed,
      announced: changes.announced,
      text: changes.text,
      order: changes.order,
      unchanged: v.number(),
      more: v.optional(v.pipe(v.number(), v.description("Human output only: new elements beyond the limit"))),
      title: changes.title,
      url: changes.url,
    }),
    /** An action's diff: only what changed (no count of what did not). */
    actionDiff: v.object(changes),
    /** Why a --diff came back whole. */
    diffFallback: v.optional(v.picklist(["document_changed", "no_previous_observation"])),
  };
});
