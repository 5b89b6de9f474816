import * as v from "valibot";
import { downloadItem } from "./commands-net.ts";

/**
 * What an action's evidence may carry, per action. The pipeline leaves out what the agent
 * knows (the action name, a click point, the element it named, empty lists: see
 * src/broker/act/result.ts), so those fields are optional here; a reply whose page is held
 * by a dialog carries the evidence whole.
 */
const status = v.picklist(["verified", "mismatch", "unavailable"]);
const point = v.object({ x: v.number(), y: v.number() });
/** An element named in evidence (what was under a point, the ends of a drag). */
const element = v.object({ tagName: v.string(), id: v.optional(v.string()), role: v.optional(v.string()), name: v.optional(v.string()), ref: v.optional(v.number()) });

/** Added to any action's evidence by what the action caused beyond its target. */
const caused = {
  reason: v.optional(v.string()),
  effects: v.optional(v.array(v.string())),
  popups: v.optional(v.array(v.string())),
  downloads: v.optional(v.array(downloadItem)),
  dialog: v.optional(v.object({ id: v.string(), type: v.string(), message: v.string() })),
};

const of = <N extends string, E extends v.ObjectEntries>(action: N, entries: E) => v.object({ action: v.optional(v.literal(action)), status, ...entries, ...caused });

export const clickEvidence = of("click", {
  kind: v.optional(v.string()),
  target: v.optional(element),
  point: v.optional(point),
  checked: v.optional(v.union([v.boolean(), v.string()])),
  focused: v.optional(v.boolean()),
});

const typing = {
  kind: v.optional(v.picklist(["input", "contenteditable", "unsupported"])),
  sensitive: v.optional(v.boolean()),
  beforeLength: v.number(),
  expectedLength: v.optional(v.number()),
  afterLength: v.optional(v.number()),
  submitted: v.optional(v.literal(true)),
};
export const typeEvidence = of("type", typing);
export const keyboardEvidence = of("keyboard", typing);

export const pressEvidence = of("press", { key: v.optional(v.string()), kind: v.optional(v.string()), sensitive: v.optional(v.boolean()) });

export const scrollEvidence = of("scroll", {
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

export const selectEvidence = of("select", {
  kind: v.picklist(["native", "aria"]),
  option: v.optional(v.object({ index: v.number(), label: v.string(), value: v.string() })),
  selected: v.optional(v.array(v.string())),
});

export const uploadEvidence = of("upload", {
  expectedFileCount: v.optional(v.number()),
  fileCount: v.optional(v.number()),
  nameMatched: v.optional(v.boolean()),
  fileName: v.string(),
  sizeBytes: v.number(),
});

export const hoverEvidence = of("hover", { hovered: v.boolean(), target: v.optional(element), point: v.optional(point) });

export const dragEvidence = of("drag", { kind: v.picklist(["html5", "pointer"]), from: v.optional(element), to: v.optional(element), points: v.optional(v.array(point)) });

export const dialogEvidence = of("dialog", { kind: v.string(), answer: v.picklist(["accept", "dismiss"]) });

export type EvidenceElement = v.InferInput<typeof element>;
export type ClickEvidence = v.InferInput<typeof clickEvidence>;
export type TypeEvidence = v.InferInput<typeof typeEvidence>;
export type KeyboardEvidence = v.InferInput<typeof keyboardEvidence>;
export type PressEvidence = v.InferInput<typeof pressEvidence>;
export type ScrollEvidence = v.InferInput<typeof scrollEvidence>;
export type SelectEvidence = v.InferInput<typeof selectEvidence>;
export type UploadEvidence = v.InferInput<typeof uploadEvidence>;
export type HoverEvidence = v.InferInput<typeof hoverEvidence>;
export type DragEvidence = v.InferInput<typeof dragEvidence>;
export type DialogEvidence = v.InferInput<typeof dialogEvidence>;
