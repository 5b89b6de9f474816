/**
 * Whether a hovered element is a trigger whose popup (a submenu, a menu button's list) is still closed: `bp hover`
 * then waits for the popup a hover-intent timer opens, whatever hover styling came first (src/broker/act/hover.ts).
 */
import type { ActElement } from "./dom.ts";

/** Roles a popup element takes (ARIA's aria-haspopup values, and a plain menu). */
const POPUP_ROLES = new Set(["menu", "listbox", "tree", "grid", "dialog"]);
/** How far up a trigger may sit above the hovered element (a menu item's `li` around its link or wrapper). */
const TRIGGER_LEVELS = 2;

/** The element, or an ancestor close above it, says it opens a popup (aria-haspopup other than false) that is not shown. */
export function closedPopup(target: ActElement): boolean {
  let el: ActElement | null = target;
  for (let i = 0; el && i <= TRIGGER_LEVELS; i++, el = el.parentElement) {
    const has = String(el.getAttribute("aria-haspopup") ?? "false")
      .trim()
      .toLowerCase();
    if (has === "" || has === "false") continue;
    return !opened(el);
  }
  return false;
}

/** Expanded by its own account, or a popup it names or holds next to it is shown (jQuery UI's submenu follows its item). */
function opened(trigger: ActElement): boolean {
  if (trigger.getAttribute("aria-expanded") === "true") return true;
  const doc = trigger.ownerDocument;
  const named = `${trigger.getAttribute("aria-controls") ?? ""} ${trigger.getAttribute("aria-owns") ?? ""}`
    .split(/\s+/)
    .filter(Boolean)
    .map((id) => doc.getElementById(id));
  const near = [trigger.nextElementSibling, ...Array.from(trigger.children ?? [])];
  const parent = trigger.parentElement;
  if (parent) near.push(parent.nextElementSibling, ...Array.from(parent.children ?? []));
  for (const p of [...named, ...near]) {
    if (!p || p === trigger) continue;
    const role = String(p.getAttribute("role") ?? (p.localName === "ul" || p.localName === "ol" ? "menu" : ""));
    if (POPUP_ROLES.has(role) && shown(p)) return true;
  }
  return false;
}

function shown(el: ActElement): boolean {
  if (el.getClientRects().length === 0) return false;
  const view = el.ownerDocument.defaultView;
  if (!view) return true;
  const cs = view.getComputedStyle(el);
  return cs.display !== "none" && cs.visibility !== "hidden";
}
