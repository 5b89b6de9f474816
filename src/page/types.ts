/**
 * Types shared by the page-side observation engine (`snapshot/`, `snapshot/resolve.ts`)
 * and the broker-side helpers (`broker/render/`).
 *
 * The project compiles without the DOM lib (bun-types only), so the page functions are typed
 * against the small structural subset of the DOM they actually touch. A real `window` (Chromium
 * isolated world) and a happy-dom `Window` both satisfy it at run time; TypeScript callers that
 * hold a foreign `Window` type cast once at the boundary.
 */

// Structural DOM subset

export interface PageRect {
  left: number;
  top: number;
  width: number;
  height: number;
}

export interface PageStyle {
  display: string;
  visibility: string;
  opacity: string;
  cursor: string;
  position: string;
  overflow: string;
  overflowX: string;
  overflowY: string;
  zIndex: string;
  pointerEvents: string;
  paddingLeft: string;
  paddingTop: string;
  /** Absent in environments without the property (happy-dom). */
  contentVisibility?: string;
}

export interface PageNode {
  nodeType: number;
  childNodes: ArrayLike<PageNode>;
  parentNode: PageNode | null;
  firstChild: PageNode | null;
  lastChild: PageNode | null;
  nextSibling: PageNode | null;
  previousSibling: PageNode | null;
}

export interface PageText extends PageNode {
  data: string;
}

export interface PageElement extends PageNode {
  localName: string;
  id: string;
  isConnected: boolean;
  ownerDocument: PageDocument;
  shadowRoot: PageShadowRoot | null;
  firstElementChild: PageElement | null;
  parentElement: PageElement | null;
  closest?(selector: string): PageElement | null;
  clientLeft: number;
  clientTop: number;
  clientWidth: number;
  clientHeight: number;
  scrollWidth: number;
  scrollHeight: number;
  getAttribute(name: string): string | null;
  hasAttribute(name: string): boolean;
  hasAttributes(): boolean;
  getAttributeNames(): string[];
  getBoundingClientRect(): PageRect;
  matches(selector: string): boolean;
  querySelector(selector: string): PageElement | null;
  value?: string;
  checked?: boolean;
  indeterminate?: boolean;
  selectedIndex?: number;
  options?: ArrayLike<PageElement & { text?: string; selected?: boolean }>;
  form?: PageElement | null;
  control?: PageElement | null;
  contentDocument?: PageDocument | null;
  contentWindow?: PageWindow | null;
  assignedNodes?: (options?: { flatten?: boolean }) => ArrayLike<PageNode>;
  innerText?: string;
  textContent?: string | null;
  lastElementChild?: PageElement | null;
  checkVisibility?(options: { checkOpacity: boolean; checkVisibilityCSS: boolean }): boolean;
}

export interface PageQueryRoot extends PageNode {
  activeElement?: PageElement | null;
  getElementById?(id: string): PageElement | null;
  querySelectorAll(selector: string): ArrayLike<PageElement>;
}

export interface PageShadowRoot extends PageQueryRoot {
  host: PageElement;
}

export interface PageDocument extends PageQueryRoot {
  elementFromPoint?(x: number, y: number): PageElement | null;
  getElementsByTagName(name: string): ArrayLike<PageElement>;
  documentElement: PageElement | null;
  body: PageElement | null;
  title: string;
  URL: string;
  defaultView: PageWindow | null;
}

export interface PageWindow {
  document: PageDocument;
  innerWidth: number;
  innerHeight: number;
  scrollX: number;
  scrollY: number;
  getComputedStyle(element: PageElement): PageStyle;
}

// Ref registry (on the window under a non-enumerable symbol; see snapshot/setup.ts)

export interface RefRegistry {
  doc: PageDocument;
  /** Only grows: a number is never reused within the document. */
  next: number;
  byEl: WeakMap<PageElement, number>;
  byRef: Map<number, WeakRef<PageElement> | PageElement>;
  frames: WeakMap<PageDocument, PageElement>;
  /** The latest run's frame paths → iframe elements, so the broker names frames as 'bp frame' does. */
  paths?: Map<string, PageElement>;
  /** Live regions' keys (snapshot/live.ts): the document's own prefix and a number never reused in it. */
  live?: { prefix: string; next: number; byEl: WeakMap<PageElement, string> };
}

export type ResolveFailure = "node_detached" | "unknown_ref";

export interface ResolveResult {
  element: PageElement | null;
  reason: ResolveFailure | null;
}

// Snapshot options and result

export interface SnapshotOptions {
  /** Emitted entries (elements, folds, frames). Default 50, max 10,000. */
  limit?: number;
  /** Nodes visited before `work_limit`. Default 200,000. */
  workLimit?: number;
  /** UTF-16 units, whitespace collapsed. Default 120. */
  nameMax?: number;
  valueMax?: number;
  /** Shared number space across out-of-process frames. */
  refFloor?: number;
  /** Numbers below this are replaced: refs shown before a handback or bfcache restore must not come back. */
  refRenumberBelow?: number;
  fold?: boolean;
  foldMin?: number;
  /** Refs whose fold is expanded: a window around each is listed. */
  expand?: number[];
  /** Case-insensitive match on name or value; nothing folds. */
  find?: string;
  text?: boolean;
  /** Approximate UTF-8 bytes of emitted entries. Default 2 MiB. */
  maxBytes?: number;
  /** Name + value characters across entries. Default 1,000,000. */
  maxText?: number;
  depthLimit?: number;
  /** false: no layout engine (happy-dom): no hidden zero-size rects, zero boxes, all in viewport, `hidden` honoured. */
  layout?: boolean;
}

export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface SnapshotElement {
  kind: "element";
  ref: number;
  role: string;
  name: string;
  value?: string;
  /** For sensitive fields (passwords, card numbers, one-time codes): length only, never the value. */
  valueLength?: number;
  sensitive?: true;
  checked?: boolean | "mixed";
  selected?: boolean;
  pressed?: boolean | "mixed";
  expanded?: boolean;
  disabled?: true;
  required?: true;
  readonly?: true;
  focused?: true;
  frame?: string;
  /** "label": the ref is a label standing in for a visually hidden checkbox/radio it controls. */
  via?: "label";
  /** "dom": found by DOM facts only (cursor:pointer, onclick, tabindex) with no semantic role. */
  source?: "dom";
  /** No name: what its class, id or image file say ("icon star"). */
  desc?: string;
  /** Top-level viewport CSS px; zero without layout. */
  box: Box;
  inViewport: boolean;
}

export interface SnapshotFold {
  kind: "fold";
  /** Folded elements (the run's first period is emitted before it). */
  count: number;
  firstRef: number;
  lastRef: number;
  refs: number[];
  /** Role of the first folded element; `roles` lists the repeating pattern when period > 1. */
  role: string;
  roles: string[];
  period: number;
  samples: string[];
  frame?: string;
}

export type FrameReason = "cross_origin" | "unreachable";

export interface SnapshotFrame {
  kind: "frame";
  /** Ref of the iframe element itself (mapped to a CDP frame by the caller). */
  ref: number;
  role: "iframe";
  name: string;
  src: string;
  frame: string;
  reason: FrameReason;
  box: Box;
  /** Origin of the frame's content box in top-level viewport px: add to inner rects. */
  offset: { x: number; y: number };
  inViewport: boolean;
}

export type SnapshotEntry = SnapshotElement | SnapshotFold | SnapshotFrame;

export type TruncationReason = "element_limit" | "text_limit" | "depth_limit" | "byte_limit" | "work_limit";

export const TRUNCATION_ORDER: readonly TruncationReason[] = [
  "element_limit",
  "text_limit",
  "depth_limit",
  "byte_limit",
  "work_limit",
];

export interface PageGeometry {
  viewportWidth: number;
  viewportHeight: number;
  documentWidth: number;
  documentHeight: number;
  scrollX: number;
  scrollY: number;
  pixelsAbove: number;
  pixelsBelow: number;
  pixelsLeft: number;
  pixelsRight: number;
  scrollPercentX: number;
  scrollPercentY: number;
}

export type HintType = "modal_overlay" | "authentication_surface" | "autocomplete" | "filter_controls";

export interface SnapshotHint {
  type: HintType;
  confidence: "strong" | "possible";
  recommendedAction: string;
  refs: number[];
  blocking?: boolean;
  state?: "present" | "entered" | "left";
}

export interface SnapshotStats {
  visitedNodes: number;
  candidates: number;
  frames: number;
  /** Elements skipped because reading them threw (hostile pages). */
  errors: number;
  nextRef: number;
  ms: number;
}

/** A live region as a snapshot saw it: a key unique to document and region, and its text (a log's newest entry). */
export interface LiveText {
  key: string;
  text: string;
}

export interface TextBlock {
  after: number;
  h?: number;
  x: string;
  /** The text around the parts the page rewrites on its own (a clock's digits): an action's outcome skips the block when only they changed. Never printed. */
  c?: string[];
}

export interface SnapshotResult {
  title: string;
  url: string;
  page: PageGeometry;
  /** The top document's visible live regions (not listed; a diff reads them). */
  live?: LiveText[];
  elements: SnapshotEntry[];
  totalCandidates: number;
  /** For --diff. */
  candidateRefs: number[];
  truncated: boolean;
  truncationReasons: TruncationReason[];
  hints: SnapshotHint[];
  layout: boolean;
  stats: SnapshotStats;
  /** The click-listener marks were made again from the last ones' elements first (dispatch.ts `snapshot`). */
  marksRemade?: true;
  texts?: TextBlock[];
}
