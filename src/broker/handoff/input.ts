/**
 * The person's input from the viewer page, schema-checked and replayed with CDP Input events; coordinates arrive
 * normalised (0..1).
 */
import * as v from "valibot";
import type { CdpSession } from "../../cdp/session.ts";
import { forgetPointer } from "../pointer-at.ts";

const unit = v.pipe(v.number(), v.minValue(0), v.maxValue(1));
const mods = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(15));
const delta = v.pipe(v.number(), v.minValue(-10_000), v.maxValue(10_000));

export const viewerMessage = v.variant("type", [
  v.object({
    type: v.literal("mouse"),
    action: v.picklist(["down", "up"]),
    button: v.picklist([0, 1, 2]),
    x: unit,
    y: unit,
    mods,
    clicks: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(3)),
  }),
  // Pointer movement for hover menus and drags; buttons is the DOM bitmask of held buttons.
  v.object({
    type: v.literal("move"),
    x: unit,
    y: unit,
    buttons: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(7)),
    mods,
  }),
  v.object({ type: v.literal("wheel"), x: unit, y: unit, dx: delta, dy: delta }),
  v.object({
    type: v.literal("key"),
    action: v.picklist(["down", "up"]),
    key: v.pipe(v.string(), v.minLength(1), v.maxLength(32)),
    code: v.pipe(v.string(), v.maxLength(32)),
    keyCode: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(255)),
    mods,
  }),
  v.object({ type: v.literal("text"), text: v.pipe(v.string(), v.maxLength(10_000)) }),
  v.object({ type: v.literal("handback") }),
]);

export type ViewerMessage = v.InferOutput<typeof viewerMessage>;
export type InputMessage = Exclude<ViewerMessage, { type: "handback" }>;

const BUTTONS = ["left", "middle", "right"] as const;
const BUTTON_BITS = [1, 4, 2] as const;

export interface Viewport {
  width: number;
  height: number;
}

export async function viewportOf(session: CdpSession): Promise<Viewport> {
  const m = await session.send("Page.getLayoutMetrics", undefined, { timeoutMs: 2_000 });
  return { width: m.cssVisualViewport.clientWidth, height: m.cssVisualViewport.clientHeight };
}

export async function dispatchInput(session: CdpSession, vp: Viewport, m: InputMessage): Promise<void> {
  // The person moves the pointer: an agent's next click moves it back first.
  if (m.type === "mouse" || m.type === "move" || m.type === "wheel") forgetPointer(session);
  switch (m.type) {
    case "mouse": {
      const x = m.x * vp.width;
      const y = m.y * vp.height;
      const button = BUTTONS[m.button] ?? "left";
      if (m.action === "down") {
        await session.send("Input.dispatchMouseEvent", { type: "mouseMoved", x, y, modifiers: m.mods });
        await session.send("Input.dispatchMouseEvent", {
          type: "mousePressed",
          x,
          y,
          button,
          buttons: BUTTON_BITS[m.button] ?? 1,
          clickCount: m.clicks,
          modifiers: m.mods,
        });
      } else {
        await session.send("Input.dispatchMouseEvent", {
          type: "mouseReleased",
          x,
          y,
          button,
          buttons: 0,
          clickCount: m.clicks,
          modifiers: m.mods,
        });
      }
      return;
    }
    case "move": {
      // CDP wants the held button named as well as the bitmask, or a drag is only a hover.
      const held = m.buttons & 1 ? "left" : m.buttons & 4 ? "middle" : m.buttons & 2 ? "right" : "none";
      await session.send("Input.dispatchMouseEvent", {
        type: "mouseMoved",
        x: m.x * vp.width,
        y: m.y * vp.height,
        button: held,
        buttons: m.buttons,
        modifiers: m.mods,
      });
      return;
    }
    case "wheel":
      await session.send("Input.dispatchMouseEvent", {
        type: "mouseWheel",
        x: m.x * vp.width,
        y: m.y * vp.height,
        deltaX: m.dx,
        deltaY: m.dy,
      });
      return;
    case "key": {
      const base = {
        key: m.key,
        code: m.code,
        windowsVirtualKeyCode: m.keyCode,
        nativeVirtualKeyCode: m.keyCode,
        modifiers: m.mods,
      };
      if (m.action === "up") {
        await session.send("Input.dispatchKeyEvent", { type: "keyUp", ...base });
        return;
      }
      // Ctrl/Alt/Meta chords are shortcuts, not text; a single character (or Enter) types.
      const chord = (m.mods & 0b111) !== 0;
      const text = chord ? undefined : m.key.length === 1 ? m.key : m.key === "Enter" ? "\r" : undefined;
      await session.send(
        "Input.dispatchKeyEvent",
        text !== undefined ? { type: "keyDown", ...base, text, unmodifiedText: text } : { type: "rawKeyDown", ...base },
      );
      return;
    }
    case "text":
      if (m.text !== "") await session.send("Input.insertText", { text: m.text });
      return;
  }
}
