import { afterAll, describe, expect, test } from "bun:test";
import type { HTMLInputElement } from "happy-dom";
import { closePages, page } from "../../../test/support/happy-dom.ts";
import { bundled } from "../../../test/support/page-bundle.ts";

type Edit = (win: unknown, el: unknown, arg: Record<string, unknown>) => Record<string, unknown>;
const edit = bundled<Edit>("edit");
const quiet = bundled<(win: unknown, arg: Record<string, unknown>) => unknown>("quiet");

afterAll(closePages);

describe("page edit prepare", () => {
  test("classifies inputs, passwords, value controls, contenteditable and the rest", () => {
    const { w, $ } = page(`<input id=t value="abc"><input id=p type=password value="secret"><input id=d type=date>
      <textarea id=ta></textarea><div id=ce contenteditable="true">hi</div><button id=b>B</button><input id=c type=checkbox>`);
    const prep = (id: string) => edit(w, $(`#${id}`), { op: "prepare", token: "k" });
    expect(prep("t")).toMatchObject({ ok: true, kind: "input", mode: "text", sensitive: false, length: 3 });
    expect(prep("p")).toMatchObject({ ok: true, kind: "input", sensitive: true, length: 6 });
    expect(prep("d")).toMatchObject({ ok: true, kind: "input", mode: "setter" });
    expect(prep("ta")).toMatchObject({ ok: true, kind: "input", mode: "text" });
    expect(prep("b")).toMatchObject({ ok: false, reason: "not_editable", tag: "button" });
    expect(prep("c")).toMatchObject({ ok: false, reason: "not_editable" });
    // happy-dom has no isContentEditable; Chromium covers contenteditable end to end.
  });

  test("a label or a wrapper leads to the editable control inside", () => {
    const { w, $ } = page(
      `<label id=l for=x>Name</label><input id=x value="q"><div id=wrap><span>Field</span><input id=y></div>`,
    );
    expect(edit(w, $("#l"), { op: "prepare", token: "k" })).toMatchObject({ ok: true, kind: "input", length: 1 });
    expect(edit(w, $("#wrap"), { op: "prepare", token: "k" })).toMatchObject({ ok: true, kind: "input", length: 0 });
  });

  test("disabled and read-only targets are reported, and focus is taken", () => {
    const { w, $ } = page(`<input id=a disabled><input id=r readonly><input id=f>`);
    expect(edit(w, $("#a"), { op: "prepare", token: "k" })).toMatchObject({ disabled: true });
    expect(edit(w, $("#r"), { op: "prepare", token: "k" })).toMatchObject({ readOnly: true });
    edit(w, $("#f"), { op: "prepare", token: "k" });
    expect(edit(w, null, { op: "focus", token: "k" })).toEqual({ ok: true, focused: true });
    expect(w.document.activeElement).toBe($("#f"));
    expect(edit(w, null, { op: "pin", token: "k" })).toEqual({ ok: true, focused: true });
  });
});

describe("page edit pinning and readback", () => {
  test("after a focusing click the pin answers a task later even when the page scheduled nothing the ledger counts", async () => {
    const { w, $ } = page(`<input id=a><input id=b>`);
    edit(w, $("#a"), { op: "prepare", token: "k" });
    expect(quiet(w, { op: "install", id: 1 })).toBe(true);
    edit(w, null, { op: "focus", token: "k" });
    // A focus handler's message or posted task: queued outside the window's timers, so the
    // quiet watchers' ledger shows nothing scheduled. The pin still answers behind it.
    setTimeout(() => $("#b").focus(), 0);
    const later = edit(w, null, { op: "pin", token: "k", after: "task" });
    expect(later).toBeInstanceOf(Promise);
    expect(await later).toEqual({ ok: true, focused: false, moved: true });
    // Without "after" (a field that had focus already) it answers in the call.
    expect(edit(w, null, { op: "pin", token: "k" })).toEqual({ ok: true, focused: false, moved: true });
  });

  test("check passes while focus stays, names focus_changed and document_replaced", () => {
    const { w, $ } = page(`<input id=a><input id=b>`);
    edit(w, $("#a"), { op: "prepare", token: "t1" });
    edit(w, null, { op: "focus", token: "t1" });
    edit(w, null, { op: "pin", token: "t1" });
    expect(edit(w, null, { op: "check", token: "t1" })).toEqual({ ok: true });
    $("#b").focus();
    expect(edit(w, null, { op: "check", token: "t1" })).toEqual({ ok: false, reason: "focus_changed" });
    // Another action's token (or a fresh world after navigation) has no slot.
    expect(edit(w, null, { op: "check", token: "other" })).toEqual({ ok: false, reason: "document_replaced" });
  });

  test("read compares without returning the value: replace, append, contains", () => {
    const { w, $ } = page(`<input id=a value="ab">`);
    const input = $("#a") as HTMLInputElement;
    edit(w, input, { op: "prepare", token: "k" });
    input.value = "abcd";
    expect(edit(w, null, { op: "read", token: "k", text: "cd", mode: "append" })).toMatchObject({
      matched: true,
      length: 4,
      expectedLength: 4,
    });
    expect(edit(w, null, { op: "read", token: "k", text: "cd", mode: "replace" })).toMatchObject({
      matched: false,
      expectedLength: 2,
    });
    expect(edit(w, null, { op: "read", token: "k", text: "bc", mode: "contains" })).toMatchObject({ matched: true });
    const out = JSON.stringify(edit(w, null, { op: "read", token: "k", text: "zz", mode: "append" }));
    expect(out).not.toContain("abcd");
  });

  test("single-line inputs drop line breaks and email inputs trim before comparing", () => {
    const { w, $ } = page(`<input id=a><input id=e type=email>`);
    edit(w, $("#a"), { op: "prepare", token: "k" });
    ($("#a") as HTMLInputElement).value = "ab";
    expect(edit(w, null, { op: "read", token: "k", text: "a\nb", mode: "replace" })).toMatchObject({ matched: true });
    edit(w, $("#e"), { op: "prepare", token: "k" });
    ($("#e") as HTMLInputElement).value = "x@y.z";
    expect(edit(w, null, { op: "read", token: "k", text: " x@y.z ", mode: "replace" })).toMatchObject({
      matched: true,
    });
  });

  test("setValue uses the native setter and fires input and change", () => {
    const { w, $ } = page(`<input id=d type=range min=0 max=10 value=2>`);
    const seen: string[] = [];
    $("#d").addEventListener("input", () => seen.push("input"));
    $("#d").addEventListener("change", () => seen.push("change"));
    edit(w, $("#d"), { op: "prepare", token: "k" });
    edit(w, null, { op: "setValue", token: "k", value: "7" });
    expect(($("#d") as HTMLInputElement).value).toBe("7");
    expect(seen).toEqual(["input", "change"]);
  });

  test("state reports focus moves and value length for press evidence", () => {
    const { w, $ } = page(`<input id=a value="hello"><input id=b>`);
    $("#a").focus();
    const before = edit(w, null, { op: "active", token: "p" });
    expect(before).toMatchObject({ kind: "input", length: 5 });
    ($("#a") as HTMLInputElement).value = "";
    $("#b").focus();
    expect(edit(w, null, { op: "state", token: "p" })).toMatchObject({ ok: true, sameFocus: false, length: 0 });
  });
});
