import * as v from "valibot";
import { defineCommand, flag, limitArg, ok, okPlain } from "./define.ts";
import { observationSchemas } from "./observation.ts";
import { snapshotText } from "./human-snapshot.ts";

export const snapshot = defineCommand({
  human: snapshotText,
  name: "snapshot",
  group: "Observation",
  summary: "Interactive elements with numbered refs (stable within a document)",
  aliases: { l: "limit", d: "diff" },
  args: () =>
    v.object({
      limit: limitArg(50, 10_000),
      diff: flag("Only what changed since this agent's previous snapshot of the same document"),
      expand: v.optional(
        v.pipe(v.number(), v.integer(), v.minValue(1), v.description("List a window around this ref of a folded run")),
      ),
      find: v.optional(
        v.pipe(
          v.string(),
          v.minLength(1),
          v.maxLength(200),
          v.description("Only elements whose name or value contains this text"),
        ),
      ),
      boxes: flag("Include element boxes [x,y,w,h] in viewport CSS px"),
      text: flag('Also headings ({h,x}) and short text blocks ("…") in document order among the controls'),
    }),
  result: () => {
    const { observation, diff, diffFallback } = observationSchemas();
    return okPlain({ ...observation, diff: v.optional(diff), diffFallback });
  },
  example: "bp snapshot --limit 200",
  runs: "broker",
  observes: true,
});

export const frame = defineCommand({
  name: "frame",
  group: "Observation",
  summary: "List frames, or scope commands to one (frame <index>; 0 = top)",
  positionals: ["index"],
  args: () =>
    v.object({
      index: v.optional(
        v.pipe(
          v.number(),
          v.integer(),
          v.minValue(0),
          v.maxValue(10_000),
          v.description("Frame index from 'bp frame'"),
        ),
      ),
    }),
  result: () =>
    ok({
      frames: v.optional(
        v.array(
          v.object({
            index: v.number(),
            url: v.string(),
            name: v.optional(v.pipe(v.string(), v.description("The frame's name (absent: none)"))),
            parent: v.optional(v.number()),
            crossOrigin: v.optional(v.pipe(v.literal(true), v.description("Out of process, with its own session"))),
            selected: v.optional(v.pipe(v.literal(true), v.description("Where later commands run"))),
          }),
        ),
      ),
      url: v.optional(v.pipe(v.string(), v.description("With an index: the URL of the frame now selected"))),
    }),
  example: "bp frame 1",
  runs: "broker",
});
