import type { CdpSession } from "../../cdp/session.ts";
import { invalidArgument } from "../../shared/errors.ts";

/** One physical key as Input.dispatchKeyEvent wants it (US layout). */
export interface KeyDef {
  key: string;
  code: string;
  keyCode: number;
  /** Text the key inserts when no modifier other than Shift is held. */
  text?: string;
  location?: number;
}

export interface Combo {
  /** Modifier keys held, in press order. */
  modifiers: KeyDef[];
  key: KeyDef;
  /** CDP modifier bits: Alt 1, Control 2, Meta 4, Shift 8. */
  bits: number;
  name: string;
}

const MODIFIERS: Record<string, KeyDef & { bit: number }> = {
  alt: { key: "Alt", code: "AltLeft", keyCode: 18, location: 1, bit: 1 },
  option: { key: "Alt", code: "AltLeft", keyCode: 18, location: 1, bit: 1 },
  control: { key: "Control", code: "ControlLeft", keyCode: 17, location: 1, bit: 2 },
  ctrl: { key: "Control", code: "ControlLeft", keyCode: 17, location: 1, bit: 2 },
  meta: { key: "Meta", code: "MetaLeft", keyCode: 91, location: 1, bit: 4 },
  cmd: { key: "Meta", code: "MetaLeft", keyCode: 91, location: 1, bit: 4 },
  command: { key: "Meta", code: "MetaLeft", keyCode: 91, location: 1, bit: 4 },
  shift: { key: "Shift", code: "ShiftLeft", keyCode: 16, location: 1, bit: 8 },
};

const NAMED: Record<string, KeyDef> = {
  enter: { key: "Enter", code: "Enter", keyCode: 13, text: "\r" },
  return: { key: "Enter", code: "Enter", keyCode: 13, text: "\r" },
  escape: { key: "Escape", code: "Escape", keyCode: 27 },
  esc: { key: "Escape", code: "Escape", keyCode: 27 },
  tab: { key: "Tab", code: "Tab", keyCode: 9 },
  space: { key: " ", code: "Space", keyCode: 32, text: " " },
  backspace: { key: "Backspace", code: "Backspace", keyCode: 8 },
  delete: { key: "Delete", code: "Delete", keyCode: 46 },
  insert: { key: "Insert", code: "Insert", keyCode: 45 },
  arrowup: { key: "ArrowUp", code: "ArrowUp", keyCode: 38 },
  arrowdown: { key: "ArrowDown", code: "ArrowDown", keyCode: 40 },
  arrowleft: { key: "ArrowLeft", code: "ArrowLeft", keyCode: 37 },
  arrowright: { key: "ArrowRight", code: "ArrowRight", keyCode: 39 },
  home: { key: "Home", code: "Home", keyCode: 36 },
  end: { key: "End", code: "End", keyCode: 35 },
  pageup: { key: "PageUp", code: "PageUp", keyCode: 33 },
  pagedown: { key: "PageDown", code: "PageDown", keyCode: 34 },
};
for (let n = 1; n <= 12; n++) NAMED[`f${n}`] = { key: `F${n}`, code: `F${n}`, keyCode: 111 + n };

/** Unshifted punctuation and the shifted character on the same key. */
const PUNCT: [string, string, string, number][] = [
  ["-", "_", "Minus", 189],
  ["=", "+", "Equal", 187],
  ["[", "{", "BracketLeft", 219],
  ["]", "}", "BracketRight", 221],
  ["\\", "|", "Backslash", 220],
  [";", ":", "Semicolon", 186],
  ["'", '"', "Quote", 222],
  [",", "<", "Comma", 188],
  [".", ">", "Period", 190],
  ["/", "?", "Slash", 191],
  ["`", "~", "Backquote", 192],
];
const DIGIT_SHIFTED = ")!@#$%^&*(";

const CHARS = new Map<string, KeyDef>();
const SHIFTED = new Map<string, string>();
for (let i = 0; i < 26; i++) {
  const lower = String.fromCharCode(97 + i);
  const upper = lower.toUpperCase();
  CHARS.set(lower, { key: lower, code: `Key${upper}`, keyCode: 65 + i, text: lower });
  CHARS.set(upper, { key: upper, code: `Key${upper}`, keyCode: 65 + i, text: upper });
  SHIFTED.set(lower, upper);
}
for (let d = 0; d <= 9; d++) {
  const ch = String(d);
  const shifted = DIGIT_SHIFTED[d] ?? ch;
  CHARS.set(ch, { key: ch, code: `Digit${d}`, keyCode: 48 + d, text: ch });
  CHARS.set(shifted, { key: shifted, code: `Digit${d}`, keyCode: 48 + d, text: shifted });
  SHIFTED.set(ch, shifted);
}
for (const [plain, shifted, code, keyCode] of PUNCT) {
  CHARS.set(plain, { key: plain, code, keyCode, text: plain });
  CHARS.set(shifted, { key: shifted, code, keyCode, text: shifted });
  SHIFTED.set(plain, shifted);
}
CHARS.set(" ", { key: " ", code: "Space", keyCode: 32, text: " " });

export function keyForChar(ch: string): KeyDef {
  if (ch === "\n" || ch === "\r") return NAMED.enter as KeyDef;
  if (ch === "\t") return NAMED.tab as KeyDef;
  return CHARS.get(ch) ?? { key: ch, code: "", keyCode: 0, text: ch };
}

function badKey(combo: string, why: string): never {
  throw invalidArgument(
    "key",
    `Cannot press '${combo}': ${why}. Examples: Enter, Escape, Tab, ArrowDown, F5, a, Control+a, Shift+Tab, Meta+c.`,
    { key: combo },
  );
}

export function parseCombo(combo: string): Combo {
  let parts: string[];
  if (combo === "+") parts = ["+"];
  else if (combo.endsWith("++")) parts = [...combo.slice(0, -2).split("+"), "+"];
  else parts = combo.split("+");
  if (parts.some((p) => p.trim() === "") || parts.length > 5) badKey(combo, "empty key name");
  const last = (parts.pop() ?? "").trim();
  const modifiers: KeyDef[] = [];
  let bits = 0;
  for (const raw of parts) {
    const m = MODIFIERS[raw.trim().toLowerCase()];
    if (!m) badKey(combo, `'${raw}' is not a modifier (Control/Ctrl, Shift, Alt, Meta/Cmd/Command)`);
    if (bits & m.bit) badKey(combo, `'${raw}' appears twice`);
    bits |= m.bit;
    modifiers.push({ key: m.key, code: m.code, keyCode: m.keyCode, location: 1 });
  }
  const lower = last.toLowerCase();
  let key: KeyDef | undefined = NAMED[lower];
  if (!key && MODIFIERS[lower]) {
    const m = MODIFIERS[lower];
    key = { key: m.key, code: m.code, keyCode: m.keyCode, location: 1 };
  }
  if (!key && [...last].length === 1) {
    const ch = bits & 8 ? (SHIFTED.get(last) ?? last) : last;
    key = CHARS.get(ch);
  }
  if (!key) badKey(combo, `unknown key '${last}'`);
  // Control, Alt and Meta chords never insert text (Control+a selects, it does not type "a").
  const out: KeyDef = bits & 7 ? withoutText(key) : key;
  const name = [...modifiers.map((m) => m.key), out.key === " " ? "Space" : out.key].join("+");
  return { modifiers, key: out, bits, name };
}

function withoutText(k: KeyDef): KeyDef {
  const { text: _text, ...rest } = k;
  return rest;
}

/**
 * macOS maps editing keys to browser-process commands, which synthetic events skip: send the command with the event.
 */
function macCommands(k: KeyDef, bits: number): string[] | undefined {
  if (process.platform !== "darwin") return undefined;
  const meta = (bits & 4) !== 0;
  if (meta && k.code === "KeyA") return ["selectAll"];
  if (meta && k.code === "KeyC") return ["copy"];
  if (meta && k.code === "KeyX") return ["cut"];
  if (meta && k.code === "KeyV") return ["paste"];
  if (meta && k.code === "KeyZ") return [bits & 8 ? "redo" : "undo"];
  const plain: Record<string, string> = {
    Backspace: "deleteBackward",
    Delete: "deleteForward",
    ArrowLeft: "moveLeft",
    ArrowRight: "moveRight",
    ArrowUp: "moveUp",
    ArrowDown: "moveDown",
    Home: "moveToBeginningOfLine",
    End: "moveToEndOfLine",
  };
  return bits === 0 && plain[k.key] ? [plain[k.key] as string] : undefined;
}

async function keyEvent(session: CdpSession, k: KeyDef, bits: number, down: boolean): Promise<void> {
  const base = {
    key: k.key,
    code: k.code,
    windowsVirtualKeyCode: k.keyCode,
    nativeVirtualKeyCode: k.keyCode,
    modifiers: bits,
    ...(k.location ? { location: k.location } : {}),
  };
  if (!down) {
    await session.send("Input.dispatchKeyEvent", { type: "keyUp", ...base });
    return;
  }
  const commands = macCommands(k, bits);
  await session.send("Input.dispatchKeyEvent", {
    type: k.text ? "keyDown" : "rawKeyDown",
    ...base,
    ...(k.text ? { text: k.text, unmodifiedText: k.text } : {}),
    ...(commands ? { commands } : {}),
  });
}

/** Presses a combo as a person would: modifiers down, key down/up, modifiers up in reverse. */
export async function pressCombo(session: CdpSession, c: Combo): Promise<void> {
  const sent: Promise<void>[] = [];
  let bits = 0;
  const held: { k: KeyDef; bit: number }[] = [];
  for (const m of c.modifiers) {
    const bit = MODIFIERS[m.key.toLowerCase()]?.bit ?? 0;
    bits |= bit;
    held.push({ k: m, bit });
    sent.push(keyEvent(session, m, bits, true));
  }
  sent.push(keyEvent(session, c.key, bits, true));
  sent.push(keyEvent(session, c.key, bits, false));
  for (const h of held.reverse()) {
    bits &= ~h.bit;
    sent.push(keyEvent(session, h.k, bits, false));
  }
  for (const p of sent) p.catch(() => undefined);
  await Promise.all(sent);
}

/**
 * Whether a key types text (printable, Space included) rather than a command: what a page sends for text (a typing
 * indicator) answers no command (settle/requests/requests.ts).
 */
export function typesText(key: KeyDef | string): boolean {
  const text = typeof key === "string" ? key : key.text;
  return text !== undefined && text.length > 0 && (text.codePointAt(0) ?? 0) >= 0x20 && text !== "\u007f";
}

/** Types one character as a trusted key press (no modifiers; the text carries the case). */
export function typeChar(session: CdpSession, ch: string): Promise<void> {
  return pressCombo(session, { modifiers: [], key: keyForChar(ch), bits: 0, name: ch });
}
