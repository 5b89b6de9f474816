import * as v from "valibot";
import { defineCommand, flag, limitArg, ok, okPlain, optText, text } from "./define.ts";
import { evidenceSchemas } from "./evidence.ts";
import { dropdownText } from "./human-inspect.ts";
import { actionText } from "./human-snapshot.ts";
import { observationSchemas } from "./observation.ts";
import { rule } from "./rules.ts";

const refArg = (description: string) =>
  v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(Number.MAX_SAFE_INTEGER), v.description(description));
/**
 * An action's reply: its evidence, then what the page did (the diff since the agent's last
 * observation, or the new document's observation after a navigation, or with --full the whole
 * one), lean like a snapshot's but with nothing unchanged (no page geometry or counts).
 */
const actionResult = <E extends v.GenericSchema>(evidence: E) => {
  const { observation, actionDiff, diffFallback } = observationSchemas();
  return okPlain({
    evidence,
    tab: v.optional(v.string()),
    title: observation.title,
    url: observation.url,
    elements: observation.elements,
    diff: v.optional(actionDiff),
    diffFallback,
    hint: observation.hint,
    hints: observation.hints,
    truncated: observation.truncated,
    truncationReasons: observation.truncationReasons,
    urlTruncated: observation.urlTruncated,
    times: v.optional(
      v.pipe(v.number(), v.description("click --times: the clicks made (the reply is the last one's)")),
    ),
    view: v.optional(
      v.pipe(
        v.object({
          action: v.string(),
          effects: v.optional(v.array(v.string())),
          observation: v.optional(v.record(v.string(), v.unknown())),
        }),
        v.description("Human output only: the action, all its effects and its observation untrimmed, for its text"),
      ),
    ),
  });
};
export const observeFlags = {
  limit: limitArg(50, 10_000),
  full: flag("Return the whole observation instead of what changed"),
};

export const click = defineCommand({
  human: actionText,
  name: "click",
  group: "Actions",
  summary: "Click a ref (checked first: visible, enabled, not covered) or --xy",
  positionals: ["ref"],
  aliases: { l: "limit" },
  args: () =>
    v.pipe(
      v.object({
        ref: v.optional(refArg("Element ref from the latest snapshot")),
        xy: optText("Viewport CSS px 'x,y' instead of a ref"),
        text: v.optional(
          v.pipe(
            v.string(),
            v.minLength(1),
            v.maxLength(200),
            v.description(
              "Instead of a ref: the visible control whose name is TEXT (case-insensitive; else the one name containing it); several → error listing them with refs",
            ),
          ),
        ),
        times: v.optional(
          v.pipe(
            v.number(),
            v.integer(),
            v.minValue(1),
            v.maxValue(50),
            v.description("Click this many times (a --text target is found anew each time); one reply, for the last"),
          ),
        ),
        double: flag("Double-click"),
        right: flag("Right-click"),
        ...observeFlags,
      }),
      rule(
        "ref",
        "Give exactly one of a ref, --xy or --text.",
        (a) => [a.ref, a.xy, a.text].filter((t) => t !== undefined).length !== 1,
      ),
      rule("button", "--double and --right cannot be combined.", (a) => a.double === true && a.right === true),
    ),
  result: () => actionResult(evidenceSchemas().click),
  example: "bp click 12 | bp click --text Prev --times 3",
  runs: "broker",
  pointer: true,
  mutating: true,
});

export const dialogs = defineCommand({
  name: "dialogs",
  group: "Actions",
  summary: "Pending JavaScript dialogs (never answered for you)",
  args: () => v.object({}),
  result: () =>
    ok({
      dialogs: v.array(
        v.object({
          id: v.string(),
          tab: v.string(),
          type: v.string(),
          message: v.string(),
          defaultPrompt: v.optional(v.pipe(v.string(), v.description("A prompt's default text (absent: none)"))),
          url: v.string(),
          openedAt: v.string(),
        }),
      ),
    }),
  example: "bp dialogs",
  runs: "broker",
  aboutDialogs: true,
});

export const dialog = defineCommand({
  human: actionText,
  name: "dialog",
  group: "Actions",
  summary: "Answer a dialog: --accept or --dismiss (--prompt text)",
  positionals: ["id"],
  args: () =>
    v.pipe(
      v.object({
        id: v.pipe(
          v.string(),
          v.regex(/^d[1-9][0-9]{0,8}$/, "Dialog ids look like d1"),
          v.description("Dialog id from 'bp dialogs'"),
        ),
        accept: flag("Accept (OK)"),
        dismiss: flag("Dismiss (Cancel)"),
        prompt: optText("Text for a prompt() dialog (with --accept)"),
        ...observeFlags,
      }),
      rule("accept", "Give exactly one of --accept or --dismiss.", (a) => a.accept === a.dismiss),
    ),
  result: () => {
    const evidence = evidenceSchemas().dialog;
    return okPlain({
      id: v.string(),
      action: v.picklist(["accept", "dismiss"]),
      ...actionResult(evidence).entries,
      evidence: v.optional(evidence),
    });
  },
  example: "bp dialog d1 --accept",
  runs: "broker",
  aboutDialogs: true,
  mutating: true,
});

const observing = { ...observeFlags };

export const type = defineCommand({
  human: actionText,
  name: "type",
  group: "Actions",
  summary: "Type into a textbox; the value is read back",
  positionals: ["ref", "text"],
  stdinArg: "text",
  aliases: { c: "clear", s: "submit", l: "limit" },
  args: () =>
    v.object({
      ref: refArg("Element ref of a textbox or editable element"),
      text: text("Text to type; omit it to read stdin, which keeps secrets out of the process list"),
      clear: flag("Select all and delete before typing"),
      submit: flag("Press Enter after typing"),
      ...observing,
    }),
  result: () => actionResult(evidenceSchemas().type),
  example: 'bp type 4 "alice@example.com" --clear',
  runs: "broker",
  mutating: true,
});

export const keyboard = defineCommand({
  human: actionText,
  name: "keyboard",
  group: "Actions",
  summary: "Type key by key into what has focus",
  positionals: ["text"],
  stdinArg: "text",
  aliases: { c: "clear", s: "submit", d: "delay", l: "limit" },
  args: () =>
    v.object({
      text: text("Text to type key by key; omit it to read stdin"),
      clear: flag("Select all (Control/Meta+A) and delete first"),
      submit: flag("Press Enter afterwards"),
      delay: v.optional(
        v.pipe(
          v.number(),
          v.integer(),
          v.minValue(0),
          v.maxValue(1000),
          v.description("Pause between keys in ms (0-1000)"),
        ),
      ),
      ...observing,
    }),
  result: () => actionResult(evidenceSchemas().keyboard),
  example: 'bp keyboard "Hello" --delay 20',
  runs: "broker",
  mutating: true,
});

export const press = defineCommand({
  human: actionText,
  name: "press",
  group: "Actions",
  summary: "Press a key or chord (Enter, Control+a)",
  positionals: ["key"],
  aliases: { l: "limit" },
  args: () =>
    v.object({
      key: text("Key, optionally with modifiers joined by + (Control/Ctrl, Shift, Alt, Meta/Cmd)"),
      ...observing,
    }),
  result: () => actionResult(evidenceSchemas().press),
  example: "bp press Control+a",
  runs: "broker",
  mutating: true,
});

export const scroll = defineCommand({
  human: actionText,
  name: "scroll",
  group: "Actions",
  summary: "Scroll: a direction, --to or --to-text",
  positionals: ["direction"],
  aliases: { l: "limit" },
  args: () =>
    v.pipe(
      v.object({
        direction: v.optional(
          v.pipe(v.picklist(["up", "down", "left", "right"]), v.description("Direction to scroll")),
        ),
        amount: v.optional(
          v.pipe(
            v.number(),
            v.minValue(0.01),
            v.maxValue(100_000),
            v.description("How far (default 1 viewport, or 300 with --unit pixels)"),
          ),
        ),
        unit: v.optional(v.pipe(v.picklist(["viewport", "pixels"]), v.description("Unit of --amount")), "viewport"),
        ref: v.optional(refArg("Scroll this element (or its scrollable ancestor) instead of the page")),
        selector: optText("CSS selector of the element to scroll (in the selected frame)"),
        to: v.optional(v.pipe(v.picklist(["start", "end"]), v.description("Scroll to the top or the bottom"))),
        "to-text": optText("Scroll until this text is in view"),
        exact: flag("With --to-text: case-sensitive whole-text match"),
        ...observing,
      }),
      rule(
        "direction",
        "Give exactly one of a direction (up, down, left, right), --to start|end, or --to-text <text>.",
        (a) => [a.direction, a.to, a["to-text"]].filter((m) => m !== undefined).length !== 1,
      ),
      rule(
        "selector",
        "Use either --ref or --selector, not both.",
        (a) => a.ref !== undefined && a.selector !== undefined,
      ),
      rule("exact", "--exact goes with --to-text.", (a) => a.exact === true && a["to-text"] === undefined),
      rule("amount", "--amount goes with a direction.", (a) => a.amount !== undefined && a.direction === undefined),
      rule(
        "to-text",
        "--to-text needs some text.",
        (a) => typeof a["to-text"] === "string" && a["to-text"].trim() === "",
      ),
    ),
  result: () => actionResult(evidenceSchemas().scroll),
  example: "bp scroll down --amount 2",
  runs: "broker",
  mutating: true,
});

/** Lean: the value only when it is not the label; selected and disabled only when true. */
const option = () =>
  v.object({
    index: v.pipe(v.number(), v.description("For 'bp select --by index'")),
    label: v.string(),
    value: v.optional(v.pipe(v.string(), v.description("Absent: the same as the label"))),
    selected: v.optional(v.literal(true)),
    disabled: v.optional(v.literal(true)),
  });

export const dropdown = defineCommand({
  human: dropdownText,
  name: "dropdown",
  group: "Actions",
  summary: "List a dropdown's options",
  positionals: ["ref"],
  args: () => v.object({ ref: refArg("Element ref of a select, listbox or combobox") }),
  result: () =>
    ok({
      kind: v.picklist(["native", "aria"]),
      expanded: v.optional(v.literal(true)),
      multiple: v.optional(v.literal(true)),
      requiresOpen: v.optional(
        v.pipe(v.literal(true), v.description("The options appear only when the list is opened")),
      ),
      options: v.array(option()),
      truncated: v.optional(v.literal(true)),
      hint: v.optional(v.string()),
    }),
  example: "bp dropdown 7",
  runs: "broker",
});

export const select = defineCommand({
  human: actionText,
  name: "select",
  group: "Actions",
  summary: "Choose a dropdown option",
  positionals: ["ref", "option"],
  aliases: { l: "limit" },
  args: () =>
    v.pipe(
      v.object({
        ref: refArg("Element ref of a select, listbox or combobox"),
        option: text("Option label (exact, case-insensitive), value, or index from 'bp dropdown'"),
        by: v.optional(
          v.pipe(v.picklist(["label", "value", "index"]), v.description("How to match the option")),
          "label",
        ),
        contains: flag("Match a label containing the text"),
        ...observing,
      }),
      rule(
        "option",
        "With --by index the option is a number from 'bp dropdown'.",
        (a) => a.by === "index" && !/^\s*\d+\s*$/.test(a.option),
      ),
    ),
  result: () => actionResult(evidenceSchemas().select),
  example: 'bp select 7 "Canada"',
  runs: "broker",
  mutating: true,
});

export const upload = defineCommand({
  human: actionText,
  name: "upload",
  group: "Files",
  summary: "Fill a file input (private copy)",
  positionals: ["ref", "file"],
  localPaths: ["file"],
  aliases: { l: "limit" },
  args: () =>
    v.object({
      ref: refArg("Element ref of a file input (or its label or drop zone)"),
      file: text("Path of the file to upload"),
      ...observing,
    }),
  result: () => actionResult(evidenceSchemas().upload),
  example: "bp upload 9 ./resume.pdf",
  runs: "broker",
  mutating: true,
});

export const hover = defineCommand({
  human: actionText,
  name: "hover",
  group: "Actions",
  summary: "Move the pointer onto a ref",
  positionals: ["ref"],
  aliases: { l: "limit" },
  args: () => v.object({ ref: refArg("Element ref to hover"), ...observing }),
  result: () => actionResult(evidenceSchemas().hover),
  example: "bp hover 5",
  runs: "broker",
  pointer: true,
  mutating: true,
});

export const drag = defineCommand({
  human: actionText,
  name: "drag",
  group: "Actions",
  summary: "Drag a ref onto another (--offset from its centre) or to --to-xy",
  positionals: ["from", "to"],
  aliases: { l: "limit" },
  args: () =>
    v.pipe(
      v.object({
        from: refArg("Element ref to drag"),
        to: v.optional(refArg("Element ref to drop onto")),
        offset: optText("Drop point 'dx,dy' CSS px from the target's centre (e.g. below the last item of a list)"),
        "to-xy": optText("Drop at viewport CSS px 'x,y' instead of on a ref"),
        ...observing,
      }),
      rule(
        "to",
        "Give exactly one of a target ref or --to-xy.",
        (a) => (a.to === undefined) === (a["to-xy"] === undefined),
      ),
    ),
  result: () => actionResult(evidenceSchemas().drag),
  example: "bp drag 3 8 --offset 0,20",
  runs: "broker",
  pointer: true,
  mutating: true,
});

export const INPUT_COMMANDS = [type, keyboard, press, scroll, dropdown, select, upload, hover, drag];
