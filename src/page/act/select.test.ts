import { afterAll, describe, expect, test } from "bun:test";
import type { HTMLSelectElement } from "happy-dom";
import { closePages, page } from "../../../test/support/happy-dom.ts";
import { bundled } from "../../../test/support/page-bundle.ts";

type Script = (win: unknown, el: unknown, arg: Record<string, unknown>) => Record<string, unknown>;
const choose = bundled<Script>("select");
const upload = bundled<Script>("upload");

afterAll(closePages);

const NATIVE = `<label for=s>Country</label><select id=s><option value="">Choose</option><option value="ca">Canada</option>
  <optgroup label=Old disabled><option value="su">Soviet Union</option></optgroup><option value="jp">Japan</option></select>`;

describe("page select native", () => {
  test("lists options with labels, values, selection and disabled groups; reached through a label", () => {
    const { w, $ } = page(NATIVE);
    const l = choose(w, $("label"), { op: "list" });
    expect(l).toMatchObject({ ok: true, kind: "native", multiple: false, requiresOpen: false, truncated: false });
    expect(l.options).toEqual([
      { index: 0, label: "Choose", value: "", selected: true, disabled: false },
      { index: 1, label: "Canada", value: "ca", selected: false, disabled: false },
      { index: 2, label: "Soviet Union", value: "su", selected: false, disabled: true },
      { index: 3, label: "Japan", value: "jp", selected: false, disabled: false },
    ]);
  });

  test("finds by label (case-insensitive), --contains, value and index", () => {
    const { w, $ } = page(NATIVE);
    const find = (option: string, by: string, contains = false) =>
      (choose(w, $("#s"), { op: "find", option, by, contains }).option as { index: number } | undefined)?.index;
    expect(find("japan", "label")).toBe(3);
    expect(find("jap", "label")).toBeUndefined();
    expect(find("jap", "label", true)).toBe(3);
    expect(find("ca", "value")).toBe(1);
    expect(find("1", "index")).toBe(1);
    expect(choose(w, $("#s"), { op: "find", option: "Mars", by: "label" })).toMatchObject({
      ok: true,
      found: false,
      available: 4,
    });
  });

  test("setNative selects through the element and fires input then change", () => {
    const { w, $ } = page(NATIVE);
    const seen: string[] = [];
    $("#s").addEventListener("input", () => seen.push("input"));
    $("#s").addEventListener("change", () => seen.push(`change:${($("#s") as HTMLSelectElement).value}`));
    choose(w, $("#s"), { op: "find", option: "Japan", by: "label" });
    const r = choose(w, null, { op: "setNative", index: 3 });
    expect(r).toMatchObject({
      ok: true,
      kind: "native",
      selected: ["Japan"],
      target: { connected: true, selected: true },
    });
    expect(seen).toEqual(["input", "change:jp"]);
  });

  test("setFound sets the option find kept, only on an enabled native select with that option enabled", () => {
    const { w, $ } = page(`${NATIVE}<select id=off disabled><option>A</option><option>B</option></select>`);
    const changes: string[] = [];
    $("#s").addEventListener("change", () => changes.push(($("#s") as HTMLSelectElement).value));
    choose(w, $("#s"), { op: "find", option: "Japan", by: "label" });
    expect(choose(w, $("#s"), { op: "setFound" })).toMatchObject({ ok: true, selected: ["Japan"] });
    expect(changes).toEqual(["jp"]);
    // An option not found (after one found in the same select), in a disabled group, on a disabled select: nothing is sent.
    choose(w, $("#s"), { op: "find", option: "Canada", by: "label" });
    choose(w, $("#s"), { op: "find", option: "Mars", by: "label" });
    expect(choose(w, $("#s"), { op: "setFound" })).toEqual({ ok: false, reason: "not_sent" });
    choose(w, $("#s"), { op: "find", option: "Soviet Union", by: "label" });
    expect(choose(w, $("#s"), { op: "setFound" })).toEqual({ ok: false, reason: "not_sent" });
    choose(w, $("#off"), { op: "find", option: "B", by: "label" });
    expect(choose(w, $("#off"), { op: "setFound" })).toEqual({ ok: false, reason: "not_sent" });
    choose(w, $("#s"), { op: "find", option: "Mars", by: "label" });
    expect(choose(w, $("#s"), { op: "setFound" })).toEqual({ ok: false, reason: "not_sent" });
    expect(changes).toEqual(["jp"]);
    expect(($("#off") as HTMLSelectElement).value).toBe("A");
  });

  test("anything else is not a dropdown", () => {
    const { w, $ } = page(`<button id=b>B</button>`);
    expect(choose(w, $("#b"), { op: "list" })).toMatchObject({ ok: false, reason: "not_a_dropdown", tag: "button" });
  });
});

describe("page select aria", () => {
  const ARIA = `<button id=c role=combobox aria-expanded=false aria-controls=lb>Fruit</button>
    <ul id=lb role=listbox hidden><li role=option aria-selected=true data-value=a>Apple</li><li role=option aria-selected=false>Banana</li>
    <li role=option aria-disabled=true>Cherry</li></ul>`;

  test("a combobox finds its listbox through aria-controls and lists options", () => {
    const { w, $ } = page(ARIA);
    const l = choose(w, $("#c"), { op: "list" });
    expect(l).toMatchObject({ ok: true, kind: "aria", expanded: false, multiple: false, requiresOpen: true });
    expect(l.options).toEqual([
      { index: 0, label: "Apple", value: "a", selected: true, disabled: false },
      { index: 1, label: "Banana", value: "Banana", selected: false, disabled: false },
      { index: 2, label: "Cherry", value: "Cherry", selected: false, disabled: true },
    ]);
  });

  test("a listbox ref or an option ref resolve to the listbox; finds prefer enabled options", () => {
    const { w, $ } = page(ARIA.replace("hidden", "aria-multiselectable=true"));
    expect(choose(w, $("#lb"), { op: "list" })).toMatchObject({ kind: "aria", multiple: true });
    expect(choose(w, $("li"), { op: "list" })).toMatchObject({ kind: "aria" });
    expect(choose(w, $("#lb"), { op: "find", option: "cherry", by: "label" })).toMatchObject({
      found: true,
      option: { index: 2, disabled: true },
    });
  });

  test("selected reads back the selection and the owner's text", () => {
    const { w, $ } = page(ARIA);
    choose(w, $("#c"), { op: "find", option: "Banana", by: "label" });
    $("#c").textContent = "Banana";
    const r = choose(w, null, { op: "selected" });
    expect(r).toMatchObject({
      ok: true,
      kind: "aria",
      selected: ["Apple"],
      ownerText: "Banana",
      target: { connected: true, selected: "false" },
    });
  });
});

describe("page upload", () => {
  test("finds the file input itself, through a label, or inside a drop zone", () => {
    const { w, $ } = page(
      `<label id=l for=f>CV</label><input id=f type=file multiple><div id=zone><span>Drop</span><input type=file></div><div id=two><input type=file><input type=file></div>`,
    );
    expect(upload(w, $("#f"), { op: "find" })).toMatchObject({ ok: true, multiple: true, disabled: false });
    expect(upload(w, $("#l"), { op: "find" })).toMatchObject({ ok: true });
    expect(upload(w, $("#zone"), { op: "find" })).toMatchObject({ ok: true, multiple: false });
    expect(upload(w, $("#two"), { op: "find" })).toMatchObject({ ok: false, reason: "not_file_input" });
    expect(upload(w, null, { op: "files" })).toMatchObject({ ok: true, count: 0, names: [] });
  });
});
