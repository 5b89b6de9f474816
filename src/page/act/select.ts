/**
 * Page-side dropdown handling for `bp dropdown` and `bp select`, run in our isolated world
 * through the page runtime (`select`, an element step) with the ref's element (or null: the
 * control found earlier).
 *
 * A ref may be a native <select> (or its option, label or wrapper), an ARIA listbox, or a
 * combobox / listbox button whose popup list is found through aria-controls, aria-owns,
 * aria-activedescendant or a descendant listbox. The control found is kept in our world's
 * slot, so later steps (after the broker opens the popup) need no ref.
 *
 * ops: "list" options; "find" one option (kept in the target slot for the pointer probe);
 * "waitOption" until it is rendered and visible (bounded, event-driven); "setNative" a
 * native option through the element with input+change events; "setFound" the option "find"
 * kept, in the same call, when nothing forbids it; "selected" for readback.
 */
import { setSlot, slotOf, type ActElement, type ActWindow } from "./dom.ts";
import { opOf } from "../ops.ts";
import { chosen } from "../settle/input.ts";

export interface SelectArg {
  op?: string;
  limit?: number;
  option?: string;
  by?: string;
  contains?: boolean;
  index?: number;
  maxMs?: number;
}

interface Control {
  kind: "native" | "aria";
  owner: ActElement;
  select?: ActElement;
  listbox?: ActElement | null;
}

interface Option {
  el: ActElement;
  index: number;
  label: string;
  value: string;
  selected: boolean;
  disabled: boolean;
}

type Bare = Omit<Option, "el">;

interface Info {
  ok: true;
  kind: Control["kind"];
  expanded: boolean;
  multiple: boolean;
  requiresOpen: boolean;
  disabled: boolean;
  options?: Bare[];
  truncated?: boolean;
  found?: boolean;
  option?: Bare;
  visible?: boolean;
  available?: number;
}

const CONTROL = Symbol.for("browser-pilot.select.v1");
const TARGET = Symbol.for("browser-pilot.target.v1");

function norm(s: unknown): string {
  return String(s == null ? "" : s)
    .replace(/\s+/g, " ")
    .trim();
}

function role(e: ActElement | null | undefined): string {
  return e && e.getAttribute ? String(e.getAttribute("role") || "").toLowerCase() : "";
}

function byIds(ids: string | null, from: ActElement): ActElement[] {
  const root = from.getRootNode ? from.getRootNode() : from.ownerDocument;
  const out: ActElement[] = [];
  for (const id of String(ids || "").split(/\s+/)) {
    if (!id) continue;
    const hit = (root && root.getElementById ? root.getElementById(id) : null) || from.ownerDocument.getElementById(id);
    if (hit) out.push(hit);
  }
  return out;
}

function listboxIn(e: ActElement | null | undefined): ActElement | null {
  if (!e) return null;
  if (role(e) === "listbox") return e;
  return e.querySelector ? e.querySelector("[role=listbox]") : null;
}

function control(e: ActElement | null | undefined): Control | null {
  if (!e || e.nodeType !== 1) return null;
  if (e.localName === "select") return { kind: "native", select: e, owner: e };
  if (e.localName === "option" && e.closest("select")) return control(e.closest("select"));
  try {
    if (e.localName === "label" && e.control && e.control.localName === "select") return control(e.control);
  } catch {}
  const r = role(e);
  if (r === "option" && e.closest("[role=listbox]")) return control(e.closest("[role=listbox]"));
  if (r === "listbox") return { kind: "aria", listbox: e, owner: e };
  if (r === "combobox" || /^(listbox|true)$/.test(String(e.getAttribute("aria-haspopup") || ""))) {
    let lb: ActElement | null = null;
    const refs = byIds(e.getAttribute("aria-controls"), e).concat(byIds(e.getAttribute("aria-owns"), e));
    for (let i = 0; i < refs.length && !lb; i++) lb = listboxIn(refs[i]);
    if (!lb) {
      const ad = byIds(e.getAttribute("aria-activedescendant"), e)[0];
      if (ad) lb = ad.closest("[role=listbox]");
    }
    if (!lb) lb = listboxIn(e.parentElement && e.parentElement.querySelector("[role=listbox]") ? e.parentElement : e);
    return { kind: "aria", listbox: lb, owner: e };
  }
  const inner = e.querySelector ? e.querySelector("select") : null;
  if (inner) return control(inner);
  return null;
}

function visible(o: ActElement): boolean {
  const r = o.getBoundingClientRect();
  if (!(r.width > 0 && r.height > 0)) return false;
  const view = o.ownerDocument.defaultView;
  if (!view) return false;
  const cs = view.getComputedStyle(o);
  return cs.visibility !== "hidden" && cs.display !== "none";
}

function options(c: Control): Option[] {
  const out: Option[] = [];
  if (c.kind === "native") {
    const os = c.select?.options ?? [];
    for (let i = 0; i < os.length; i++) {
      const o = os[i];
      if (!o) continue;
      const p = o.parentNode as ActElement | null;
      const g = p && p.localName === "optgroup" ? p : null;
      out.push({
        el: o,
        index: i,
        label: norm(o.label || o.text),
        value: String(o.value),
        selected: !!o.selected,
        disabled: !!o.disabled || !!(g && g.disabled),
      });
    }
    return out;
  }
  if (!c.listbox) return out;
  const list = c.listbox.querySelectorAll("[role=option]");
  for (let j = 0; j < list.length; j++) {
    const a = list[j];
    if (!a) continue;
    const label = norm(a.getAttribute("aria-label") || a.textContent);
    out.push({
      el: a,
      index: j,
      label,
      value: String(a.getAttribute("data-value") || a.getAttribute("value") || label),
      selected: a.getAttribute("aria-selected") === "true" || a.getAttribute("aria-checked") === "true",
      disabled: a.getAttribute("aria-disabled") === "true",
    });
  }
  return out;
}

function pick(list: Option[], arg: SelectArg): Option | null {
  const want = norm(arg.option),
    lw = want.toLowerCase(),
    hits: Option[] = [];
  for (const o of list) {
    if (arg.by === "index") {
      if (String(o.index) === want) hits.push(o);
      continue;
    }
    const have = arg.by === "value" ? o.value : o.label;
    const ok =
      arg.by === "value"
        ? arg.contains
          ? have.indexOf(want) >= 0
          : have === want
        : arg.contains
          ? have.toLowerCase().indexOf(lw) >= 0
          : have.toLowerCase() === lw;
    if (ok) hits.push(o);
  }
  for (const h of hits) if (!h.disabled) return h;
  return hits[0] || null;
}

function ownerText(c: Control): string {
  const o = c.owner;
  if (!o) return "";
  return norm(
    o.localName === "input" || o.localName === "textarea" ? o.value : o.getAttribute("aria-label") ? "" : o.textContent,
  );
}

function bare(o: Option): Bare {
  return {
    index: o.index,
    label: o.label.slice(0, 200),
    value: o.value.slice(0, 200),
    selected: o.selected,
    disabled: o.disabled,
  };
}

/** Waits (bounded, on mutations) until the wanted option is rendered and visible. */
function waitOption(
  win: ActWindow,
  c: Control,
  found: () => Option | null,
  done: (o: Option | null) => Info,
  maxMs: number,
): Promise<Info> {
  return new Promise((resolve) => {
    let t = 0;
    const obs = new win.MutationObserver(() => {
      const o = found();
      if (o) finish(o);
    });
    const finish = (o: Option | null): void => {
      obs.disconnect();
      win.clearTimeout(t);
      resolve(done(o));
    };
    obs.observe(c.owner.ownerDocument, { subtree: true, childList: true, attributes: true });
    t = win.setTimeout(() => finish(found()), maxMs);
  });
}

/** The control behind the element (or the one kept from an earlier step), with what every op reports of it. */
interface Opened {
  ok: true;
  ctl: Control;
  info: Info;
  list: Option[];
  multiple: boolean;
}

type NotADropdown = { ok: false; reason: "detached" | "not_a_dropdown"; tag: string };

function open(win: ActWindow, el: ActElement | null): Opened | NotADropdown {
  let c: Control | null | undefined;
  if (el) {
    c = control(el);
    if (c) setSlot(win, CONTROL, c);
  } else c = slotOf<Control>(win, CONTROL);
  if (!c)
    return {
      ok: false,
      reason: el && !el.isConnected ? "detached" : "not_a_dropdown",
      tag: el ? String(el.localName) : "",
    };
  if (c.kind === "aria" && !c.listbox) {
    const again = control(c.owner);
    if (again) setSlot(win, CONTROL, (c = again));
  }
  const ctl = c;
  const expanded = ctl.kind === "aria" && ctl.owner.getAttribute("aria-expanded") === "true";
  const multiple =
    ctl.kind === "native"
      ? !!ctl.select?.multiple
      : !!(ctl.listbox && ctl.listbox.getAttribute("aria-multiselectable") === "true");
  const list = options(ctl);
  const shown = ctl.kind === "native" || list.some((o) => visible(o.el));
  const info: Info = {
    ok: true,
    kind: ctl.kind,
    expanded,
    multiple,
    requiresOpen: !shown,
    disabled: ctl.kind === "native" ? !!ctl.select?.disabled : ctl.owner.getAttribute("aria-disabled") === "true",
  };
  return { ok: true, ctl, info, list, multiple };
}

/** An op on the dropdown: an element that is none answers not_a_dropdown (or detached). */
function opened<A, R>(fn: (win: ActWindow, d: Opened, arg: A) => R) {
  return (win: ActWindow, el: ActElement | null, arg: A): R | NotADropdown => {
    const d = open(win, el);
    return d.ok ? fn(win, d, arg) : d;
  };
}

interface Query {
  option?: string;
  by?: string;
  contains?: boolean;
}

/** "find" (now) or "waitOption" (until rendered and visible): the option, kept in the target slot. */
function findOption(win: ActWindow, d: Opened, arg: Query & { maxMs?: number }, wait: boolean): Info | Promise<Info> {
  const { ctl, info } = d;
  let list = d.list;
  const found = (): Option | null => {
    const o = pick(options(ctl), arg);
    return o && (ctl.kind === "native" || visible(o.el)) ? o : null;
  };
  const done = (o: Option | null): Info => {
    // Emptied when nothing is found: a later step (setFound, the probe) never takes an earlier find's option.
    setSlot(win, TARGET, { el: o?.el });
    info.found = !!o;
    if (o) {
      info.option = bare(o);
      info.visible = ctl.kind === "native" || visible(o.el);
    }
    info.available = list.length;
    return info;
  };
  if (!wait) {
    const any = pick(list, arg);
    return done(any && (found() || any));
  }
  const now = found();
  if (now) return done(now);
  return waitOption(
    win,
    ctl,
    found,
    (o) => {
      list = options(ctl);
      return done(o);
    },
    arg.maxMs || 1500,
  );
}

interface Readback {
  ok: true;
  kind: Control["kind"];
  selected: string[];
  target: { selected: boolean | string | null; connected: true } | { connected: false };
  ownerText: string;
  expanded: boolean;
}

/** The selection now, and whether the option found earlier is selected. */
function readback(win: ActWindow, ctl: Control): Readback {
  const sel = options(ctl).filter((o) => o.selected);
  const t2 = slotOf<{ el?: ActElement }>(win, TARGET)?.el;
  const opt =
    t2 && t2.isConnected
      ? {
          selected: t2.getAttribute && (ctl.kind === "native" ? !!t2.selected : t2.getAttribute("aria-selected")),
          connected: true as const,
        }
      : { connected: false as const };
  return {
    ok: true,
    kind: ctl.kind,
    selected: sel.slice(0, 20).map((o) => o.label.slice(0, 200)),
    target: opt,
    ownerText: ownerText(ctl).slice(0, 500),
    expanded: ctl.kind === "aria" && ctl.owner.getAttribute("aria-expanded") === "true",
  };
}

/** The select script's ops (the step's `op`). */
export const SELECT_OPS = {
  list: opened((_win, { info, list }, arg: { limit?: number }): Info => {
    const limit = arg.limit || 200;
    info.options = list.slice(0, limit).map(bare);
    info.truncated = list.length > limit;
    return info;
  }),
  find: opened((win, d, arg: Query) => findOption(win, d, arg, false)),
  waitOption: opened((win, d, arg: Query & { maxMs?: number }) => findOption(win, d, arg, true)),
  setNative: opened((win, d, arg: { index: number }): Readback | { ok: false; reason: "option_not_found" } =>
    setNative(win, d, Number(arg.index)),
  ),
  /**
   * The option "find" kept, set as setNative does, in the call that found it: only on an enabled native select whose
   * option is enabled (anything else is the broker's to judge, and nothing is sent).
   */
  setFound: opened((win, d): Readback | { ok: false; reason: "option_not_found" | "not_sent" } => {
    const kept = slotOf<{ el?: ActElement }>(win, TARGET)?.el;
    const index = kept ? d.list.findIndex((o) => o.el === kept) : -1;
    const option = d.list[index];
    if (d.ctl.kind !== "native" || d.info.disabled || !option || option.disabled)
      return { ok: false, reason: "not_sent" };
    return setNative(win, d, index);
  }),
  selected: opened((win, { ctl }): Readback => readback(win, ctl)),
};

function setNative(
  win: ActWindow,
  { ctl, list, multiple }: Opened,
  index: number,
): Readback | { ok: false; reason: "option_not_found" } {
  const target = list[index];
  if (!target || !ctl.select) return { ok: false, reason: "option_not_found" };
  // An option already selected changes nothing the page shows: no stamp, so the click rule's floor holds.
  if (!target.el.selected) chosen(win, ctl.select, index);
  if (multiple) target.el.selected = true;
  else ctl.select.selectedIndex = index;
  ctl.select.dispatchEvent(new win.Event("input", { bubbles: true, composed: true }));
  ctl.select.dispatchEvent(new win.Event("change", { bubbles: true }));
  return readback(win, ctl);
}

export function pageSelect(win: ActWindow, el: ActElement | null, arg: SelectArg): unknown {
  const op = opOf(SELECT_OPS, arg);
  if (op) return op(win, el, arg);
  const d = open(win, el);
  return d.ok ? { ok: false, reason: "unknown_op" } : d;
}
