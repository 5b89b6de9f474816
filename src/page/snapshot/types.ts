/** Internal types of the snapshot engine: the walk's state travels in a `Run`, so the helpers stay plain functions. */
import type {
  Box,
  PageDocument,
  PageElement,
  PageGeometry,
  PageNode,
  PageQueryRoot,
  PageRect,
  PageStyle,
  PageWindow,
  RefRegistry,
} from "../types.ts";

/** An element's attributes, read once (lower-case names). */
export type Attrs = Record<string, string>;

export type Words = Record<string, true>;

/** Clip rectangle in top-level viewport coordinates; infinite sides mean "no clip". */
export interface Clip {
  l: number;
  t: number;
  r: number;
  b: number;
}

/** Roots chain for label/labelledby lookups across shadow boundaries (slotted nodes go up). */
export interface Roots {
  root: PageQueryRoot;
  up: Roots | null;
}

/**
 * Inherited facts for an element's children, passed on unchanged unless one changes (most elements allocate nothing).
 */
export interface Ctx {
  doc: PageDocument;
  view: PageWindow;
  roots: Roots;
  frame: string;
  fx: number;
  fy: number;
  fsx: number;
  fsy: number;
  clip: Clip;
  vp: Clip;
  posClip: Clip;
  posVp: Clip;
  fixClip: Clip;
  fixVp: Clip;
  vis: boolean;
  transparent: boolean;
  fsDisabled: boolean;
  ariaDisabled: boolean;
  editable: boolean;
  label: PageElement | null;
  pointer: boolean;
  inCand: boolean;
  mute: number;
  modal: number;
  filter: number;
  listbox: number;
  blocked: boolean;
  detailsOpen: boolean;
}

export interface Rec {
  el: PageElement;
  kind: "element" | "frame";
  role: string;
  fixedName: string | null;
  fallbackName: string;
  contentName: boolean;
  contentValue: boolean;
  buf: string;
  value: string | null;
  valueLength: number;
  sensitive: boolean;
  checked: boolean | "mixed" | null;
  selected: boolean | null;
  pressed: boolean | "mixed" | null;
  expanded: boolean | null;
  disabled: boolean;
  required: boolean;
  readonly: boolean;
  focused: boolean;
  frame: string;
  via: "label" | null;
  dom: boolean;
  box: Box;
  inVp: boolean;
  key: string;
  modal: number;
  filter: number;
  listbox: number;
  loginForm: boolean;
  password: boolean;
  /** For a candidate with no name: words from its class, id or image file ("icon star"). */
  desc: string;
  autocomplete: boolean;
  ref: number;
  name: string;
  src: string;
  reason: "cross_origin" | "unreachable";
  offset: { x: number; y: number };
}

export interface Modal {
  blocking: boolean;
  refs: number[];
  recs: Rec[];
}

/** Word lists and patterns, built once per run (the injected source has no module scope). */
export interface Tables {
  SKIP_TAGS: Words;
  NO_CHILDREN: Words;
  INTERACTIVE: Words;
  NO_CONTENT_NAME: Words;
  CHECKABLE: Words;
  SELECTABLE: Words;
  TEXTISH: Words;
  FILTER_CONTROL: Words;
  LABELABLE: Words;
  INLINE_TAGS: Words;
  FILTER_RE: RegExp;
  LOGIN_RE: RegExp;
}

export interface Run {
  started: number;
  LIMIT: number;
  WORK: number;
  NAME_MAX: number;
  VALUE_MAX: number;
  FOLD_MIN: number;
  MAX_BYTES: number;
  MAX_TEXT: number;
  DEPTH: number;
  LAYOUT: boolean;
  /** Per-candidate text buffer: whitespace is collapsed on the way in, so this holds content. */
  BUF_CAP: number;
  expand: Set<number>;
  /** Lower-cased --find text, or "" for the whole page. */
  FIND: string;
  /** Elements a script listens on for clicks (marked from CDP before the walk), if any. */
  listened: WeakSet<PageElement> | null;
  T: Tables;
  /** Shared by every attribute-less element; compared by identity. */
  NO_ATTRS: Attrs;
  NOCLIP: Clip;
  ZBOX: Box;
  win: PageWindow;
  topDoc: PageDocument;
  de: PageElement | null;
  registry: RefRegistry;
  hasWeakRef: boolean;
  /** Known numbers below this are replaced (SnapshotOptions.refRenumberBelow). */
  renumberBelow: number;
  page: PageGeometry;
  focusedEl: PageElement | null;
  topModal: PageElement | null;
  overlayEl: PageElement | null;
  labelMaps: Map<PageQueryRoot, Map<string, PageElement[]>>;
  recs: Rec[];
  candStack: Rec[];
  modals: Modal[];
  filters: Rec[][];
  listboxes: Rec[][];
  loginForms: Map<PageElement, boolean>;
  frameCounters: Map<PageDocument, number>;
  visited: number;
  errors: number;
  frames: number;
  workHit: boolean;
  depthHit: boolean;
  /** The walk stack as parallel arrays; a null context marks a candidate's exit (its record in the node slot). */
  sN: (PageNode | Rec)[];
  sC: (Ctx | null)[];
  sD: number[];
}

export interface Seen {
  el: PageElement;
  tag: string;
  A: Attrs;
  st: PageStyle;
  display: string;
  transparent: boolean;
  pointer: boolean;
  blocked: boolean;
  eRole: string | null;
  editable: boolean;
  role: string | null;
  dom: boolean;
  via: "label" | null;
  /** The element a promoted label stands in for; the element itself otherwise. */
  ctrl: PageElement;
  ovx: string;
  ovy: string;
  clips: boolean;
  position: string;
  clip: Clip;
  vp: Clip;
  isFrame: boolean;
  vis: boolean;
  rect: PageRect | null;
  box: Box;
  inVp: boolean;
  shown: boolean;
  modal: number;
  filter: number;
  listbox: number;
  mute: number;
  rec: Rec | null;
}
