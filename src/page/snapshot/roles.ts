/**
 * Roles: the explicit ARIA role and the implicit (HTML-AAM) role of an element.
 */
import type { Attrs } from "./types.ts";
import { lower } from "./text.ts";

export function inputType(A: Attrs): string {
  return lower(A.type || "text") || "text";
}

export function inputRole(A: Attrs): string {
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
}

export function implicitRole(A: Attrs, tag: string): string {
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
}

export function explicitRole(A: Attrs): string | null {
  const r = A.role;
  if (!r) return null;
  const tokens = r.trim().toLowerCase().split(/\s+/);
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t && /^[a-z]+$/.test(t)) return t;
  }
  return null;
}

export function isButtonType(t: string): boolean {
  return t === "submit" || t === "reset" || t === "button" || t === "image" || t === "file" || t === "color";
}
