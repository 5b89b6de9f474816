/** Start of a snapshot run: options, word tables, the ref registry and page-wide facts the walk consults. */
import type { Box, PageDocument, PageElement, PageWindow, RefRegistry, SnapshotOptions } from "../types.ts";
import { deepFocus, findOverlay, modalDialog, pageGeometry } from "./page-scan.ts";
import { clampInt, words } from "./text.ts";
import type { Attrs, Clip, Run, Tables } from "./types.ts";

export function createRun(win: PageWindow, o: SnapshotOptions, started: number): Run {
  const LIMIT = clampInt(o.limit, 50, 1, 10000);
  const WORK = clampInt(o.workLimit, 200000, 1, 10000000);
  const NAME_MAX = clampInt(o.nameMax, 120, 8, 4096);
  const VALUE_MAX = clampInt(o.valueMax, 200, 0, 65536);
  const FOLD_MIN = o.fold === false ? 0 : clampInt(o.foldMin, 8, 2, 100000);
  const MAX_BYTES = clampInt(o.maxBytes, 2097152, 256, 67108864);
  const MAX_TEXT = clampInt(o.maxText, 1000000, 100, 100000000);
  const DEPTH = clampInt(o.depthLimit, 1024, 4, 1000000);
  const LAYOUT = o.layout !== false;
  const BUF_CAP = Math.max(NAME_MAX, VALUE_MAX) + 32;
  const expand = new Set<number>();
  if (o.expand && typeof o.expand.length === "number") {
    for (let i = 0; i < o.expand.length; i++) {
      const r = o.expand[i];
      if (typeof r === "number") expand.add(r);
    }
  }
  const FIND = typeof o.find === "string" ? o.find.slice(0, 200).toLowerCase() : "";
  const T = (tables ??= snapshotTables());
  const NO_ATTRS: Attrs = Object.freeze(Object.create(null)) as Attrs;
  const NOCLIP: Clip = { l: -Infinity, t: -Infinity, r: Infinity, b: Infinity };
  const ZBOX: Box = { x: 0, y: 0, w: 0, h: 0 };

  const topDoc = win.document;
  const registry = openRegistry(win, topDoc, o.refFloor);
  registry.paths = new Map();
  // Marked by the broker just before this run (see listener-mark.ts); the symbol is repeated there.
  const marks = Reflect.get(win, Symbol.for("browser-pilot.listened.v1")) as
    | { doc: PageDocument; set: WeakSet<PageElement> }
    | undefined;
  const listened = marks && marks.doc === topDoc ? marks.set : null;
  const de = topDoc.documentElement;
  const body = topDoc.body;
  const page = pageGeometry(win, topDoc, de, body);
  const focusedEl = deepFocus(topDoc, de);
  const topModal = modalDialog(topDoc);
  const overlayEl = LAYOUT ? findOverlay(win, topDoc, de, body, page.viewportWidth, page.viewportHeight) : null;
  return {
    started,
    LIMIT,
    WORK,
    NAME_MAX,
    VALUE_MAX,
    FOLD_MIN,
    MAX_BYTES,
    MAX_TEXT,
    DEPTH,
    LAYOUT,
    BUF_CAP,
    expand,
    FIND,
    listened,
    T,
    NO_ATTRS,
    NOCLIP,
    ZBOX,
    win,
    topDoc,
    de,
    registry,
    hasWeakRef: typeof WeakRef === "function",
    renumberBelow:
      typeof o.refRenumberBelow === "number" && o.refRenumberBelow === o.refRenumberBelow ? o.refRenumberBelow : 0,
    page,
    focusedEl,
    topModal,
    overlayEl,
    labelMaps: new Map(),
    recs: [],
    candStack: [],
    modals: [],
    filters: [],
    listboxes: [],
    loginForms: new Map(),
    frameCounters: new Map(),
    visited: 0,
    errors: 0,
    frames: 0,
    workHit: false,
    depthHit: false,
    sN: [],
    sC: [],
    sD: [],
  };
}

/** Built on the first snapshot of a world, then shared: read-only, and the regexps keep no state (no g flag). */
let tables: Tables | undefined;

export function snapshotTables(): Tables {
  return {
    SKIP_TAGS: words("script style noscript template head meta link base param source track"),
    NO_CHILDREN: words("select textarea input canvas video audio object embed img iframe frame"),
    INTERACTIVE: words(
      "button link checkbox radio switch tab menuitem menuitemcheckbox menuitemradio option combobox " +
        "textbox searchbox slider spinbutton treeitem listbox",
    ),
    NO_CONTENT_NAME: words(
      "textbox searchbox combobox listbox slider spinbutton img progressbar meter scrollbar tree grid " +
        "treegrid table list menu menubar tablist radiogroup group dialog alertdialog navigation form " +
        "region main complementary toolbar article iframe document application",
    ),
    CHECKABLE: words("checkbox radio switch menuitemcheckbox menuitemradio"),
    SELECTABLE: words("option tab treeitem gridcell row columnheader rowheader"),
    TEXTISH: words("textbox searchbox combobox spinbutton"),
    FILTER_CONTROL: words("checkbox radio switch combobox listbox slider spinbutton option"),
    LABELABLE: words("input select textarea button meter output progress"),
    INLINE_TAGS: words(
      "a abbr b bdi bdo cite code data dfn em i kbd label mark q s samp small span strong sub sup time u var font",
    ),
    FILTER_RE: /(^|[^a-z])(filters?|facets?|refine(ment)?s?|sort(ing)?)([^a-z]|$)|筛选|过滤|排序/i,
    LOGIN_RE: /(^|[^a-z])(log[ _-]?in|sign[ _-]?in|signin|login|logon|auth|password|passwd)([^a-z]|$)|登录|登入/i,
  };
}

/**
 * The per-document ref registry, kept on the window under a non-enumerable symbol that
 * `resolve.ts` repeats. A different document gets a fresh registry.
 */
export function openRegistry(win: PageWindow, topDoc: PageDocument, floor: unknown): RefRegistry {
  const KEY = Symbol.for("browser-pilot.ref-registry.v1");
  let reg = Reflect.get(win, KEY) as RefRegistry | undefined;
  if (!reg || reg.doc !== topDoc) {
    reg = { doc: topDoc, next: 1, byEl: new WeakMap(), byRef: new Map(), frames: new WeakMap() };
    Object.defineProperty(win, KEY, { value: reg, configurable: true, enumerable: false, writable: true });
  }
  // Out-of-process frames number their own documents: the caller passes the tab's lowest unused number, so refs never
  // collide.
  if (typeof floor === "number" && floor === floor && floor > reg.next) reg.next = Math.floor(floor);
  return reg;
}
