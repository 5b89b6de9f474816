import * as v from "valibot";
import { once } from "./define.ts";
import { downloadItem } from "./download-item.ts";

/**
 * What an action's evidence may carry, per action. The pipeline leaves out what the agent
 * knows (the action name, a click point, the element it named, empty lists: see
 * src/broker/act/result.ts), so those fields are optional here; a reply whose page is held
 * by a dialog carries the evidence whole. Built on first use, like the result schemas that
 * carry them (src/protocol/define.ts).
 */
export const evidenceSchemas = once(() => {
  const status = v.picklist(["verified", "mismatch", "unavailable"]);
  const point = v.object({ x: v.number(), y: v.number() });
  /** An element named in evidence (what was under a point, the ends of a drag). */
  const element = v.object({
    tagName: v.string(),
    id: v.optional(v.string()),
    role: v.optional(v.string()),
    name: v.optional(v.string()),
    ref: v.optional(v.number()),
  });

  /** Added to any action's evidence by what the action caused beyond its target. */
  const caused = {
    reason: v.optional(v.string()),
    effects: v.optional(v.array(v.string())),
    popups: v.optional(v.array(v.string())),
    downloads: v.optional(v.array(downloadItem())),
    dialog: v.optional(v.object({ id: v.string(), type: v.string(), message: v.string() })),
    /** A navigation the action started that had not committed when the bounded wait ended: where to, and for how long (ms). */
    pendingNavigation: v.optional(v.object({ url: v.optional(v.string()), ms: v.number() })),
  };

  const of = <N extends string, E extends v.ObjectEntries>(action: N, entries: E) =>
    v.object({ action: v.optional(v.literal(action)), status, ...entries, ...caused });

  const clickEvidence = of("click", {
    kind: v.optional(v.string()),
    target: v.optional(element),
    point: v.optional(point),
    checked: v.optional(v.union([v.boolean(), v.string()])),
    focused: v.optional(v.boolean()),
    /** A click the page did not receive on the element: what received its click, and where press and release landed when they differ. */
    received: v.optional(v.object({ by: v.optional(element), down: v.optional(element), up: v.optional(element) })),
  });

  const typing = {
    kind: v.optional(v.picklist(["input", "contenteditable", "unsupported"])),
    sensitive: v.optional(v.boolean()),
    beforeLength: v.number(),
    expectedLength: v.optional(v.number()),
    afterLength: v.optional(v.number()),
    submitted: v.optional(v.literal(true)),
  };
  const typeEvidence = of("type", typing);
  const keyboardEvidence = of("keyboard", typing);

  const pressEvidence = of("press", {
    key: v.optional(v.string()),
    kind: v.optional(v.string()),
    sensitive: v.optional(v.boolean()),
  });

  const scrollEvidence = of("scroll", {
    mode: v.optional(v.picklist(["relative", "position", "text"])),
    target: v.optional(v.picklist(["page", "element", "text"])),
    moved: v.optional(v.boolean()),
    deltaX: v.optional(v.number()),
    deltaY: v.optional(v.number()),
    beforeX: v.optional(v.number()),
    beforeY: v.optional(v.number()),
    afterX: v.optional(v.number()),
    afterY: v.optional(v.number()),
    matchedText: v.optional(v.string()),
  });

  const selectEvidence = of("select", {
    kind: v.picklist(["native", "aria"]),
    option: v.optional(v.object({ index: v.number(), label: v.string(), value: v.string() })),
    selected: v.optional(v.array(v.string())),
  });

  const uploadEvidence = of("upload", {
    expectedFileCount: v.optional(v.number()),
    fileCount: v.optional(v.number()),
    nameMatched: v.optional(v.boolean()),
    fileName: v.string(),
    sizeBytes: v.number(),
  });

  const hoverEvidence = of("hover", {
    hovered: v.boolean(),
    target: v.optional(element),
    point: v.optional(point),
    received: v.optional(v.object({ by: v.optional(element) })),
  });

  const dragEvidence = of("drag", {
    kind: v.picklist(["html5", "pointer"]),
    from: v.optional(element),
    to: v.optional(element),
    points: v.optional(v.array(point)),
    received: v.optional(v.object({ by: v.optional(element) })),
  });

  const dialogEvidence = of("dialog", { kind: v.string(), answer: v.picklist(["accept", "dismiss"]) });

  return {
    element,
    click: clickEvidence,
    type: typeEvidence,
    keyboard: keyboardEvidence,
    press: pressEvidence,
    scroll: scrollEvidence,
    select: selectEvidence,
    upload: uploadEvidence,
    hover: hoverEvidence,
    drag: dragEvidence,
    dialog: dialogEvidence,
  };
});
type Schemas = ReturnType<typeof evidenceSchemas>;

export type EvidenceElement = v.InferInput<Schemas["element"]>;
export type ClickEvidence = v.InferInput<Schemas["click"]>;
export type TypeEvidence = v.InferInput<Schemas["type"]>;
export type KeyboardEvidence = v.InferInput<Schemas["keyboard"]>;
export type PressEvidence = v.InferInput<Schemas["press"]>;
export type ScrollEvidence = v.InferInput<Schemas["scroll"]>;
export type SelectEvidence = v.InferInput<Schemas["select"]>;
export type UploadEvidence = v.InferInput<Schemas["upload"]>;
export type HoverEvidence = v.InferInput<Schemas["hover"]>;
export type DragEvidence = v.InferInput<Schemas["drag"]>;
export type DialogEvidence = v.InferInput<Schemas["dialog"]>;
/** The evidence of any action. */
export type AnyEvidence = v.InferInput<Schemas[Exclude<keyof Schemas, "element">]>;
