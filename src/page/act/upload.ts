/**
 * Page-side file input handling for `bp upload`, run in our isolated world through the page
 * runtime (`upload`, an element step). "find" locates the file input behind a ref (the input,
 * its label's control, or one inside a drop zone) and keeps it in our world's target slot, so
 * the broker can hand that node to DOM.setFileInputFiles; "files" reads back what it holds
 * (names only: the page sees nothing but the file name either).
 */
import { setSlot, slotOf, type ActElement, type ActWindow } from "./dom.ts";
import { opOf } from "../ops.ts";

export interface UploadArg {
  op?: string;
}

const SLOT = Symbol.for("browser-pilot.target.v1");

function isFile(e: ActElement | null | undefined): e is ActElement {
  return !!e && e.localName === "input" && String(e.type).toLowerCase() === "file";
}

/** The upload script's ops (the step's `op`). */
export const UPLOAD_OPS = {
  find: (
    win: ActWindow,
    el: ActElement | null,
  ):
    | { ok: true; multiple: boolean; disabled: boolean; accept: string }
    | { ok: false; reason: "detached" }
    | { ok: false; reason: "not_file_input"; tag: string } => {
    if (!el || !el.isConnected) return { ok: false, reason: "detached" };
    let input: ActElement | null = isFile(el) ? el : null;
    try {
      if (!input && el.localName === "label" && isFile(el.control)) input = el.control;
    } catch {}
    if (!input && el.querySelectorAll) {
      const all = el.querySelectorAll("input[type=file]");
      if (all.length === 1) input = all[0] ?? null;
    }
    if (!input) return { ok: false, reason: "not_file_input", tag: String(el.localName) };
    setSlot(win, SLOT, { el: input });
    const disabled = input.disabled === true || !!(input.closest && input.closest("fieldset[disabled], [inert]"));
    return { ok: true, multiple: !!input.multiple, disabled, accept: String(input.accept || "").slice(0, 200) };
  },
  files: (
    win: ActWindow,
  ): { ok: true; count: number; names: string[] } | { ok: false; reason: "target_unavailable" } => {
    const t = slotOf<{ el?: ActElement }>(win, SLOT)?.el;
    if (!t || !t.isConnected) return { ok: false, reason: "target_unavailable" };
    const names: string[] = [];
    for (let i = 0; t.files && i < t.files.length && i < 20; i++) names.push(String(t.files[i]?.name));
    return { ok: true, count: t.files ? t.files.length : 0, names };
  },
};

export function pageUpload(win: ActWindow, el: ActElement | null, arg: UploadArg): unknown {
  return (opOf(UPLOAD_OPS, arg) ?? unknownOp)(win, el, arg);
}

function unknownOp(): { ok: false; reason: "unknown_op" } {
  return { ok: false, reason: "unknown_op" };
}
