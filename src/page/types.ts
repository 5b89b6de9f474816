/**
 * Types shared by the page-side engine and the broker. The project compiles without the DOM lib, so page functions are
 * typed against the small DOM subset they touch; a Chromium window and a happy-dom Window both satisfy it.
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
  /** The document the numbers belong to; a different document gets a fresh registry. */
  doc: PageDocument;
  /** Next unused number. Only grows, so a number is never reused within the document. */
  next: number;
  byEl: WeakMap<PageElement, number>;
  byRef: Map<number, WeakRef<PageElement> | PageElement>;
  /** Same-origin child documents → the iframe element that hosts them (for connectivity checks). */
  frames: WeakMap<PageDocument, PageElement>;
  /** The latest run's frame paths → iframe elements, so the broker can name each frame as 'bp frame' does. */
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
  /** Emitted entries (elements, fold lines, frame placeholders). Default 50, max 10,000. */
  limit?: number;
  /** Visited DOM nodes before the walk stops with `work_limit`. Default 200,000. */
  workLimit?: number;
  /** Accessible-name budget in UTF-16 code units (whitespace collapsed). Default 120. */
  nameMax?: number;
  /** Value budget. Default 200. */
  valueMax?: number;
  /** Lowest number a new ref may get (shared number space across out-of-process frames). */
  refFloor?: number;
  /** An element holding a number below this gets a new one: refs shown before a handback or bfcache restore must not come back. */
  refRenumberBelow?: number;
  /** Fold runs of same-shaped siblings. Default true. */
  fold?: boolean;
  /** Minimum repetitions for a fold. Default 8. */
  foldMin?: number;
  /** Refs whose fold should be expanded (any ref inside the run): a window around each is listed. */
  expand?: number[];
  /** Only elements whose name or value contains this text (case-insensitive); nothing folds. */
  find?: string;
  /** Also read the top document's headings and short text blocks (`texts`). */
  text?: boolean;
  /** Serialized-size budget for emitted entries (approximate UTF-8 bytes). Default 2 MiB. */
  maxBytes?: number;
  /** Aggregate name + value characters across emitted entries. Default 1,000,000. */
  maxText?: number;
  /** Composed-tree depth beyond which subtrees are skipped (`depth_limit`). Default 1,024. */
  depthLimit?: number;
  /**
   * false: no layout engine (happy-dom): zero-size rects are not hidden, boxes are zero, everything is in the viewport,
   * and `hidden` is honoured directly (no UA stylesheet).
   */
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
  /** Same-origin frame path ("1", "1.2") when the element lives in an inlined iframe. */
  frame?: string;
  /** "label": the ref is a label standing in for a visually hidden checkbox/radio it controls. */
  via?: "label";
  /** "dom": found by DOM facts only (cursor:pointer, onclick, tabindex) with no semantic role. */
  source?: "dom";
  /** No name: what its class, id or image file say ("icon star"). */
  desc?: string;
  /** Top-level viewport CSS px (frame offsets added). Zero when layout is off. */
  box: Box;
  inViewport: boolean;
}

export interface SnapshotFold {
  kind: "fold";
  /** Number of folded elements (the first period of the run is emitted normally before it). */
  count: number;
  firstRef: number;
  lastRef: number;
  /** Every folded ref, in document order; all are registered and resolvable. */
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
  /** Ref of the iframe element itself, so the caller can map it to a CDP frame/target. */
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

/**
 * A live region (role status, alert or log, aria-live, <output>) as a snapshot saw it: its key, unique to the document
 * and region, and its text (a log's newest entry).
 */
export interface LiveText {
  key: string;
  text: string;
}

/** A heading or short text block (snapshot/texts.ts). */
export interface TextBlock {
  /** Ref of the candidate before it in document order (0: none). */
  after: number;
  h?: number;
  x: string;
}

export interface SnapshotResult {
  title: string;
  url: string;
  page: PageGeometry;
  /** The top document's visible live regions, in document order (not listed; a diff reads them). */
  live?: LiveText[];
  elements: SnapshotEntry[];
  /** Visible interactive candidates found (before folding and limits). */
  totalCandidates: number;
  /** Refs of every candidate and frame placeholder, in document order (for --diff). */
  candidateRefs: number[];
  truncated: boolean;
  truncationReasons: TruncationReason[];
  hints: SnapshotHint[];
  layout: boolean;
  stats: SnapshotStats;
  /** The click-listener marks were made again from the last ones' elements first (dispatch.ts `snapshot`). */
  marksRemade?: true;
  /** With the `text` option: headings and short text blocks, in document order (snapshot/texts.ts). */
  texts?: TextBlock[];
}
