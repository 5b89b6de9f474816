import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { requireChromium } from "../support/chromium.ts";
import { makeBpEnv, type BpResult } from "../support/bp.ts";
import { startFixtureServer } from "../support/fixture-server.ts";
import { actionPages } from "./action-pages.ts";

requireChromium();

const site = startFixtureServer(actionPages(() => site.b));

const env = makeBpEnv();
const files = mkdtempSync(join(tmpdir(), "bp-upload-src-"));

beforeAll(async () => {
  expect((await env.run(["launch", "--headless"])).json.ok).toBe(true);
});
afterAll(async () => {
  await env.cleanup();
  site.stop();
});

type El = { r: number; t: string; n?: string; v?: string; vl?: number };
type Evidence = Record<string, unknown> & { status?: string; effects?: string[]; reason?: string };

async function open(path: string): Promise<El[]> {
  const o = await env.run(["open", `${site.a}${path}`]);
  expect(o.json.ok).toBe(true);
  const s = await env.run(["snapshot"]);
  return s.json.elements as El[];
}
const ref = (els: El[], name: string): string => String(els.find((e) => e.n === name || e.v === name)?.r ?? "missing");
const evidence = (r: BpResult): Evidence => r.json.evidence as Evidence;
const evalJs = async (expr: string): Promise<unknown> => (await env.run(["eval", expr])).json.value;

describe("type", () => {
  test("appends by default, --clear replaces, evidence is read back and the diff comes in the same reply", async () => {
    await env.run(["open", `${site.a}/form`, "--new"]);
    const els = await open("/form");
    const r = await env.run(["type", ref(els, "Name"), " new"]);
    expect(evidence(r)).toMatchObject({ status: "verified", beforeLength: 3, afterLength: 7 });
    // Lean evidence: a plain, non-secret input that got what was expected says no more.
    expect(evidence(r)).not.toHaveProperty("kind");
    expect(evidence(r)).not.toHaveProperty("sensitive");
    expect(evidence(r)).not.toHaveProperty("expectedLength");
    expect(evidence(r).effects).toContain("value_changed");
    const changed = (r.json.diff as { changed: El[] }).changed;
    expect(changed.find((e) => e.n === "Name")?.v).toBe("old new");
    const c = await env.run(["type", ref(els, "Name"), "fresh", "--clear"]);
    expect(evidence(c)).toMatchObject({ status: "verified", beforeLength: 7, afterLength: 5 });
    expect(await evalJs("document.getElementById('name').value")).toBe("fresh");
    // No text and nothing on stdin types nothing: refused, not answered as verified.
    const empty = await env.run(["type", ref(els, "Name")], { stdin: "" });
    expect(empty.json).toMatchObject({ ok: false, code: "invalid_argument", context: { field: "text" } });
    expect((await env.run(["keyboard"], { stdin: "" })).json).toMatchObject({
      ok: false,
      code: "invalid_argument",
      context: { field: "text" },
    });
    expect(await evalJs("document.getElementById('name').value")).toBe("fresh");
  });

  test("--clear in a form field selects its text in the text's own input task; the page's beforeinput sees it selected", async () => {
    const els = await open("/replace");
    // Unfocused (a focusing click first), then focused (selected from the locate call), in an input and a textarea.
    for (const [name, id, old] of [
      ["Title", "f", "old title"],
      ["Title", "f", "fresh"],
      ["Notes", "t", "old notes"],
    ] as const) {
      await evalJs("document.getElementById('log').textContent = ''");
      const r = await env.run(["type", ref(els, name), "fresh", "--clear"]);
      expect(evidence(r)).toMatchObject({ status: "verified", beforeLength: old.length, afterLength: 5 });
      expect(await evalJs(`document.getElementById('${id}').value`)).toBe("fresh");
      // No select event before the text: the highlight was never drawn in a frame of its own.
      const log = (await evalJs("document.getElementById('log').textContent")) as string;
      expect(log.split("|")[0]).toBe(`${id} beforeinput 0:${old.length}`);
    }
    // A field in a shadow root: the window's listener sees the event on its host.
    const shadow = await env.run(["type", ref(els, "Shadowed"), "fresh", "--clear"]);
    expect(evidence(shadow)).toMatchObject({ status: "verified", afterLength: 5 });
    expect(await evalJs("document.querySelector('x-field').shadowRoot.querySelector('input').value")).toBe("fresh");
    // A rich editor reads the range it edits from the event: its text is selected before, as a person does.
    const rich = await env.run(["type", ref(els, "Rich"), "new", "--clear"]);
    expect(evidence(rich)).toMatchObject({ status: "verified" });
    expect(await evalJs("document.getElementById('e').textContent")).toBe("new");
    // Appending after a replace appends.
    expect(evidence(await env.run(["type", ref(els, "Title"), "!"]))).toMatchObject({ status: "verified" });
    expect(await evalJs("document.getElementById('f').value")).toBe("fresh!");
  });

  test("a password is typed and verified by length, never echoed in JSON or human output", async () => {
    const els = await open("/form");
    const secret = "s3cr3t-Pa55w0rd";
    const r = await env.run(["type", ref(els, "Password"), secret]);
    expect(evidence(r)).toMatchObject({ status: "verified", sensitive: true, afterLength: secret.length });
    expect(r.stdout).not.toContain(secret);
    const h = await env.run(["--human", "type", ref(els, "Password"), secret, "--clear"]);
    expect(h.code).toBe(0);
    expect(h.stdout + h.stderr).not.toContain(secret);
  });

  test("a framework input that rolls back its value is a mismatch", async () => {
    const els = await open("/form");
    const r = await env.run(["type", ref(els, "Digits"), "12ab3"]);
    expect(evidence(r)).toMatchObject({
      status: "mismatch",
      reason: "value_mismatch",
      expectedLength: 5,
      afterLength: 3,
    });
    expect(await evalJs("document.getElementById('digits').value")).toBe("123");
  });

  test("contenteditable takes text; a non-editable target is refused before anything is sent", async () => {
    const els = await open("/form");
    const r = await env.run(["type", ref(els, "Editor"), "hello", "--clear"]);
    expect(evidence(r)).toMatchObject({ status: "verified", kind: "contenteditable", afterLength: 5 });
    const bad = await env.run(["type", ref(els, "Plain"), "x"]);
    expect(bad.json).toMatchObject({
      ok: false,
      code: "action_not_verified",
      context: { reason: "not_editable", dispatched: false },
    });
  });

  test("--submit presses Enter after a verified type", async () => {
    const els = await open("/submit");
    const r = await env.run(["type", ref(els, "Query"), "cats", "--submit"]);
    expect(evidence(r)).toMatchObject({ status: "verified", submitted: true });
    expect(evidence(r).effects).toContain("navigation");
    expect(r.json).toMatchObject({ title: "Landed" });
    expect(String(r.json.url)).toContain("q=cats");
  });

  test("a navigation caused by typing stops the composite: the submit Enter is never sent", async () => {
    await open("/landed");
    await evalJs("sessionStorage.clear()");
    const els = await open("/nav-on-type");
    const r = await env.run(["type", ref(els, "Go"), "go", "--submit"]);
    expect(r.json).toMatchObject({
      ok: false,
      code: "unknown_outcome",
      context: { action: "type", step: "submit", remainingStepsStopped: ["submit"] },
    });
    expect((r.json.context?.completedSteps as string[]).at(-1)).toBe("type");
    expect(["navigation", "document_replaced"]).toContain(String(r.json.context?.reason));
    expect(await evalJs("document.title")).toBe("Landed");
    expect(await evalJs("sessionStorage.getItem('enters')")).toBeNull();
  });

  test("a change before the first mutation is action_not_verified, and a used ref is stale afterwards", async () => {
    const els = await open("/nav-on-focus");
    const r = await env.run(["type", ref(els, "Trap"), "abc"]);
    expect(r.json).toMatchObject({
      ok: false,
      code: "action_not_verified",
      retryable: true,
      context: { action: "type", dispatched: false },
    });
    const again = await env.run(["type", ref(els, "Trap"), "abc"]);
    expect(again.json).toMatchObject({ ok: false, code: "stale_ref" });
  });
});

describe("keyboard and press", () => {
  test("keyboard sends trusted keys to a canvas-like editor (unreadable, so unavailable)", async () => {
    const els = await open("/canvas");
    await env.run(["click", ref(els, "Canvas editor")]);
    const r = await env.run(["keyboard", "Hi there"]);
    expect(evidence(r)).toMatchObject({ status: "unavailable", reason: "active_element_not_readable" });
    expect(await evalJs("document.getElementById('log').textContent")).toBe("Hi there");
  });

  test("keyboard into a focused input with --clear is verified", async () => {
    const els = await open("/keys");
    await env.run(["click", ref(els, "Keys")]);
    const r = await env.run(["keyboard", "abc", "--clear", "--delay", "5"]);
    expect(evidence(r)).toMatchObject({ status: "verified", afterLength: 3 });
    expect(await evalJs("document.getElementById('k').value")).toBe("abc");
  });

  test("focus that moves mid-sequence stops the remaining keys (unknown_outcome)", async () => {
    const els = await open("/otp");
    await env.run(["click", ref(els, "First")]);
    const r = await env.run(["keyboard", "123456"]);
    expect(r.json).toMatchObject({
      ok: false,
      code: "unknown_outcome",
      context: {
        action: "keyboard",
        step: "key:4",
        reason: "focus_changed",
        completedSteps: ["key:1", "key:2", "key:3"],
      },
    });
    expect(await evalJs("[document.getElementById('a').value, document.getElementById('b').value]")).toEqual([
      "123",
      "",
    ]);
  });

  test("press Control+a then Backspace empties the focused input; key events carry key and code", async () => {
    const els = await open("/keys");
    await env.run(["click", ref(els, "Keys")]);
    const all = await env.run(["press", "Control+a"]);
    expect(evidence(all)).toMatchObject({ status: "verified" });
    // Lean: no echo of the key, no default kind or sensitivity.
    for (const k of ["key", "kind", "sensitive"]) expect(evidence(all)).not.toHaveProperty(k);
    expect(evidence(all).effects).toContain("selection_changed");
    expect(await evalJs("document.getElementById('out').textContent")).toBe("ctrl a KeyA");
    const del = await env.run(["press", "Backspace"]);
    expect(evidence(del).effects).toContain("value_changed");
    expect(await evalJs("document.getElementById('k').value")).toBe("");
    const tab = await env.run(["press", "Tab"]);
    expect(evidence(tab).effects).toContain("focus_changed");
  });

  test("bad combos are invalid_argument on field key", async () => {
    for (const bad of ["Hyper+x", "Control+", "NotAKey"]) {
      const r = await env.run(["press", bad]);
      expect(r.json).toMatchObject({ ok: false, code: "invalid_argument", context: { field: "key" } });
    }
  });
});

describe("scroll", () => {
  test("relative scrolls move the page; at the top, up is a mismatch at the boundary", async () => {
    await open("/long");
    const up = await env.run(["scroll", "up"]);
    expect(evidence(up)).toMatchObject({ status: "mismatch", reason: "at_boundary", moved: false });
    // Lean: no echo of the mode and target asked for, no start position, no zero axis.
    for (const k of ["mode", "target", "beforeX", "beforeY", "deltaX", "afterX"])
      expect(evidence(up)).not.toHaveProperty(k);
    const down = await env.run(["scroll", "down", "--amount", "200", "--unit", "pixels"]);
    expect(evidence(down)).toMatchObject({ status: "verified", afterY: 200, deltaY: 200 });
    expect(evidence(down)).not.toHaveProperty("moved");
    const end = await env.run(["scroll", "--to", "end"]);
    expect(evidence(end)).toMatchObject({ status: "verified" });
    expect(Number(evidence(end).afterY)).toBeGreaterThan(2000);
  });

  test("--to-text reveals text far down; a missing text is text_not_found", async () => {
    await open("/long");
    const r = await env.run(["scroll", "--to-text", "hidden TREASURE"]);
    expect(evidence(r)).toMatchObject({ status: "verified", matchedText: "The hidden treasure" });
    expect(Number(evidence(r).deltaY)).toBeGreaterThan(0);
    expect(
      await evalJs(
        "(() => { const r = [...document.querySelectorAll('p')].find(p => p.textContent.includes('treasure')).getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; })()",
      ),
    ).toBe(true);
    const exact = await env.run(["scroll", "--to-text", "hidden TREASURE", "--exact"]);
    expect(evidence(exact)).toMatchObject({ status: "mismatch", reason: "text_not_found" });
  });

  test("an element scrolls by --ref or --selector; bad arguments are refused", async () => {
    const els = await open("/long");
    const r = await env.run(["scroll", "down", "--ref", ref(els, "Pane"), "--amount", "50", "--unit", "pixels"]);
    expect(evidence(r)).toMatchObject({ status: "verified", deltaY: 50 });
    const s = await env.run(["scroll", "down", "--selector", "#pane"]);
    expect(evidence(s)).toMatchObject({ status: "verified" });
    expect(Number(evidence(s).deltaY)).toBeGreaterThan(0);
    expect((await env.run(["scroll", "down", "--selector", "#nope"])).json).toMatchObject({
      ok: false,
      code: "invalid_argument",
      context: { field: "selector" },
    });
    expect((await env.run(["scroll"])).json).toMatchObject({ ok: false, code: "invalid_argument" });
    expect((await env.run(["scroll", "down", "--to", "end"])).json).toMatchObject({
      ok: false,
      code: "invalid_argument",
    });
  });
});

describe("dropdown and select", () => {
  test("a native select lists its options and is set through the element", async () => {
    const els = await open("/select");
    const country = ref(els, "Country");
    const d = await env.run(["dropdown", country]);
    // Lean: not the ref given, no false flags; an option's value only when it is not its label, selected/disabled only when true.
    expect(Object.keys(d.json).sort()).toEqual(["kind", "ok", "options"]);
    expect(d.json.options).toEqual([
      { index: 0, label: "Choose", value: "", selected: true },
      { index: 1, label: "Canada", value: "ca" },
      { index: 2, label: "France", value: "fr", disabled: true },
      { index: 3, label: "Japan", value: "jp" },
    ]);
    const r = await env.run(["select", country, "japan"]);
    expect(evidence(r)).toMatchObject({ status: "verified", kind: "native", selected: ["Japan"] });
    expect(await evalJs("document.getElementById('picked').textContent")).toBe("jp");
    expect(evidence(await env.run(["select", country, "ca", "--by", "value"]))).toMatchObject({
      status: "verified",
      selected: ["Canada"],
    });
    expect(evidence(await env.run(["select", country, "0", "--by", "index"]))).toMatchObject({
      status: "verified",
      selected: ["Choose"],
    });
    // A missing option is refused with the options there are; nothing is sent.
    const mars = await env.run(["select", country, "Mars"]);
    expect(mars.json).toMatchObject({
      ok: false,
      code: "invalid_argument",
      context: { field: "option", reason: "option_not_found", options: ["Choose", "Canada", "France", "Japan"] },
    });
    expect(await evalJs("document.getElementById('picked').textContent")).toBe("");
    expect(evidence(await env.run(["select", country, "France"]))).toMatchObject({
      status: "mismatch",
      reason: "option_disabled",
    });
  });

  test("an ARIA combobox is opened and its option clicked; the selection is read back", async () => {
    const els = await open("/select");
    const fruit = ref(els, "Fruit");
    const d = await env.run(["dropdown", fruit]);
    expect(d.json).toMatchObject({ ok: true, kind: "aria", requiresOpen: true });
    expect(d.json).not.toHaveProperty("expanded");
    expect((d.json.options as { label: string }[]).map((o) => o.label)).toEqual(["Apple", "Banana", "Cherry"]);
    const r = await env.run(["select", fruit, "banana"]);
    expect(evidence(r)).toMatchObject({ status: "verified", kind: "aria", selected: ["Banana"] });
    expect(await evalJs("document.getElementById('combo').textContent")).toBe("Banana");
    const bad = await env.run(["dropdown", ref(els, "Country")]);
    expect(bad.json.ok).toBe(true);
  });
});

describe("upload", () => {
  test("a relative path is resolved in the CLI, copied privately, and verified by file name", async () => {
    const src = join(files, "resume.txt");
    writeFileSync(src, "my resume");
    const els = await open("/upload");
    const r = await env.run(["upload", ref(els, "Resume"), relative(process.cwd(), src)]);
    expect(evidence(r)).toMatchObject({
      status: "verified",
      fileCount: 1,
      nameMatched: true,
      fileName: "resume.txt",
      sizeBytes: 9,
    });
    expect(evidence(r)).not.toHaveProperty("expectedFileCount");
    expect(await evalJs("document.getElementById('got').textContent")).toBe("resume.txt:9");
    expect(r.stdout).not.toContain(files);
    const root = join(env.home, "store");
    expect(statSync(root).mode & 0o777).toBe(0o700);
    const [dir] = readdirSync(root);
    const copy = join(root, dir ?? "", "resume.txt");
    expect(statSync(copy).mode & 0o777).toBe(0o600);
    expect(readFileSync(copy, "utf8")).toBe("my resume");
    expect(readFileSync(src, "utf8")).toBe("my resume");
  });

  test("a missing file is invalid_argument on field file; a non-file-input ref is refused", async () => {
    const els = await open("/upload");
    const r = await env.run(["upload", ref(els, "Resume"), join(files, "nope.txt")]);
    expect(r.json).toMatchObject({ ok: false, code: "invalid_argument", context: { field: "file" } });
    const list = await open("/select");
    const bad = await env.run(["upload", ref(list, "Country"), join(files, "resume.txt")]);
    expect(bad.json).toMatchObject({
      ok: false,
      code: "invalid_argument",
      context: { field: "ref", reason: "not_file_input" },
    });
  });
});

describe("cross-origin iframes", () => {
  test("type, select, keyboard and press reach elements in an out-of-process frame", async () => {
    const els = await open("/outer");
    const field = ref(els, "Inner field");
    expect(evidence(await env.run(["type", field, "hello"]))).toMatchObject({ status: "verified", afterLength: 5 });
    expect(evidence(await env.run(["select", ref(els, "Inner select"), "B"]))).toMatchObject({
      status: "verified",
      selected: ["B"],
    });
    await env.run(["click", field]);
    const k = await env.run(["keyboard", "!!"]);
    expect(evidence(k)).toMatchObject({ status: "verified", beforeLength: 5, afterLength: 7 });
    const p = await env.run(["press", "Backspace"]);
    expect(evidence(p)).toMatchObject({ status: "verified" });
    expect(evidence(p).effects).toContain("value_changed");
  });
});

describe("hover and drag", () => {
  test("hover moves the pointer onto the element and reports its effect", async () => {
    const els = await open("/pointer");
    const r = await env.run(["hover", ref(els, "Hover me")]);
    expect(evidence(r)).toMatchObject({ status: "verified", hovered: true });
    expect(evidence(r).effects).toContain("dom_changed");
    expect(await evalJs("document.getElementById('t').hidden")).toBe(false);
  });

  test("drag: HTML5 drag and drop reaches the drop handler; pointer drags move a slider", async () => {
    const els = await open("/pointer");
    const r = await env.run(["drag", ref(els, "Drag source"), ref(els, "Drop zone")]);
    expect(evidence(r)).toMatchObject({ status: "verified", kind: "html5" });
    expect(await evalJs("document.getElementById('dst').textContent")).toBe("dropped payload");
    const again = await open("/pointer");
    const p = await env.run(["drag", ref(again, "Knob"), ref(again, "Drop zone")]);
    expect(evidence(p)).toMatchObject({ status: "verified", kind: "pointer" });
    expect(Number(await evalJs("document.getElementById('knob').getAttribute('aria-valuenow')"))).toBeGreaterThan(10);
  });

  test("drag onto a target below the fold: centring the source brings it in; one a viewport further is refused, nothing sent", async () => {
    const els = await open("/far-drag");
    const r = await env.run(["drag", ref(els, "Card"), ref(els, "Near")]);
    expect(evidence(r)).toMatchObject({ status: "verified", kind: "pointer" });
    expect(await evalJs("out.textContent")).toBe("dropped on near");
    const again = await open("/far-drag");
    const far = await env.run(["drag", ref(again, "Card"), ref(again, "Far")]);
    expect(far.json).toMatchObject({
      ok: false,
      code: "action_not_verified",
      context: { reason: "too_far_apart", dispatched: false },
    });
    expect(await evalJs("out.textContent")).toBe("");
  });
});
