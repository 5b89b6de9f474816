import { describe, expect, test } from "bun:test";
import { BpError } from "../../shared/errors.ts";
import { keyForChar, parseCombo } from "./keys.ts";

function fieldOf(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e instanceof BpError ? { code: e.code, field: e.context?.field } : e;
  }
  return undefined;
}

describe("parseCombo", () => {
  test("named keys, case-insensitive, with aliases", () => {
    expect(parseCombo("Enter").key).toMatchObject({ key: "Enter", code: "Enter", keyCode: 13, text: "\r" });
    expect(parseCombo("esc").key).toMatchObject({ key: "Escape", keyCode: 27 });
    expect(parseCombo("ArrowDown").key).toMatchObject({ key: "ArrowDown", keyCode: 40 });
    expect(parseCombo("pagedown").key.keyCode).toBe(34);
    expect(parseCombo("F12").key).toMatchObject({ key: "F12", code: "F12", keyCode: 123 });
    expect(parseCombo("Space").key).toMatchObject({ key: " ", code: "Space", text: " " });
  });

  test("modifiers join with + and set CDP bits; chords drop the text", () => {
    const c = parseCombo("Control+a");
    expect(c).toMatchObject({ bits: 2, name: "Control+a" });
    expect(c.key).toMatchObject({ key: "a", code: "KeyA", keyCode: 65 });
    expect(c.key.text).toBeUndefined();
    expect(parseCombo("Ctrl+Shift+Tab")).toMatchObject({ bits: 10, name: "Control+Shift+Tab" });
    expect(parseCombo("Cmd+c").bits).toBe(4);
    expect(parseCombo("Alt+F4").bits).toBe(1);
  });

  test("Shift produces the shifted character and keeps its text", () => {
    expect(parseCombo("Shift+a").key).toMatchObject({ key: "A", code: "KeyA", text: "A" });
    expect(parseCombo("Shift+1").key).toMatchObject({ key: "!", code: "Digit1", text: "!" });
    expect(parseCombo("Shift+/").key).toMatchObject({ key: "?", code: "Slash" });
  });

  test("digits, punctuation and the plus key itself", () => {
    expect(parseCombo("7").key).toMatchObject({ code: "Digit7", keyCode: 55, text: "7" });
    expect(parseCombo(",").key).toMatchObject({ code: "Comma", keyCode: 188 });
    expect(parseCombo("+").key).toMatchObject({ key: "+", code: "Equal" });
    expect(parseCombo("Control++")).toMatchObject({ bits: 2, key: { key: "+" } });
  });

  test("bad combos are invalid_argument on field key", () => {
    for (const bad of ["", "Hyper+a", "Control+", "Control+Control+a", "NotAKey", "a+b", "Control+é"]) {
      expect(fieldOf(() => parseCombo(bad))).toEqual({ code: "invalid_argument", field: "key" });
    }
  });
});

describe("keyForChar", () => {
  test("known characters get their physical key; others are text only", () => {
    expect(keyForChar("Q")).toMatchObject({ key: "Q", code: "KeyQ", keyCode: 81, text: "Q" });
    expect(keyForChar("\n")).toMatchObject({ key: "Enter" });
    expect(keyForChar("é")).toEqual({ key: "é", code: "", keyCode: 0, text: "é" });
  });
});
