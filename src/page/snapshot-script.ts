/**
 * The page-side observation engine.
 *
 * `pageSnapshot` runs inside the page (a CDP isolated world in Chromium, a happy-dom window in
 * unit tests). It is injected as `SNAPSHOT_SOURCE`, i.e. its own source text, so it must stay
 * self-contained: no imports at run time (type imports are erased), no references to module
 * variables, every helper declared inside. That is also why this file is longer than our usual
 * limit: splitting it would need a source-stitching step that the tests could not prove safe.
 *
 * Design (DESIGN.md §7): one linear walk of the composed tree. Inherited facts (visibility,
 * transparency, disabled fieldsets, clipping, modal scope, label scope, frame offsets) are
 * computed top-down into a per-element context, so no candidate ever walks its ancestors, and
 * accessible names from content are accumulated from the same walk (bounded per candidate), so no
 * candidate re-walks its subtree either. Refs live in a per-document registry on the window.
 */
import type {
  Box,
  PageDocument,
  PageElement,
  PageNode,
  PageQueryRoot,
  PageRect,
  PageShadowRoot,
  PageStyle,
  PageText,
  PageWindow,
  RefRegistry,
  SnapshotElement,
  SnapshotEntry,
  SnapshotFold,
  SnapshotFrame,
  SnapshotHint,
  SnapshotOptions,
  SnapshotResult,
  TruncationReason,
} from "./types.ts";

/** An element's attributes, read once (lower-case names). */
type Attrs = Record<string, string>;

/** Clip rectangle in top-level viewport coordinates; infinite sides mean "no clip". */
interface Clip {
  l: number;
  t: number;
  r: number;
  b: number;
}

/** Roots chain for label/labelledby lookups across shadow boundaries (slotted nodes go up). */
interface Roots {
  root: PageQueryRoot;
  up: Roots | null;
}

/**
 * Inherited facts for an element's children. An element passes its own context object on
 * unchanged unless one of these facts changes, so most elements allocate nothing.
 */
interface Ctx {
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

/** One candidate (or frame placeholder) while the walk is open. */
interface Rec {
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
  autocomplete: boolean;
  ref: number;
  name: string;
  src: string;
  reason: "cross_origin" | "unreachable";
  offset: { x: number; y: number };
}

interface Modal {
  blocking: boolean;
  refs: number[];
  recs: Rec[];
}

export function pageSnapshot(win: PageWindow, opts?: SnapshotOptions): SnapshotResult {
  const started = Date.now();
  const o: SnapshotOptions = opts || {};
  const int = (v: unknown, d: number, lo: number, hi: number): number => {
    const n = typeof v === "number" && v === v ? Math.floor(v) : d;
    return n < lo ? lo : n > hi ? hi : n;
  };
  const LIMIT = int(o.limit, 50, 1, 10000);
  const WORK = int(o.workLimit, 200000, 1, 10000000);
  const NAME_MAX = int(o.nameMax, 120, 8, 4096);
  const VALUE_MAX = int(o.valueMax, 200, 0, 65536);
  const FOLD_MIN = o.fold === false ? 0 : int(o.foldMin, 8, 2, 100000);
  const MAX_BYTES = int(o.maxBytes, 2097152, 256, 67108864);
  const MAX_TEXT = int(o.maxText, 1000000, 100, 100000000);
  const DEPTH = int(o.depthLimit, 1024, 4, 1000000);
  const LAYOUT = o.layout !== false;
  // Per-candidate text buffer: whitespace is collapsed on the way in, so this holds content.
  const BUF_CAP = Math.max(NAME_MAX, VALUE_MAX) + 32;
  const INF = Infinity;
  const expand = new Set<number>();
  if (o.expand && typeof o.expand.length === "number") {
    for (let i = 0; i < o.expand.length; i++) {
      const r = o.expand[i];
      if (typeof r === "number") expand.add(r);
    }
  }

  // ---- small helpers ----------------------------------------------------------------------
  const words = (s: string): Record<string, true> => {
    const m: Record<string, true> = Object.create(null);
    const parts = s.split(" ");
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i];
      if (p) m[p] = true;
    }
    return m;
  };
  const SKIP_TAGS = words("script style noscript template head meta link base param source track");
  const NO_CHILDREN = words("select textarea input canvas video audio object embed img iframe frame");
  const INTERACTIVE = words(
    "button link checkbox radio switch tab menuitem menuitemcheckbox menuitemradio option combobox " +
      "textbox searchbox slider spinbutton treeitem listbox",
  );
  const NO_CONTENT_NAME = words(
    "textbox searchbox combobox listbox slider spinbutton img progressbar meter scrollbar tree grid " +
      "treegrid table list menu menubar tablist radiogroup group dialog alertdialog navigation form " +
      "region main complementary toolbar article iframe document application",
  );
  const CHECKABLE = words("checkbox radio switch menuitemcheckbox menuitemradio");
  const SELECTABLE = words("option tab treeitem gridcell row columnheader rowheader");
  const TEXTISH = words("textbox searchbox combobox spinbutton");
  const FILTER_CONTROL = words("checkbox radio switch combobox listbox slider spinbutton option");
  const LABELABLE = words("input select textarea button meter output progress");
  const INLINE_TAGS = words(
    "a abbr b bdi bdo cite code data dfn em i kbd label mark q s samp small span strong sub sup time u var font",
  );
  const FILTER_RE = /(^|[^a-z])(filters?|facets?|refine(ment)?s?|sort(ing)?)([^a-z]|$)|筛选|过滤|排序/i;
  const LOGIN_RE = /(^|[^a-z])(log[ _-]?in|sign[ _-]?in|signin|login|logon|auth|password|passwd)([^a-z]|$)|登录|登入/i;

  // Page strings can be megabytes long: bound them before any whole-string work.
  const bound = (s: string, max: number): string => (s.length > max ? s.slice(0, max) : s);
  const collapse = (s: string): string => bound(s, 8192).replace(/\s+/g, " ").trim();
  const cut = (s: string, max: number): string => {
    if (s.length <= max) return s;
    let end = max - 1;
    const c = s.charCodeAt(end - 1);
    if (c >= 0xd800 && c <= 0xdbff) end--;
    return s.slice(0, end) + "…";
  };
  const attr = (el: PageElement, n: string): string | null => {
    const v = el.getAttribute(n);
    return typeof v === "string" ? v : null;
  };
  const lower = (s: unknown): string => (typeof s === "string" ? s.toLowerCase() : "");
  // Attributes are read once per element: most elements have none (hasAttributes is one cheap
  // call), and one pass over the names beats a dozen getAttribute calls on the rest.
  const NO_ATTRS: Attrs = Object.freeze(Object.create(null)) as Attrs;
  const readAttrs = (el: PageElement): Attrs => {
    if (!el.hasAttributes()) return NO_ATTRS;
    // getAttributeNames, unlike `attributes`, does not make Blink create Attr nodes on the page.
    const list = el.getAttributeNames();
    const m: Attrs = Object.create(null);
    for (let i = 0; i < list.length && i < 64; i++) {
      const a = list[i];
      if (a) m[lower(a)] = String(el.getAttribute(a));
    }
    return m;
  };
  const px = (s: string): number => {
    const n = parseFloat(s);
    return n === n ? n : 0;
  };
  const inter = (a: Clip, b: Clip): Clip => ({
    l: a.l > b.l ? a.l : b.l,
    t: a.t > b.t ? a.t : b.t,
    r: a.r < b.r ? a.r : b.r,
    b: a.b < b.b ? a.b : b.b,
  });
  const NOCLIP: Clip = { l: -INF, t: -INF, r: INF, b: INF };
  const ZBOX: Box = { x: 0, y: 0, w: 0, h: 0 };
  const boxOf = (r: PageRect, ctx: Ctx): Box => ({
    x: Math.round(r.left + ctx.fx),
    y: Math.round(r.top + ctx.fy),
    w: Math.round(r.width),
    h: Math.round(r.height),
  });

  // ---- ref registry -------------------------------------------------------------------------
  const KEY = Symbol.for("browser-pilot.ref-registry.v1");
  const topDoc = win.document;
  let reg = Reflect.get(win, KEY) as RefRegistry | undefined;
  if (!reg || reg.doc !== topDoc) {
    reg = { doc: topDoc, next: 1, byEl: new WeakMap(), byRef: new Map(), frames: new WeakMap() };
    Object.defineProperty(win, KEY, { value: reg, configurable: true, enumerable: false, writable: true });
  }
  const registry: RefRegistry = reg;
  // Out-of-process frames number their own documents; the caller passes the lowest unused
  // number of the whole tab so refs from every frame share one space and never collide.
  const floor = o.refFloor;
  if (typeof floor === "number" && floor === floor && floor > registry.next) registry.next = Math.floor(floor);
  const hasWeakRef = typeof WeakRef === "function";
  const refFor = (el: PageElement): number => {
    const known = registry.byEl.get(el);
    if (known !== undefined) return known;
    const n = registry.next++;
    registry.byEl.set(el, n);
    registry.byRef.set(n, hasWeakRef ? new WeakRef(el) : el);
    return n;
  };

  // ---- page geometry ------------------------------------------------------------------------
  const de = topDoc.documentElement;
  const body = topDoc.body;
  const num0 = (v: unknown): number => (typeof v === "number" && v === v ? v : 0);
  // In quirks mode the root element's client box is the whole document, not the viewport.
  const quirks = Reflect.get(topDoc, "compatMode") === "BackCompat";
  const vw = Math.round((quirks ? 0 : num0(de && de.clientWidth)) || num0(win.innerWidth));
  const vh = Math.round((quirks ? 0 : num0(de && de.clientHeight)) || num0(win.innerHeight));
  const sx = Math.round(num0(win.scrollX));
  const sy = Math.round(num0(win.scrollY));
  const dw = Math.max(vw, Math.round(num0(de && de.scrollWidth)), Math.round(num0(body && body.scrollWidth)));
  const dh = Math.max(vh, Math.round(num0(de && de.scrollHeight)), Math.round(num0(body && body.scrollHeight)));
  const pct = (pos: number, doc: number, view: number): number =>
    doc > view ? Math.round((pos / (doc - view)) * 1000) / 10 : 0;
  const page = {
    viewportWidth: vw,
    viewportHeight: vh,
    documentWidth: dw,
    documentHeight: dh,
    scrollX: sx,
    scrollY: sy,
    pixelsAbove: sy,
    pixelsBelow: Math.max(0, dh - vh - sy),
    pixelsLeft: sx,
    pixelsRight: Math.max(0, dw - vw - sx),
    scrollPercentX: pct(sx, dw, vw),
    scrollPercentY: pct(sy, dh, vh),
  };

  // ---- focus: the deep active element (through shadow roots and same-origin frames) ---------
  let focusedEl: PageElement | null = null;
  try {
    let a: PageElement | null | undefined = topDoc.activeElement;
    for (let i = 0; a && i < 32; i++) {
      const sr = a.shadowRoot;
      if (sr && sr.activeElement) {
        a = sr.activeElement;
        continue;
      }
      const tag = lower(a.localName);
      if (tag === "iframe" || tag === "frame") {
        const cd = a.contentDocument;
        if (cd && cd.activeElement && cd.activeElement !== cd.body) {
          a = cd.activeElement;
          continue;
        }
      }
      break;
    }
    if (a && a !== topDoc.body && a !== de) focusedEl = a;
  } catch {
    focusedEl = null;
  }

  // ---- modal dialogs make everything outside them inert -------------------------------------
  let topModal: PageElement | null = null;
  try {
    const open = topDoc.querySelectorAll("dialog[open]");
    for (let i = 0; i < open.length; i++) {
      const d = open[i];
      try {
        if (d && d.matches(":modal")) topModal = d;
      } catch {
        /* :modal unsupported */
      }
    }
  } catch {
    topModal = null;
  }

  // ---- a full-viewport overlay, found by hit-testing a few points ------------------------------
  // (instead of reading position and z-index on every element): from the topmost element at each
  // point, climb at most 64 ancestors looking for a fixed/absolute box with z-index >= 10 that
  // covers at least half of the viewport.
  let overlayEl: PageElement | null = null;
  if (LAYOUT && vw > 0 && vh > 0 && typeof topDoc.elementFromPoint === "function") {
    const points = [
      [vw / 2, vh / 2],
      [vw * 0.1, vh * 0.1],
      [vw * 0.9, vh * 0.9],
    ];
    for (let i = 0; i < points.length && !overlayEl; i++) {
      const pt = points[i] as number[];
      let e: PageElement | null = null;
      try {
        e = topDoc.elementFromPoint(pt[0] as number, pt[1] as number);
      } catch {
        e = null;
      }
      for (let k = 0; e && k < 64 && e !== de && e !== body; k++) {
        try {
          const st = win.getComputedStyle(e);
          if ((st.position === "fixed" || st.position === "absolute") && parseInt(st.zIndex, 10) >= 10) {
            const r = e.getBoundingClientRect();
            const a = inter({ l: r.left, t: r.top, r: r.left + r.width, b: r.top + r.height }, { l: 0, t: 0, r: vw, b: vh });
            if (a.r > a.l && a.b > a.t && (a.r - a.l) * (a.b - a.t) >= 0.5 * vw * vh) {
              overlayEl = e;
              break;
            }
          }
          e = e.parentElement || null;
        } catch {
          e = null;
        }
      }
    }
  }

  // ---- label[for] lookup, built lazily once per tree scope ----------------------------------
  const labelMaps = new Map<PageQueryRoot, Map<string, PageElement[]>>();
  const labelsFor = (root: PageQueryRoot, id: string): PageElement[] => {
    let m = labelMaps.get(root);
    if (!m) {
      m = new Map();
      const all = root.querySelectorAll("label[for]");
      for (let i = 0; i < all.length; i++) {
        const l = all[i];
        if (!l) continue;
        const f = attr(l, "for");
        if (!f) continue;
        const list = m.get(f);
        if (list) list.push(l);
        else m.set(f, [l]);
      }
      labelMaps.set(root, m);
    }
    return m.get(id) || [];
  };
  const byId = (roots: Roots, id: string): PageElement | null => {
    const r = roots.root;
    if (typeof r.getElementById === "function") return r.getElementById(id);
    return null;
  };

  // Bounded text of a subtree without computed styles (labels, labelledby targets). Constant
  // cost per call: at most 200 nodes and BUF_CAP characters.
  const textOf = (start: PageElement, exclude: PageElement | null): string => {
    let out = "";
    let budget = 200;
    const stack: PageNode[] = [];
    const kids = (n: PageNode): void => {
      const el = n as PageElement;
      const src = el.shadowRoot ? el.shadowRoot.childNodes : n.childNodes;
      for (let i = src.length - 1; i >= 0; i--) {
        const c = src[i];
        if (c) stack.push(c);
      }
    };
    kids(start);
    while (stack.length && budget-- > 0 && out.length < BUF_CAP) {
      const n = stack.pop() as PageNode;
      if (n.nodeType === 3) {
        out += bound((n as PageText).data, 8192).replace(/\s+/g, " ");
        continue;
      }
      if (n.nodeType !== 1 || n === exclude) continue;
      const el = n as PageElement;
      const tag = lower(el.localName);
      if (SKIP_TAGS[tag] || NO_CHILDREN[tag]) {
        if (tag === "img") out += " " + (attr(el, "alt") || "") + " ";
        continue;
      }
      if (el.hasAttribute("hidden") || attr(el, "aria-hidden") === "true") continue;
      const al = attr(el, "aria-label");
      if (al && al.trim()) {
        out += " " + bound(al, BUF_CAP) + " ";
        continue;
      }
      const block = !INLINE_TAGS[tag];
      if (block) out += " ";
      kids(el);
    }
    return collapse(out);
  };
  const labelledBy = (el: PageElement, roots: Roots): string | null => {
    const ids = attr(el, "aria-labelledby");
    if (!ids) return null;
    const parts = ids.split(/\s+/);
    let out = "";
    for (let i = 0; i < parts.length && i < 8; i++) {
      const id = parts[i];
      if (!id) continue;
      const t = byId(roots, id);
      if (!t) continue;
      const al = attr(t, "aria-label");
      out += " " + (al && al.trim() ? al : textOf(t, null));
    }
    const s = collapse(out);
    return s ? s : null;
  };

  // ---- roles ----------------------------------------------------------------------------------
  const inputType = (A: Attrs): string => lower(A.type || "text") || "text";
  const inputRole = (A: Attrs): string => {
    const t = inputType(A);
    const list = A.list !== undefined;
    switch (t) {
      case "checkbox":
        return "checkbox";
      case "radio":
        return "radio";
      case "range":
        return "slider";
      case "number":
        return "spinbutton";
      case "button":
      case "submit":
      case "reset":
      case "image":
      case "file":
      case "color":
        return "button";
      case "search":
        return list ? "combobox" : "searchbox";
      default:
        return list ? "combobox" : "textbox";
    }
  };
  const implicitRole = (A: Attrs, tag: string): string => {
    switch (tag) {
      case "a":
      case "area":
        return A.href !== undefined ? "link" : "generic";
      case "button":
      case "summary":
        return "button";
      case "input":
        return inputRole(A);
      case "select": {
        const size = parseInt(A.size || "0", 10);
        return A.multiple !== undefined || size > 1 ? "listbox" : "combobox";
      }
      case "textarea":
        return "textbox";
      case "option":
        return "option";
      case "img":
        return "img";
      case "h1":
      case "h2":
      case "h3":
      case "h4":
      case "h5":
      case "h6":
        return "heading";
      case "li":
        return "listitem";
      case "ul":
      case "ol":
      case "menu":
        return "list";
      case "nav":
        return "navigation";
      case "dialog":
        return "dialog";
      case "table":
        return "table";
      case "tr":
        return "row";
      case "td":
        return "cell";
      case "th":
        return "columnheader";
      case "details":
      case "fieldset":
        return "group";
      case "progress":
        return "progressbar";
      case "article":
        return "article";
      case "aside":
        return "complementary";
      case "main":
        return "main";
      case "form":
        return "form";
      case "iframe":
      case "frame":
        return "iframe";
      default:
        return "generic";
    }
  };
  const explicitRole = (A: Attrs): string | null => {
    const r = A.role;
    if (!r) return null;
    const tokens = r.trim().toLowerCase().split(/\s+/);
    for (let i = 0; i < tokens.length; i++) {
      const t = tokens[i];
      if (t && /^[a-z]+$/.test(t)) return t;
    }
    return null;
  };

  // ---- result accumulators --------------------------------------------------------------------
  const recs: Rec[] = [];
  const candStack: Rec[] = [];
  const modals: Modal[] = [];
  const filters: Rec[][] = [];
  const listboxes: Rec[][] = [];
  const loginForms = new Map<PageElement, boolean>();
  const frameCounters = new Map<PageDocument, number>();
  let visited = 0;
  let errors = 0;
  let frames = 0;
  let workHit = false;
  let depthHit = false;

  // Name-from-content text goes to the innermost open candidates (at most 3, so nesting cannot
  // make this quadratic), whitespace collapsed as it arrives.
  const appendText = (ctx: Ctx, raw: string): void => {
    let s: string | null = null;
    for (let i = candStack.length - 1, k = 0; i >= ctx.mute && k < 3; i--, k++) {
      const r = candStack[i];
      if (!r || r.buf.length >= BUF_CAP) continue;
      if (s === null) {
        // Collapse within a generous window first: indentation must not push words out.
        s = bound(bound(raw, 8192).replace(/\s+/g, " "), BUF_CAP);
        if (!s) return;
      }
      const b = r.buf;
      const piece = s.charCodeAt(0) === 32 && (b === "" || b.charCodeAt(b.length - 1) === 32) ? s.slice(1) : s;
      r.buf = b + bound(piece, BUF_CAP - b.length);
    }
  };

  const isLoginForm = (form: PageElement | null | undefined): boolean => {
    if (!form) return false;
    const known = loginForms.get(form);
    if (known !== undefined) return known;
    const s =
      (attr(form, "id") || "") +
      " " +
      (attr(form, "name") || "") +
      " " +
      (attr(form, "action") || "") +
      " " +
      (attr(form, "class") || "") +
      " " +
      (attr(form, "aria-label") || "");
    const v = LOGIN_RE.test(bound(s, 1024));
    loginForms.set(form, v);
    return v;
  };

  // Reads a neighbour's tag: that neighbour may be the hostile one, so never let it throw.
  const parentTag = (n: PageNode): string => {
    try {
      const p = n.parentNode;
      return p ? (p.nodeType === 1 ? lower((p as PageElement).localName) : "#" + p.nodeType) : "";
    } catch {
      return "?";
    }
  };
  // Fold shape: the tags of three ancestors (a bounded, constant-cost look upwards).
  const shape = (el: PageNode): string => {
    let out = "";
    let n: PageNode | null = el;
    for (let i = 0; i < 3 && n; i++) {
      out += parentTag(n) + ">";
      n = n.parentNode;
    }
    return out;
  };
  const newRec = (el: PageElement, role: string, ctx: Ctx, tag: string, box: Box, inVp: boolean): Rec => ({
    el,
    kind: "element",
    role,
    fixedName: null,
    fallbackName: "",
    contentName: !NO_CONTENT_NAME[role],
    contentValue: false,
    buf: "",
    value: null,
    valueLength: 0,
    sensitive: false,
    checked: null,
    selected: null,
    pressed: null,
    expanded: null,
    disabled: false,
    required: false,
    readonly: false,
    focused: el === focusedEl,
    frame: ctx.frame,
    via: null,
    dom: false,
    box,
    inVp,
    key: role + "|" + tag + "|" + shape(el) + "|" + ctx.frame,
    modal: ctx.modal,
    filter: ctx.filter,
    listbox: ctx.listbox,
    loginForm: false,
    password: false,
    autocomplete: false,
    ref: 0,
    name: "",
    src: "",
    reason: "unreachable",
    offset: { x: 0, y: 0 },
  });

  // Fill name sources, value and states for a candidate (element itself, or the control a
  // promoted label stands in for).
  const describe = (rec: Rec, el: PageElement, A: Attrs, tag: string, ctx: Ctx, ctrl: PageElement): void => {
    const role = rec.role;
    const ctag = ctrl === el ? tag : lower(ctrl.localName);
    const C = ctrl === el ? A : readAttrs(ctrl);
    const lb = A["aria-labelledby"] ? labelledBy(el, ctx.roots) : null;
    const al = A["aria-label"];
    if (lb) rec.fixedName = lb;
    else if (al && al.trim()) rec.fixedName = al;
    const itype = ctag === "input" ? inputType(C) : "";

    if (!rec.fixedName && ctrl === el && LABELABLE[tag] && tag !== "button") {
      let text = "";
      const id = A.id;
      if (id) {
        const ls = labelsFor(ctx.roots.root, id);
        for (let i = 0; i < ls.length && i < 4; i++) {
          const l = ls[i];
          if (l) text += " " + textOf(l, el);
        }
      }
      if (ctx.label && !ctx.label.hasAttribute("for")) text += " " + textOf(ctx.label, el);
      text = collapse(text);
      if (text) rec.fixedName = text;
    }
    if (!rec.fixedName) {
      if (tag === "input" && (itype === "submit" || itype === "reset" || itype === "button")) {
        const v = A.value;
        rec.fixedName = v !== undefined ? bound(v, BUF_CAP) : itype === "submit" ? "Submit" : itype === "reset" ? "Reset" : "";
      } else if (tag === "input" && itype === "image") {
        rec.fixedName = A.alt || A.value || "Submit";
      } else if (tag === "img" || tag === "area") {
        const alt = A.alt;
        if (alt) rec.fixedName = alt;
      }
    }
    rec.fallbackName = A.title || A.placeholder || A["aria-placeholder"] || "";
    if (tag === "input" && itype === "file") rec.contentName = false;

    // Value.
    if (ctag === "input" && ctrl === el) {
      if (itype !== "checkbox" && itype !== "radio" && !isButtonType(itype)) {
        const v = typeof el.value === "string" ? el.value : "";
        const ac = lower(A.autocomplete);
        const sensitive =
          itype === "password" ||
          ac.indexOf("cc-number") >= 0 ||
          ac.indexOf("cc-csc") >= 0 ||
          ac.indexOf("one-time-code") >= 0 ||
          ac.indexOf("password") >= 0;
        if (sensitive) {
          rec.sensitive = true;
          rec.valueLength = v.length;
        } else if (v) rec.value = v;
        if (itype === "password") rec.password = true;
      }
    } else if (ctag === "textarea") {
      const v = typeof el.value === "string" ? el.value : "";
      if (v) rec.value = v;
    } else if (ctag === "select") {
      const opts = el.options;
      let v = "";
      if (opts) {
        for (let i = 0, n = 0; i < opts.length && n < 8; i++) {
          const op = opts[i];
          if (op && op.selected) {
            v += (n++ ? ", " : "") + (typeof op.text === "string" ? op.text : "");
          }
        }
      }
      v = collapse(v);
      if (v) rec.value = v;
    } else if (ctrl === el) {
      const vt = A["aria-valuetext"] || A["aria-valuenow"];
      if (vt && (role === "slider" || role === "spinbutton" || role === "progressbar" || role === "scrollbar")) {
        rec.value = vt;
      } else if (TEXTISH[role]) {
        rec.contentValue = true;
        rec.contentName = false;
      }
    }

    // States.
    if (CHECKABLE[role]) {
      if (ctag === "input" && (itype === "checkbox" || itype === "radio")) {
        rec.checked = ctrl.indeterminate ? "mixed" : !!ctrl.checked;
      } else {
        const ac = C["aria-checked"];
        rec.checked = ac === "mixed" ? "mixed" : ac === "true";
      }
    }
    if (SELECTABLE[role]) {
      const s = A["aria-selected"];
      if (s !== undefined) rec.selected = s === "true";
    }
    const pr = A["aria-pressed"];
    if (pr !== undefined && pr !== "undefined") rec.pressed = pr === "mixed" ? "mixed" : pr === "true";
    const ex = A["aria-expanded"];
    if (ex !== undefined && ex !== "undefined") rec.expanded = ex === "true";
    else if (tag === "summary" && parentTag(el) === "details") rec.expanded = ctx.detailsOpen;
    const formCtl = ctag === "button" || ctag === "input" || ctag === "select" || ctag === "textarea";
    rec.disabled =
      (formCtl && (C.disabled !== undefined || ctx.fsDisabled)) ||
      ctx.ariaDisabled ||
      A["aria-disabled"] === "true" ||
      C["aria-disabled"] === "true";
    rec.required = (formCtl && C.required !== undefined) || C["aria-required"] === "true";
    rec.readonly =
      !!TEXTISH[role] &&
      (((ctag === "input" || ctag === "textarea") && C.readonly !== undefined) || C["aria-readonly"] === "true");
    if (role === "combobox") {
      const aa = A["aria-autocomplete"];
      rec.autocomplete = A.list !== undefined || (aa !== undefined && aa !== "none");
    }
    if (ctag === "input") rec.loginForm = isLoginForm(ctrl.form);
  };
  function isButtonType(t: string): boolean {
    return t === "submit" || t === "reset" || t === "button" || t === "image" || t === "file" || t === "color";
  }

  const finish = (rec: Rec): void => {
    const content = rec.contentName || rec.contentValue ? collapse(rec.buf) : "";
    let name = rec.fixedName !== null ? collapse(rec.fixedName) : "";
    if (!name && rec.contentName) name = content;
    if (!name) name = collapse(rec.fallbackName);
    rec.name = cut(name, NAME_MAX);
    if (rec.contentValue && content) rec.value = content;
    if (rec.value !== null) rec.value = cut(bound(rec.value, VALUE_MAX + 64).replace(/\s+/g, " "), VALUE_MAX);
    rec.buf = "";
  };

  // Is a control rendered? Used to decide whether a label stands in for a hidden checkbox.
  const renderedControl = (c: PageElement, ctx: Ctx): boolean => {
    const st = ctx.view.getComputedStyle(c);
    if (st.display === "none" || (st.visibility && st.visibility !== "visible") || st.opacity === "0") return false;
    if (!LAYOUT) return !c.hasAttribute("hidden");
    const r = c.getBoundingClientRect();
    return r.width > 1 || r.height > 1;
  };
  const labelControl = (label: PageElement, ctx: Ctx): PageElement | null => {
    if (label.control !== undefined) return label.control || null;
    const f = attr(label, "for");
    if (f) return byId(ctx.roots, f);
    return label.querySelector("input,select,textarea,button");
  };

  // ---- the walk -------------------------------------------------------------------------------
  // The walk stack as parallel arrays (no per-node allocation). A null context marks the exit
  // of a candidate, whose record sits in the node slot.
  const sN: (PageNode | Rec)[] = [];
  const sC: (Ctx | null)[] = [];
  const sD: number[] = [];
  const push = (n: PageNode, c: Ctx, d: number): void => {
    sN.push(n);
    sC.push(c);
    sD.push(d);
  };
  const pushChildren = (parent: PageNode, ctx: Ctx, d: number): void => {
    for (let c = parent.lastChild; c; c = c.previousSibling) push(c, ctx, d);
  };
  const pushList = (list: ArrayLike<PageNode>, ctx: Ctx, d: number): void => {
    for (let i = list.length - 1; i >= 0; i--) {
      const c = list[i];
      if (c) push(c, ctx, d);
    }
  };

  const frameRoot = (el: PageElement, ctx: Ctx, d: number, rect: PageRect | null, box: Box, inVp: boolean): void => {
    const count = (frameCounters.get(ctx.doc) || 0) + 1;
    frameCounters.set(ctx.doc, count);
    const path = ctx.frame ? ctx.frame + "." + count : String(count);
    let cd: PageDocument | null = null;
    let reachable = false;
    try {
      cd = el.contentDocument || null;
      reachable = !!el.contentWindow;
    } catch {
      cd = null;
    }
    let ox = ctx.fx;
    let oy = ctx.fy;
    if (rect) {
      let pl = 0;
      let pt = 0;
      try {
        const st = ctx.view.getComputedStyle(el);
        pl = px(st.paddingLeft);
        pt = px(st.paddingTop);
      } catch {
        /* keep 0 */
      }
      ox += rect.left + (el.clientLeft || 0) + pl;
      oy += rect.top + (el.clientTop || 0) + pt;
    }
    const cv = cd ? cd.defaultView : null;
    if (cd && cd.documentElement && cv) {
      frames++;
      registry.frames.set(cd, el);
      const content: Clip = rect
        ? { l: ox, t: oy, r: ox + (el.clientWidth || rect.width), b: oy + (el.clientHeight || rect.height) }
        : NOCLIP;
      const vp = inter(ctx.vp, content);
      const c: Ctx = {
        ...ctx,
        doc: cd,
        view: cv,
        roots: { root: cd, up: null },
        frame: path,
        fx: ox,
        fy: oy,
        fsx: num0(cv.scrollX),
        fsy: num0(cv.scrollY),
        clip: NOCLIP,
        vp,
        posClip: NOCLIP,
        posVp: vp,
        fixClip: NOCLIP,
        fixVp: vp,
        fsDisabled: false,
        ariaDisabled: false,
        editable: false,
        label: null,
        pointer: false,
        inCand: false,
        mute: candStack.length,
      };
      push(cd.documentElement, c, d + 1);
      return;
    }
    const rec = newRec(el, "iframe", ctx, "iframe", box, inVp);
    rec.kind = "frame";
    rec.fixedName = attr(el, "title") || attr(el, "aria-label") || attr(el, "name") || "";
    rec.contentName = false;
    rec.src = cut(attr(el, "src") || "", 512);
    rec.reason = reachable ? "cross_origin" : "unreachable";
    rec.frame = path;
    rec.offset = { x: Math.round(ox), y: Math.round(oy) };
    finish(rec);
    recs.push(rec);
  };

  const visit = (el: PageElement, ctx: Ctx, depth: number): void => {
    const tag = lower(el.localName);
    if (SKIP_TAGS[tag]) return;
    const A = readAttrs(el);
    if (A.inert !== undefined || A["aria-hidden"] === "true") return;
    if (!LAYOUT && A.hidden !== undefined) return;
    if (depth >= DEPTH) {
      depthHit = true;
      return;
    }
    // Every computed-style read costs time on every element of the page, so each element reads
    // only what it can need: display, opacity and (outside candidates) cursor always; overflow on
    // boxes that can clip; position only inside clip regions; visibility only where a candidate,
    // a candidate's text or a dialog depends on it.
    const st = ctx.view.getComputedStyle(el);
    const display = st.display;
    if (display === "none") return;
    const transparent = ctx.transparent || st.opacity === "0";
    const pointer = !ctx.inCand && st.cursor === "pointer";
    const blocked = ctx.blocked && el !== topModal;

    // Candidacy (cheap attribute checks first).
    const eRole = A.role !== undefined ? explicitRole(A) : null;
    const iRole = implicitRole(A, tag);
    let native = false;
    if (tag === "a" || tag === "area") native = A.href !== undefined || A["xlink:href"] !== undefined;
    else if (tag === "button" || tag === "select" || tag === "textarea") native = true;
    else if (tag === "input") native = inputType(A) !== "hidden";
    else if (tag === "summary") native = parentTag(el) === "details";
    const ce = A.contenteditable;
    const editHost = ce !== undefined && lower(ce) !== "false" && !ctx.editable;
    const editable = ce === undefined ? ctx.editable : lower(ce) !== "false";
    const roleInteractive = !!eRole && !!INTERACTIVE[eRole];
    const tabindex = A.tabindex;
    const focusable = tabindex !== undefined && parseInt(tabindex, 10) >= 0 && tag !== "body" && tag !== "html";
    const onclick = A.onclick !== undefined;
    let role: string | null = null;
    let dom = false;
    let via: "label" | null = null;
    let ctrl: PageElement = el;
    const presentational = eRole === "presentation" || eRole === "none" || eRole === "generic";
    const semantic = eRole && !presentational ? eRole : iRole;
    if (native || roleInteractive || editHost || focusable) {
      role = semantic;
      if (editHost && role === "generic") role = "textbox";
    } else if (tag === "label") {
      const c = labelControl(el, ctx);
      if (c) {
        const ct = lower(c.localName);
        const CA = ct === "input" ? readAttrs(c) : NO_ATTRS;
        const ctype = ct === "input" ? inputType(CA) : "";
        if ((ctype === "checkbox" || ctype === "radio") && !renderedControl(c, ctx)) {
          const ce2 = explicitRole(CA);
          role = ce2 && INTERACTIVE[ce2] ? ce2 : ctype;
          via = "label";
          ctrl = c;
        }
      } else if ((pointer && !ctx.pointer) || onclick) {
        role = semantic;
        dom = true;
      }
    } else if (
      tag !== "body" &&
      tag !== "html" &&
      !ctx.inCand &&
      ((pointer && !ctx.pointer && st.pointerEvents !== "none") || onclick)
    ) {
      role = semantic;
      dom = true;
    }

    let ovx = "visible";
    let ovy = "visible";
    if (
      LAYOUT &&
      tag !== "html" &&
      tag !== "body" &&
      display !== "inline" &&
      display !== "contents" &&
      display !== "table-row" &&
      display !== "table-row-group"
    ) {
      const ov = st.overflow;
      if (ov === "visible") {
        /* the common case: one read */
      } else if (ov) {
        const sp = ov.indexOf(" ");
        ovx = sp < 0 ? ov : ov.slice(0, sp);
        ovy = sp < 0 ? ov : ov.slice(sp + 1);
      } else {
        ovx = st.overflowX || "visible";
        ovy = st.overflowY || "visible";
      }
    }
    const clips = ovx !== "visible" || ovy !== "visible";
    // Positioned boxes escape clipping by non-containing ancestors; that only matters where a
    // clip is active, so position is read only there.
    const position = clips || ctx.clip !== ctx.fixClip || ctx.vp !== ctx.fixVp ? st.position : "";
    let clip = ctx.clip;
    let vp = ctx.vp;
    if (position === "fixed") {
      clip = ctx.fixClip;
      vp = ctx.fixVp;
    } else if (position === "absolute") {
      clip = ctx.posClip;
      vp = ctx.posVp;
    }
    const isFrame = tag === "iframe" || tag === "frame";
    const dialogish =
      tag === "dialog" || eRole === "dialog" || eRole === "alertdialog" || eRole === "listbox" || A["aria-modal"] !== undefined;
    const visibility = role !== null || ctx.inCand || isFrame || dialogish || el === overlayEl ? st.visibility : "";
    const vis = visibility ? visibility === "visible" : ctx.vis;

    // Geometry, only when something needs it.
    let rect: PageRect | null = null;
    if (LAYOUT && (role !== null || clips || isFrame)) rect = el.getBoundingClientRect();

    let box = ZBOX;
    let inVp = true;
    let shown = vis && !transparent && !blocked;
    if (shown && rect) {
      let r = rect;
      if ((r.width <= 1 && r.height <= 1) || r.width === 0 || r.height === 0) {
        // An inline wrapper around a block child reports an empty box; use the child's.
        const fc = el.firstElementChild;
        const fr = fc ? fc.getBoundingClientRect() : null;
        if (fr && fr.width > 1 && fr.height > 1) r = fr;
      }
      const w = r.width;
      const h = r.height;
      if (w === 0 || h === 0 || (w <= 1 && h <= 1)) shown = false;
      else if (r.left + w + ctx.fsx <= 0 || r.top + h + ctx.fsy <= 0) shown = false;
      else {
        const L = r.left + ctx.fx;
        const T = r.top + ctx.fy;
        if (L + w <= clip.l || L >= clip.r || T + h <= clip.t || T >= clip.b) shown = false;
        inVp = !(L + w <= vp.l || L >= vp.r || T + h <= vp.t || T >= vp.b);
        box = boxOf(r, ctx);
      }
    }

    if (isFrame) {
      if (shown) frameRoot(el, ctx, depth, rect, box, inVp);
      return;
    }

    // Modal scopes.
    let modal = ctx.modal;
    if (vis && !transparent && !blocked) {
      const ariaModal = A["aria-modal"] === "true";
      const dialogRole = eRole === "dialog" || eRole === "alertdialog";
      let isModal = false;
      let blocking = false;
      if (tag === "dialog" && A.open !== undefined) {
        isModal = true;
        blocking = el === topModal || ariaModal;
      } else if (dialogRole) {
        isModal = true;
        blocking = ariaModal;
      } else if (ariaModal) {
        isModal = true;
        blocking = true;
      } else if (el === overlayEl) {
        isModal = true;
      }
      if (isModal) {
        modals.push({ blocking, refs: [], recs: [] });
        modal = modals.length - 1;
      }
    }

    // Filter containers.
    let filter = ctx.filter;
    if (
      filter < 0 &&
      A !== NO_ATTRS &&
      FILTER_RE.test(
        bound(A.id || "", 256) +
          " " +
          bound(A.class || "", 512) +
          " " +
          bound(A["aria-label"] || "", 256) +
          " " +
          bound(A["data-testid"] || "", 256) +
          " " +
          bound(A.name || "", 256),
      )
    ) {
      filters.push([]);
      filter = filters.length - 1;
    }
    let listbox = ctx.listbox;
    if (eRole === "listbox" && vis && !transparent) {
      listboxes.push([]);
      listbox = listboxes.length - 1;
    }

    // Text contributions to open candidates (accessible name from content).
    const before = candStack.length;
    let mute = ctx.mute;
    if (before > ctx.mute) {
      const al = A["aria-label"];
      if (role === null && al && al.trim()) {
        appendText(ctx, " " + al + " ");
        mute = before;
      } else if (tag === "img" && role === null && vis) appendText(ctx, " " + (A.alt || "") + " ");
      else if (tag === "br") appendText(ctx, " ");
      else if (display && display.indexOf("inline") !== 0 && display !== "contents") appendText(ctx, " ");
    }

    // Open the candidate.
    let rec: Rec | null = null;
    if (role !== null && shown) {
      rec = newRec(el, role, ctx, tag, box, inVp);
      rec.modal = modal;
      rec.filter = filter;
      rec.listbox = listbox;
      rec.dom = dom;
      rec.via = via;
      describe(rec, el, A, tag, ctx, ctrl);
      if (rec.fixedName !== null && before > ctx.mute) {
        appendText(ctx, " " + rec.fixedName + " ");
        mute = before;
      }
      recs.push(rec);
      candStack.push(rec);
      sN.push(rec);
      sC.push(null);
      sD.push(0);
      if (modal >= 0) {
        const m = modals[modal];
        if (m) m.recs.push(rec);
      }
      if (filter >= 0 && FILTER_CONTROL[role]) {
        const f = filters[filter];
        if (f) f.push(rec);
      }
      if (listbox >= 0) {
        const lb = listboxes[listbox];
        if (lb) lb.push(rec);
      }
    }

    // Children context.
    let cclip = clip;
    let cvp = vp;
    if (clips && rect) {
      const L = rect.left + ctx.fx;
      const T = rect.top + ctx.fy;
      const own: Clip = { l: L, t: T, r: L + rect.width, b: T + rect.height };
      const hx = ovx === "hidden" || ovx === "clip";
      const hy = ovy === "hidden" || ovy === "clip";
      if (hx || hy) {
        cclip = inter(clip, { l: hx ? own.l : -INF, t: hy ? own.t : -INF, r: hx ? own.r : INF, b: hy ? own.b : INF });
      }
      const vx = ovx && ovx !== "visible";
      const vy = ovy && ovy !== "visible";
      cvp = inter(vp, { l: vx ? own.l : -INF, t: vy ? own.t : -INF, r: vx ? own.r : INF, b: vy ? own.b : INF });
    }
    const positioned = position && position !== "static";
    let fsDisabled = ctx.fsDisabled;
    if (tag === "fieldset" && A.disabled !== undefined) fsDisabled = true;
    if (tag === "legend" && fsDisabled && parentTag(el) === "fieldset") fsDisabled = false;
    if (NO_CHILDREN[tag]) return;
    const sr = el.shadowRoot as PageShadowRoot | null;
    if (!sr && el.firstChild === null && tag !== "slot") return;

    const posClip = positioned ? cclip : ctx.posClip;
    const posVp = positioned ? cvp : ctx.posVp;
    const ariaDisabled = ctx.ariaDisabled || A["aria-disabled"] === "true";
    const label = tag === "label" ? el : ctx.label;
    const inCand = ctx.inCand || rec !== null;
    const cBlocked = el === topModal ? false : ctx.blocked;
    const detailsOpen = tag === "details" ? A.open !== undefined : ctx.detailsOpen;
    let c: Ctx = ctx;
    if (
      cclip !== ctx.clip ||
      cvp !== ctx.vp ||
      posClip !== ctx.posClip ||
      posVp !== ctx.posVp ||
      vis !== ctx.vis ||
      transparent !== ctx.transparent ||
      fsDisabled !== ctx.fsDisabled ||
      ariaDisabled !== ctx.ariaDisabled ||
      editable !== ctx.editable ||
      label !== ctx.label ||
      pointer !== ctx.pointer ||
      inCand !== ctx.inCand ||
      mute !== ctx.mute ||
      modal !== ctx.modal ||
      filter !== ctx.filter ||
      listbox !== ctx.listbox ||
      cBlocked !== ctx.blocked ||
      detailsOpen !== ctx.detailsOpen ||
      sr
    ) {
      c = {
        doc: ctx.doc,
        view: ctx.view,
        roots: sr ? { root: sr, up: ctx.roots } : ctx.roots,
        frame: ctx.frame,
        fx: ctx.fx,
        fy: ctx.fy,
        fsx: ctx.fsx,
        fsy: ctx.fsy,
        clip: cclip,
        vp: cvp,
        posClip,
        posVp,
        fixClip: ctx.fixClip,
        fixVp: ctx.fixVp,
        vis,
        transparent,
        fsDisabled,
        ariaDisabled,
        editable,
        label,
        pointer,
        inCand,
        mute,
        modal,
        filter,
        listbox,
        blocked: cBlocked,
        detailsOpen,
      };
    }

    const d = depth + 1;
    if (sr) {
      pushChildren(sr, c, d);
      return;
    }
    if (tag === "slot" && typeof el.assignedNodes === "function") {
      const assigned = el.assignedNodes();
      if (assigned.length) {
        // Slotted nodes belong to the host's tree scope for id and label lookups.
        const up = ctx.roots.up;
        pushList(assigned, up ? { ...c, roots: up } : c, d);
        return;
      }
    }
    if (tag === "details" && A.open === undefined) {
      // Closed details render only their first summary.
      for (let k = el.firstChild; k; k = k.nextSibling) {
        if (k.nodeType === 1 && lower((k as PageElement).localName) === "summary") {
          push(k, c, d);
          break;
        }
      }
      return;
    }
    pushChildren(el, c, d);
  };

  const rootClip: Clip = { l: 0, t: 0, r: vw || INF, b: vh || INF };
  const rootCtx: Ctx = {
    doc: topDoc,
    view: win,
    roots: { root: topDoc, up: null },
    frame: "",
    fx: 0,
    fy: 0,
    fsx: sx,
    fsy: sy,
    clip: NOCLIP,
    vp: rootClip,
    posClip: NOCLIP,
    posVp: rootClip,
    fixClip: NOCLIP,
    fixVp: rootClip,
    vis: true,
    transparent: false,
    fsDisabled: false,
    ariaDisabled: false,
    editable: false,
    label: null,
    pointer: false,
    inCand: false,
    mute: 0,
    modal: -1,
    filter: -1,
    listbox: -1,
    blocked: topModal !== null,
    detailsOpen: false,
  };
  if (de) push(de, rootCtx, 0);

  while (sN.length) {
    const item = sN.pop() as PageNode | Rec;
    const ctx = sC.pop();
    const depth = sD.pop() as number;
    if (!ctx) {
      finish(item as Rec);
      candStack.pop();
      continue;
    }
    if (++visited > WORK) {
      workHit = true;
      visited--;
      break;
    }
    const node = item as PageNode;
    let type = 0;
    try {
      type = node.nodeType;
    } catch {
      errors++;
      continue;
    }
    if (type === 3) {
      if (ctx.vis && !ctx.transparent && candStack.length > ctx.mute) {
        try {
          appendText(ctx, (node as PageText).data);
        } catch {
          errors++;
        }
      }
      continue;
    }
    if (type !== 1) continue;
    const mark = sN.length;
    const recMark = recs.length;
    const candMark = candStack.length;
    try {
      visit(node as PageElement, ctx, depth);
    } catch {
      // One hostile element must not break the snapshot: undo what it pushed, then still walk
      // its children with the parent's context.
      errors++;
      sN.length = mark;
      sC.length = mark;
      sD.length = mark;
      recs.length = recMark;
      candStack.length = candMark;
      try {
        pushChildren(node, ctx, depth + 1);
      } catch {
        /* children unreachable */
      }
    }
  }
  // Work limit: close what is still open with the text gathered so far.
  while (candStack.length) finish(candStack.pop() as Rec);

  // ---- refs: every candidate gets a number, in document order ---------------------------------
  const candidateRefs: number[] = [];
  let totalCandidates = 0;
  for (let i = 0; i < recs.length; i++) {
    const r = recs[i] as Rec;
    r.ref = refFor(r.el);
    candidateRefs.push(r.ref);
    if (r.kind === "element") totalCandidates++;
  }

  // A very long-lived document (infinite scroll) can accumulate many dead numbers; drop the ones
  // whose element was garbage-collected. They then resolve as unknown_ref, still never rebound.
  if (hasWeakRef && registry.byRef.size > 50000) {
    registry.byRef.forEach((held, n) => {
      if (held instanceof WeakRef && held.deref() === undefined) registry.byRef.delete(n);
    });
  }

  // ---- folding --------------------------------------------------------------------------------
  const toElement = (r: Rec): SnapshotElement => {
    const e: SnapshotElement = { kind: "element", ref: r.ref, role: r.role, name: r.name, box: r.box, inViewport: r.inVp };
    if (r.sensitive) {
      e.sensitive = true;
      e.valueLength = r.valueLength;
    } else if (r.value) e.value = r.value;
    if (r.checked !== null) e.checked = r.checked;
    if (r.selected !== null) e.selected = r.selected;
    if (r.pressed !== null) e.pressed = r.pressed;
    if (r.expanded !== null) e.expanded = r.expanded;
    if (r.disabled) e.disabled = true;
    if (r.required) e.required = true;
    if (r.readonly) e.readonly = true;
    if (r.focused) e.focused = true;
    if (r.frame) e.frame = r.frame;
    if (r.via) e.via = r.via;
    if (r.dom) e.source = "dom";
    return e;
  };
  const toFrame = (r: Rec): SnapshotFrame => ({
    kind: "frame",
    ref: r.ref,
    role: "iframe",
    name: r.name,
    src: r.src,
    frame: r.frame,
    reason: r.reason,
    box: r.box,
    offset: r.offset,
    inViewport: r.inVp,
  });
  const same = (a: Rec | undefined, b: Rec | undefined): boolean =>
    !!a && !!b && a.kind === "element" && b.kind === "element" && a.key === b.key && !a.focused && !b.focused;

  const entries: SnapshotEntry[] = [];
  const n = recs.length;
  for (let i = 0; i < n; ) {
    const r = recs[i] as Rec;
    if (r.kind === "frame") {
      entries.push(toFrame(r));
      i++;
      continue;
    }
    let bestP = 0;
    let bestLen = 0;
    if (FOLD_MIN > 0) {
      for (let p = 1; p <= 4; p++) {
        if (i + p * FOLD_MIN > n) break;
        let j = i + p;
        while (j < n && same(recs[j], recs[j - p])) j++;
        const reps = Math.floor((j - i) / p);
        if (reps >= FOLD_MIN && reps * p > bestLen) {
          bestP = p;
          bestLen = reps * p;
        }
      }
    }
    if (bestP > 0) {
      let expanded = false;
      for (let k = i; k < i + bestLen && expand.size; k++) if (expand.has((recs[k] as Rec).ref)) expanded = true;
      if (expanded) {
        // Expanded on request: list the whole run, do not re-detect a shorter run inside it.
        for (let k = i; k < i + bestLen; k++) entries.push(toElement(recs[k] as Rec));
        i += bestLen;
        continue;
      }
      {
        for (let k = i; k < i + bestP; k++) entries.push(toElement(recs[k] as Rec));
        const refs: number[] = [];
        const samples: string[] = [];
        const roles: string[] = [];
        for (let k = i; k < i + bestP; k++) roles.push((recs[k] as Rec).role);
        const lastK = i + bestLen - 1;
        for (let k = i + bestP; k < i + bestLen; k++) {
          const fr = recs[k] as Rec;
          refs.push(fr.ref);
          if ((k === i + bestP || k === i + bestP + 1 || k === lastK) && fr.name && samples.indexOf(fr.name) < 0) {
            samples.push(fr.name);
          }
        }
        const first = recs[i + bestP] as Rec;
        const fold: SnapshotFold = {
          kind: "fold",
          count: refs.length,
          firstRef: refs[0] as number,
          lastRef: refs[refs.length - 1] as number,
          refs,
          role: first.role,
          roles,
          period: bestP,
          samples,
        };
        if (first.frame) fold.frame = first.frame;
        entries.push(fold);
        i += bestLen;
        continue;
      }
    }
    entries.push(toElement(r));
    i++;
  }

  // ---- limits ---------------------------------------------------------------------------------
  const reasons: Record<string, boolean> = Object.create(null);
  const elements: SnapshotEntry[] = [];
  let bytes = 64;
  let text = 0;
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i] as SnapshotEntry;
    if (elements.length >= LIMIT) {
      reasons.element_limit = true;
      break;
    }
    let t = 0;
    if (e.kind === "fold") {
      for (let k = 0; k < e.samples.length; k++) t += (e.samples[k] as string).length;
    } else {
      t = e.name.length + (e.kind === "element" && e.value ? e.value.length : 0);
    }
    if (text + t > MAX_TEXT) {
      reasons.text_limit = true;
      break;
    }
    const b = 80 + t * 1.2 + (e.kind === "fold" ? 8 * e.refs.length : 0) + (e.kind === "frame" ? e.src.length : 0);
    if (bytes + b > MAX_BYTES) {
      reasons.byte_limit = true;
      break;
    }
    text += t;
    bytes += b;
    elements.push(e);
  }
  if (depthHit) reasons.depth_limit = true;
  if (workHit) reasons.work_limit = true;
  const order: TruncationReason[] = ["element_limit", "text_limit", "depth_limit", "byte_limit", "work_limit"];
  const truncationReasons: TruncationReason[] = [];
  for (let i = 0; i < order.length; i++) {
    const k = order[i] as TruncationReason;
    if (reasons[k]) truncationReasons.push(k);
  }

  // ---- hints (bounded: at most 5, at most 8 refs each) ----------------------------------------
  const hints: SnapshotHint[] = [];
  const refsOf = (list: Rec[]): number[] => {
    const out: number[] = [];
    for (let i = 0; i < list.length && out.length < 8; i++) {
      const r = list[i] as Rec;
      if (r.ref > 0 && out.indexOf(r.ref) < 0) out.push(r.ref);
    }
    return out;
  };
  if (modals.length) {
    let chosen: Modal | null = null;
    for (let i = modals.length - 1; i >= 0; i--) {
      const m = modals[i] as Modal;
      if (!chosen || (m.blocking && !chosen.blocking)) chosen = m;
      if (chosen.blocking) break;
    }
    if (chosen) {
      hints.push({
        type: "modal_overlay",
        confidence: chosen.blocking ? "strong" : "possible",
        recommendedAction: "resolve_overlay_first",
        blocking: chosen.blocking,
        refs: refsOf(chosen.recs),
      });
    }
  }
  const authRecs: Rec[] = [];
  let authStrong = false;
  for (let i = 0; i < recs.length; i++) {
    const r = recs[i] as Rec;
    if (r.password) {
      authStrong = true;
      authRecs.push(r);
    } else if (r.loginForm && (TEXTISH[r.role] || r.role === "button")) authRecs.push(r);
  }
  if (authRecs.length && (authStrong || authRecs.some((r) => TEXTISH[r.role]))) {
    hints.push({
      type: "authentication_surface",
      confidence: authStrong ? "strong" : "possible",
      recommendedAction: "inspect_authentication_state",
      state: "present",
      refs: refsOf(authRecs),
    });
  }
  const acRecs: Rec[] = [];
  let acStrong = false;
  for (let i = 0; i < recs.length; i++) {
    const r = recs[i] as Rec;
    if (r.role === "combobox" && (r.expanded === true || r.autocomplete)) {
      if (r.expanded === true) acStrong = true;
      if (r.expanded === true || r.focused) acRecs.push(r);
    }
  }
  let anyCombobox = false;
  for (let i = 0; i < recs.length && !anyCombobox; i++) anyCombobox = (recs[i] as Rec).role === "combobox";
  for (let i = 0; i < listboxes.length && anyCombobox; i++) {
    const lb = listboxes[i] as Rec[];
    for (let k = 0; k < lb.length; k++) acRecs.push(lb[k] as Rec);
  }
  if (acRecs.length) {
    hints.push({
      type: "autocomplete",
      confidence: acStrong ? "strong" : "possible",
      recommendedAction: "observe_then_select",
      refs: refsOf(acRecs),
    });
  }
  const filterRecs: Rec[] = [];
  for (let i = 0; i < filters.length; i++) {
    const f = filters[i] as Rec[];
    if (f.length >= 3) for (let k = 0; k < f.length; k++) filterRecs.push(f[k] as Rec);
  }
  if (filterRecs.length) {
    hints.push({
      type: "filter_controls",
      confidence: "strong",
      recommendedAction: "review_refinement_controls",
      refs: refsOf(filterRecs),
    });
  }
  if (hints.length > 5) hints.length = 5;

  let title = "";
  let url = "";
  try {
    title = cut(bound(String(topDoc.title || ""), 8192).replace(/\s+/g, " ").trim(), 4096);
    url = cut(String(topDoc.URL || ""), 16384);
  } catch {
    errors++;
  }

  return {
    title,
    url,
    page,
    elements,
    totalCandidates,
    candidateRefs,
    truncated: truncationReasons.length > 0,
    truncationReasons,
    hints,
    layout: LAYOUT,
    stats: {
      visitedNodes: visited,
      candidates: totalCandidates,
      frames,
      errors,
      nextRef: registry.next,
      ms: Date.now() - started,
    },
  };
}

/** The injectable source: an expression evaluating to the function. */
export const SNAPSHOT_SOURCE = `(${pageSnapshot.toString()})`;

/**
 * A complete expression for `Runtime.evaluate` in an isolated world: runs the snapshot with the
 * given options (JSON) and returns the result by value.
 */
export function snapshotExpression(options: SnapshotOptions): string {
  return `${SNAPSHOT_SOURCE}(window, ${JSON.stringify(options)})`;
}
