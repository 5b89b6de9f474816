/**
 * 'bp mouse' and 'bp focus': raw input for what the verified actions cannot express (canvas,
 * sliders, hand-made drags). No checks of a target and no settle: the agent chose the point.
 */
import type { CdpSession } from "../../cdp/session.ts";
import * as commands from "../../protocol/commands-pointer.ts";
import { BpError, invalidArgument } from "../../shared/errors.ts";
import { moveMouse } from "../act/pointer.ts";
import { defineHandler } from "../context/handler.ts";
import { selectedTab } from "../context/tabs.ts";
import type { Handler } from "../context/types.ts";
import { resolveRef, staleRef } from "../observe/resolve-ref.ts";
import { forgetPointer } from "../pointer-at.ts";
import { pageObject } from "../world.ts";

type Button = "left" | "right" | "middle";
const BITS: Record<Button, number> = { left: 1, right: 2, middle: 4 };

/** Buttons an agent pressed with 'mouse down' and has not released, per page session. */
const held = new WeakMap<CdpSession, Set<Button>>();

function point(text: string, field: string): [number, number] {
  const [x = NaN, y = NaN] = text.split(",").map((s) => Number(s.trim()));
  if (!Number.isFinite(x) || !Number.isFinite(y))
    throw invalidArgument(field, `Give ${field === "at" ? "the point as X,Y" : "the delta as DX,DY"}.`);
  if (field === "at" && (x < 0 || y < 0))
    throw invalidArgument(field, "The point is in viewport CSS pixels: X and Y are 0 or more.");
  return [x, y];
}

const mouseHandler = defineHandler(commands.mouse)({
  async run(ctx, { action, at, button, delta }) {
    const [x, y] = point(at, "at");
    const [dx, dy] = delta !== undefined ? point(delta, "delta") : [0, 100];
    if (delta !== undefined && action !== "wheel") throw invalidArgument("delta", "--delta goes with 'mouse wheel'.");
    const { browser, rec } = selectedTab(ctx);
    return ctx.broker.exclusive(rec.targetId, async () => {
      const session = await browser.session(rec);
      const down = held.get(session) ?? new Set<Button>();
      held.set(session, down);
      const mask = () => [...down].reduce((m, b) => m | BITS[b], 0);
      // The page sees this pointer wherever the agent put it: the click cache must not assume otherwise.
      forgetPointer(session);
      ctx.markDispatched();
      if (action === "move") {
        await moveMouse(session, x, y, undefined, mask());
      } else if (action === "down") {
        down.add(button);
        await session.send("Input.dispatchMouseEvent", {
          type: "mousePressed",
          x,
          y,
          button,
          buttons: mask(),
          clickCount: 1,
        });
      } else if (action === "up") {
        down.delete(button);
        await session.send("Input.dispatchMouseEvent", {
          type: "mouseReleased",
          x,
          y,
          button,
          buttons: mask(),
          clickCount: 1,
        });
      } else {
        await session.send("Input.dispatchMouseEvent", {
          type: "mouseWheel",
          x,
          y,
          deltaX: dx,
          deltaY: dy,
          buttons: mask(),
        });
      }
      const out = { x, y, ...(down.size > 0 ? { buttons: [...down] } : {}) };
      return out;
    });
  },
});

/** Focuses the element and says what holds focus then (inside shadow roots too). */
const FOCUS_FN = `function () {
  this.focus();
  let a = this.ownerDocument.activeElement;
  while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
  const ok = a === this || this.contains(a) || (this.shadowRoot !== null && this.shadowRoot !== undefined && this.shadowRoot.contains(a));
  const role = this.getAttribute("role") || this.tagName.toLowerCase();
  const name = (this.getAttribute("aria-label") || this.getAttribute("placeholder") || this.innerText || "").trim().replace(/\\s+/g, " ").slice(0, 60);
  return { focused: ok, label: name ? role + ' "' + name + '"' : role };
}`;

const focusHandler = defineHandler(commands.focus)({
  async run(ctx, { ref }) {
    const sel = selectedTab(ctx);
    return ctx.broker.exclusive(sel.rec.targetId, async () => {
      const r = await resolveRef(sel, ref);
      const objectId = await pageObject(r.session, r.binding.frameId, "refElement", ref);
      if (!objectId) throw staleRef(ref, "node_detached");
      try {
        ctx.markDispatched();
        const res = await r.session.send("Runtime.callFunctionOn", {
          objectId,
          functionDeclaration: FOCUS_FN,
          returnByValue: true,
        });
        const value = res.result.value as { focused?: boolean; label?: string } | undefined;
        if (!value?.focused) {
          throw new BpError("action_not_verified", `Ref ${ref} did not take focus (it is not focusable).`, {
            retryable: false,
            context: { ref, reason: "not_focusable", dispatched: true },
          });
        }
        const focused = value.label ?? "element";
        return { focused };
      } finally {
        r.session.send("Runtime.releaseObject", { objectId }).catch(() => undefined);
      }
    });
  },
});

export const POINTER_HANDLERS: Handler[] = [mouseHandler, focusHandler];
