import * as v from "valibot";
import { defineCommand, flag, limitArg, ok, optText } from "./define.ts";

const refArg = (description: string) => v.pipe(v.number(), v.integer(), v.minValue(1), v.description(description));
const evidence = v.record(v.string(), v.unknown());
export const actionResult = ok({
  evidence,
  tab: v.optional(v.string()),
  title: v.optional(v.string()),
  url: v.optional(v.string()),
  elements: v.optional(v.array(v.record(v.string(), v.unknown()))),
  diff: v.optional(v.record(v.string(), v.unknown())),
  hint: v.optional(v.string()),
});
export const observeFlags = {
  limit: limitArg(50, 10_000),
  full: flag("Return the whole observation instead of what changed"),
};

export const click = defineCommand({
  name: "click",
  group: "Actions",
  summary: "Click a ref (checked first: visible, enabled, not covered) or --xy; returns evidence and what changed",
  positionals: ["ref"],
  aliases: { l: "limit" },
  args: v.object({
    ref: v.optional(refArg("Element ref from the latest snapshot")),
    xy: optText("Viewport CSS px 'x,y' instead of a ref"),
    double: flag("Double-click"),
    right: flag("Right-click"),
    ...observeFlags,
  }),
  result: actionResult,
  example: "bp click 12",
  runs: "broker",
  mutating: true,
});

export const dialogs = defineCommand({
  name: "dialogs",
  group: "Actions",
  summary: "Pending JavaScript dialogs of this agent's tabs (never answered for you)",
  args: v.object({}),
  result: ok({ dialogs: v.array(v.object({ id: v.string(), tab: v.string(), type: v.string(), message: v.string(), defaultPrompt: v.string(), url: v.string(), openedAt: v.string() })) }),
  example: "bp dialogs",
  runs: "broker",
});

export const dialog = defineCommand({
  name: "dialog",
  group: "Actions",
  summary: "Answer a pending dialog: --accept or --dismiss (with --prompt text for prompts)",
  positionals: ["id"],
  args: v.object({
    id: v.pipe(v.string(), v.regex(/^d[1-9][0-9]{0,8}$/, "Dialog ids look like d1"), v.description("Dialog id from 'bp dialogs'")),
    accept: flag("Accept (OK)"),
    dismiss: flag("Dismiss (Cancel)"),
    prompt: optText("Text for a prompt() dialog (with --accept)"),
  }),
  result: ok({ id: v.string(), action: v.picklist(["accept", "dismiss"]) }),
  example: "bp dialog d1 --accept",
  runs: "broker",
  mutating: true,
});
