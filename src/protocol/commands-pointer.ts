import * as v from "valibot";
import { defineCommand, ok } from "./define.ts";
import { focusText } from "./human.ts";
import { mouseText } from "./human-devtools.ts";

/* Raw pointer input and focus, for canvas, sliders and hand-made drags that 'drag' cannot express. */

const POINT = /^\s*-?\d+(\.\d+)?\s*,\s*-?\d+(\.\d+)?\s*$/;

export const mouse = defineCommand({
  human: mouseText,
  name: "mouse",
  group: "Actions",
  summary:
    "Raw mouse input at X,Y; move, down, up or wheel at viewport coordinates (a held button stays held until up)",
  positionals: ["action", "at"],
  args: () =>
    v.object({
      action: v.pipe(v.picklist(["move", "down", "up", "wheel"]), v.description("move, down, up or wheel")),
      at: v.pipe(
        v.string(),
        v.regex(POINT, "Give the point as X,Y in CSS pixels of the viewport"),
        v.description("X,Y in CSS pixels of the viewport"),
      ),
      button: v.optional(v.pipe(v.picklist(["left", "right", "middle"]), v.description("Button for down/up")), "left"),
      delta: v.optional(
        v.pipe(
          v.string(),
          v.regex(POINT, "Give the wheel delta as DX,DY"),
          v.description("Wheel delta DX,DY in pixels (default 0,100: down)"),
        ),
      ),
    }),
  result: () =>
    ok({
      x: v.number(),
      y: v.number(),
      buttons: v.optional(v.pipe(v.array(v.string()), v.description("Buttons held after this event"))),
    }),
  example: "bp mouse down 120,80",
  runs: "broker",
  mutating: true,
});

export const focus = defineCommand({
  name: "focus",
  group: "Actions",
  summary: "Focus a ref; keys from 'bp keyboard' and 'bp press' then go to it",
  positionals: ["ref"],
  args: () =>
    v.object({
      ref: v.pipe(v.number(), v.integer(), v.minValue(1), v.description("Ref from the latest snapshot")),
    }),
  result: () =>
    ok({
      focused: v.pipe(v.string(), v.description("The focused element: role or tag, and its name")),
    }),
  example: "bp focus 7",
  runs: "broker",
  human: focusText,
  mutating: true,
});

export const POINTER_COMMANDS = [mouse, focus];
