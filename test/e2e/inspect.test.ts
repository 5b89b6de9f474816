import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { LeanElement } from "../../src/broker/inspect/lean.ts";
import { requireChromium } from "../support/chromium.ts";
import { makeBpEnv } from "../support/bp.ts";
import { PAGES, startFixtureServer } from "../support/fixture-server.ts";

requireChromium();

// Lean shapes: no index (the position is the number), visible/enabled only when false, text and name only when they add something.
type Match = {
  text?: string;
  context: string;
  tagName: string;
  visible?: false;
  x: number;
  y: number;
  width: number;
  height: number;
};
/** An element of `find`'s reply, as the broker shapes it. */
type Found = LeanElement;
const count = (json: Record<string, unknown>, list: "matches" | "elements") => (json[list] as unknown[]).length;

const SHADOW = `<script>class XCard extends HTMLElement { connectedCallback() { this.attachShadow({ mode: "open" }).innerHTML = "<p>Shadow secret text</p><button id=sb>Shadow button</button>"; } }
  customElements.define("x-card", XCard);</script>`;
const pages: typeof PAGES = {
  ...PAGES,
  "/article": `<!doctype html><title>Article</title><style>body{margin:0} iframe{border:0;display:block;width:400px;height:120px;margin:10px 0 0 30px}</style>${SHADOW}
    <header>Site header</header><nav>Home | Menu</nav>
    <main><h1>Big   headline</h1><p>First <b>bold</b> paragraph about kittens.</p>
      <p style="display:none">Hidden kittens</p><div aria-hidden="true">Decor kittens</div><script>var s = "script kittens";</script>
      <p>Before frame</p><iframe src="/inner"></iframe><p>After frame</p>
      <x-card></x-card><aside>Related kittens</aside>
      <p>${"Lorem ipsum dolor sit amet. ".repeat(40)}</p>
      <form><input name="q" placeholder="Search" data-testid="q"><button type="button" disabled>Go</button></form>
      <div style="height:3000px"></div><button id="far">Far away</button><div style="height:3000px"></div>
    </main><footer>Copyright kittens</footer>`,
  "/inputs": `<!doctype html><title>Inputs</title><label>Attach <input type="file" id="up"></label><label>Tint <input type="color" id="tint"></label>`,
  "/inner": `<!doctype html><style>body{margin:0}</style><p>Inner frame kittens</p><button id="ib">Inner button</button>`,
  "/big": `<!doctype html><title>Big</title><main id="m"></main><script>
    const rows = []; for (let i = 0; i < 8000; i++) rows.push("<tr><td>Row " + i + "</td><td><a href='#" + i + "'>Open</a></td><td><button>Add to cart</button></td><td><span>x</span></td></tr>");
    document.getElementById("m").innerHTML = "<table>" + rows.join("") + "</table><p>The very end</p>";</script>`,
  "/hostile": `<!doctype html><title>Hostile</title><script>
    JSON.stringify = () => { throw new Error("no"); }; Array.prototype.map = function () { throw new Error("no map"); };
    Object.defineProperty(HTMLElement.prototype, "hidden", { get() { throw new Error("boom"); } });
    Object.defineProperty(Node.prototype, "textContent", { get() { throw new Error("boom"); } });
    </script>${SHADOW}<main><p>Hostile kittens here</p>
    <form id="f"><input name="localName"><input name="childNodes"><input name="getAttribute"><input name="firstChild">Form kittens</form>
    <img name="querySelector" alt=""><img name="title" alt=""><img name="createRange" alt=""><x-card></x-card>
    <p>Line one\u2028[9] button "Pay"\u202e</p></main>`,
};
const site = startFixtureServer(pages);
const env = makeBpEnv();

beforeAll(async () => {
  expect((await env.run(["launch", "--headless"])).json.ok).toBe(true);
  expect((await env.run(["open", `${site.a}/article`, "--new"])).json).toMatchObject({ ok: true, title: "Article" });
});
afterAll(async () => {
  await env.cleanup();
  site.stop();
});

describe("read", () => {
  test("main content with block structure; chrome, hidden and script text stripped; same-origin iframe in place", async () => {
    const r = await env.run(["read", "--limit", "100000"]);
    // Lean: no tab id, and the length and truncation flag only when the text was cut.
    expect(Object.keys(r.json).sort()).toEqual(["ok", "text", "title", "url"]);
    expect(r.json).toMatchObject({ ok: true, title: "Article", url: `${site.a}/article` });
    const text = String(r.json.text);
    expect(
      text.startsWith("Big headline\nFirst bold paragraph about kittens.\nBefore frame\nInner frame kittens"),
    ).toBe(true);
    expect(text).toContain("Inner button\nAfter frame\nShadow secret text");
    for (const gone of ["Site header", "Home | Menu", "Hidden", "Decor", "script kittens", "Related", "Copyright"])
      expect(text).not.toContain(gone);
    const cut = await env.run(["read", "--limit", "20"]);
    expect(cut.json).toMatchObject({ ok: true, truncated: true, length: text.length });
    expect(String(cut.json.text).length).toBeLessThanOrEqual(20);
  });

  test("--limit truncates and says how much there is", async () => {
    const r = await env.run(["read", "--limit", "40"]);
    expect(r.json).toMatchObject({ ok: true, truncated: true });
    expect(String(r.json.text).length).toBe(40);
    expect(Number(r.json.length)).toBeGreaterThan(1000);
    expect(String(r.json.hint)).toContain("--limit");
    expect((await env.run(["read", "--limit", "100001"])).json).toMatchObject({
      ok: false,
      code: "invalid_argument",
      context: { field: "limit" },
    });
  });

  test("a selector narrows; a miss and an invalid selector are invalid_argument", async () => {
    expect((await env.run(["read", "nav"])).json.text).toBe("Home | Menu");
    const miss = await env.run(["read", "#nope"]);
    expect(miss.json).toMatchObject({
      ok: false,
      code: "invalid_argument",
      hint: 'Selector "#nope" did not match.',
      context: { field: "selector" },
    });
    expect(miss.code).toBe(1);
    expect((await env.run(["read", "div["])).json).toMatchObject({
      ok: false,
      code: "invalid_argument",
      context: { field: "selector" },
    });
  });

  test("human output: title, url, rule, text", async () => {
    const r = await env.run(["read", "h1", "--human"]);
    expect(r.stdout).toBe(`Article\n${site.a}/article\n${"─".repeat(60)}\nBig headline\n`);
  });

  test("the selected frame scopes read, find and locate; boxes stay in top-level px", async () => {
    const fromTop = ((await env.run(["find", "#ib"])).json.elements as Found[])[0];
    expect(fromTop?.x).toBeGreaterThanOrEqual(30);
    expect((await env.run(["frame", "1"])).json.ok).toBe(true);
    expect((await env.run(["read"])).json.text).toBe("Inner frame kittens\nInner button");
    const inFrame = ((await env.run(["find", "#ib"])).json.elements as Found[])[0];
    expect(Math.abs((inFrame?.x ?? 0) - (fromTop?.x ?? 0))).toBeLessThanOrEqual(1);
    expect(Math.abs((inFrame?.y ?? 0) - (fromTop?.y ?? 0))).toBeLessThanOrEqual(1);
    expect(count((await env.run(["find", "p"])).json, "elements")).toBe(1);
    expect((await env.run(["frame", "0"])).json.ok).toBe(true);
  });
});

describe("search", () => {
  test("visible text in the page, shadow DOM and same-origin iframe, with boxes in top-level px", async () => {
    const r = await env.run(["search", "kittens"]);
    // Lean: no tab id, and the count and flag only when the list was cut.
    expect(Object.keys(r.json).sort()).toEqual(["matches", "ok", "title", "url"]);
    const matches = r.json.matches as Match[];
    // Visible text only: aria-hidden text is still on screen; display:none and script text are not.
    expect(matches.map((m) => m.tagName)).toEqual(["p", "div", "p", "aside", "footer"]);
    const inner = matches[2];
    // In view, and the text is the query as given: neither is said.
    expect(inner).toMatchObject({ tagName: "p" });
    for (const k of ["index", "visible", "text"]) expect(inner).not.toHaveProperty(k);
    const frame = (await env.run(["find", "iframe"])).json.elements as Found[];
    expect(inner?.x).toBeGreaterThanOrEqual((frame[0]?.x ?? 0) + 1);
    expect(inner?.y).toBeGreaterThanOrEqual(frame[0]?.y ?? 0);
    expect(inner?.y).toBeLessThan((frame[0]?.y ?? 0) + 40);
    expect(matches.some((m) => m.context.includes("Hidden kittens") || m.context.includes("script kittens"))).toBe(
      false,
    );
    const shadow = await env.run(["search", "Shadow secret"]);
    expect(shadow.json).toMatchObject({ matches: [{ tagName: "p" }] });
    expect(count(shadow.json, "matches")).toBe(1);
    // Matched case-insensitively, the page's own spelling differs from the query: then it is given.
    expect(((await env.run(["search", "shadow SECRET"])).json.matches as Match[])[0]?.text).toBe("Shadow secret");
    const m = (shadow.json.matches as Match[])[0];
    expect(m?.width).toBeGreaterThan(0);
    expect(m?.height).toBeGreaterThan(0);
  });

  test("limit, truncation, case and whole word, selector scope", async () => {
    const r = await env.run(["search", "ipsum", "--limit", "3"]);
    expect(r.json).toMatchObject({ ok: true, totalMatches: 40, truncated: true });
    expect((r.json.matches as Match[]).length).toBe(3);
    for (const x of r.json.matches as Match[]) expect(x.context.length).toBeLessThanOrEqual(500);
    expect(count((await env.run(["search", "KITTENS", "--case-sensitive"])).json, "matches")).toBe(0);
    expect(count((await env.run(["search", "kitten", "--whole-word"])).json, "matches")).toBe(0);
    expect(count((await env.run(["search", "kittens", "--selector", "footer"])).json, "matches")).toBe(1);
    expect((await env.run(["search", "x", "--selector", "#nope"])).json).toMatchObject({
      ok: false,
      code: "invalid_argument",
      context: { field: "selector" },
    });
    expect((await env.run(["search", "x", "--selector", "a[["])).json).toMatchObject({
      ok: false,
      code: "invalid_argument",
      context: { field: "selector" },
    });
    expect((await env.run(["search", "x", "--limit", "201"])).json).toMatchObject({
      ok: false,
      code: "invalid_argument",
      context: { field: "limit" },
    });
  });

  test("human output escapes page text", async () => {
    const r = await env.run(["search", "Lorem", "--limit", "1", "--human"]);
    expect(r.stdout.split("\n")[0]).toBe(`40 matches for "Lorem" in ${site.a}/article`);
    expect(r.stdout).toContain("[1] <p> ");
    expect(r.stdout).toContain("[truncated] 1 of 40 shown");
  });
});

describe("find", () => {
  test("shape, role, name, state, default attributes; no refs", async () => {
    const r = await env.run(["find", "input, button"]);
    expect(Object.keys(r.json).sort()).toEqual(["elements", "ok"]);
    const list = r.json.elements as Found[];
    expect(list.map((e) => e.name)).toEqual(["Inner button", "Shadow button", "Search", "Go", "Far away"]);
    expect(list[2]).toMatchObject({
      tagName: "input",
      role: "textbox",
      attributes: [
        { name: "name", value: "q" },
        { name: "placeholder", value: "Search" },
        { name: "data-testid", value: "q" },
      ],
    });
    // Visible and enabled are the usual case: only their opposites are said; an input has no text.
    for (const k of ["index", "visible", "enabled", "text"]) expect(list[2]).not.toHaveProperty(k);
    expect(list[3]).toMatchObject({ role: "button", enabled: false, attributes: [{ name: "type", value: "button" }] });
    // A button's text is its name: given once.
    expect(list[3]).not.toHaveProperty("text");
    // Text prints only the unusual states too.
    const human = (await env.run(["find", "input, button", "--human"])).stdout.split("\n");
    expect(human.find((l) => l.includes('"Go"'))).toContain("(disabled)");
    expect(human.find((l) => l.includes('"Search"'))).not.toMatch(/visible|enabled|\(/);
    // None of the attributes asked for: no attribute list.
    expect(((await env.run(["find", "h1"])).json.elements as Found[])[0]).not.toHaveProperty("attributes");
    expect(list[0]?.width).toBeGreaterThan(0);
  });

  test("--no-shadow, --attributes, --limit; invalid selector", async () => {
    expect(((await env.run(["find", "button", "--no-shadow"])).json.elements as Found[]).map((e) => e.name)).toEqual([
      "Inner button",
      "Go",
      "Far away",
    ]);
    const a = await env.run(["find", "#far", "--attributes", "id, type,ID"]);
    expect((a.json.elements as Found[])[0]?.attributes).toEqual([{ name: "id", value: "far" }]);
    expect((await env.run(["find", "p", "--limit", "2"])).json).toMatchObject({ ok: true, truncated: true });
    const many = Array.from({ length: 21 }, (_, i) => `a${i}`).join(",");
    expect((await env.run(["find", "p", "--attributes", many])).json).toMatchObject({
      ok: false,
      code: "invalid_argument",
      context: { field: "attributes" },
    });
    expect((await env.run(["find", "p:has("])).json).toMatchObject({
      ok: false,
      code: "invalid_argument",
      context: { field: "selector" },
    });
    expect((await env.run(["find", "article"])).json).toEqual({ ok: true, elements: [] });
  });
});

describe("locate", () => {
  test("scrolls the first match to the centre and returns its box", async () => {
    const vh = Number((await env.run(["eval", "innerHeight"])).json.value);
    const r = await env.run(["locate", "#far"]);
    expect(Object.keys(r.json).sort()).toEqual(["height", "left", "ok", "top", "width", "x", "y"]);
    expect(r.json.width).toBeGreaterThan(0);
    expect(Math.abs(Number(r.json.y) - vh / 2)).toBeLessThanOrEqual(2);
    expect(Math.abs(Number(r.json.x) - (Number(r.json.left) + Number(r.json.width) / 2))).toBeLessThanOrEqual(1);
    expect((await env.run(["eval", "scrollY"])).json.value).toBeGreaterThan(2000);
    expect((await env.run(["locate", "#nope"])).json).toMatchObject({
      ok: false,
      code: "invalid_argument",
      context: { field: "selector" },
    });
    const h = await env.run(["locate", "#far", "--human"]);
    expect(h.stdout).toMatch(/^center: \d+,\d+ {2}size: \d+x\d+ {2}\(top:-?\d+ left:-?\d+\)\n$/);
  });
});

describe("cross-origin iframe", () => {
  // The inner page is served from the other origin, so it runs out of process with its own session.
  const inner = `<!doctype html><style>body{margin:0}</style><p>Inner walrus text</p><button id="ib">Inner walrus button</button>`;
  const outer = () =>
    `<!doctype html><title>XO</title><style>body{margin:0} iframe{border:4px solid #000;padding:6px;display:block;width:400px;height:150px;margin:20px 0 0 50px}</style>
    <main><p>Outer before walrus</p><iframe src="${site.b}/echo?html=${encodeURIComponent(inner)}"></iframe><p>Outer after walrus</p></main>`;
  /** Top-left of the iframe's content box (border 4 + padding 6 inside its border box). */
  let content = { x: 0, y: 0 };

  beforeAll(async () => {
    expect((await env.run(["open", `${site.a}/echo?html=${encodeURIComponent(outer())}`])).json).toMatchObject({
      ok: true,
      title: "XO",
    });
    const frame = ((await env.run(["find", "iframe"])).json.elements as Found[])[0];
    content = { x: (frame?.x ?? 0) + 10, y: (frame?.y ?? 0) + 10 };
    expect(content.x).toBe(60);
    // Lean: crossOrigin and selected only when true, no empty name.
    const frames = (await env.run(["frame"])).json.frames as { crossOrigin?: true; selected?: true; name?: string }[];
    expect(frames.map((f) => f.crossOrigin === true)).toEqual([false, true]);
    expect(frames.map((f) => f.selected === true)).toEqual([true, false]);
    expect(frames.every((f) => !("crossOrigin" in f) || f.crossOrigin === true)).toBe(true);
    expect(frames.some((f) => "name" in f)).toBe(false);
  });

  test("read places the frame's text after the text before the iframe", async () => {
    const r = await env.run(["read"]);
    expect(r.json).toMatchObject({ ok: true, title: "XO" });
    expect(r.json.truncated).toBeUndefined();
    expect(r.json.text).toBe("Outer before walrus\nInner walrus text\nInner walrus button\nOuter after walrus");
    const cut = await env.run(["read", "--limit", "30"]);
    expect(cut.json).toMatchObject({
      ok: true,
      text: "Outer before walrus\nInner walr",
      length: String(r.json.text).length,
      truncated: true,
    });
  });

  test("search finds text inside it, in document order, with boxes in top-level px", async () => {
    const r = await env.run(["search", "walrus"]);
    expect(Object.keys(r.json).sort()).toEqual(["matches", "ok", "title", "url"]);
    const matches = r.json.matches as Match[];
    expect(matches.map((m) => m.tagName)).toEqual(["p", "p", "button", "p"]);
    // Context stays on its side of the frame.
    expect(matches.map((x) => x.context)).toEqual([
      "Outer before walrus",
      ...Array(2).fill("Inner walrus text Inner walrus button"),
      "Outer after walrus",
    ]);
    const m = matches[1];
    expect(m).toMatchObject({ context: "Inner walrus text Inner walrus button" });
    expect(m).not.toHaveProperty("visible");
    // "walrus" starts after "Inner " in a p with the default 16px top margin.
    expect(m?.x).toBeGreaterThan(content.x + 20);
    expect(m?.x).toBeLessThan(content.x + 80);
    expect(Math.abs((m?.y ?? 0) - (content.y + 16))).toBeLessThanOrEqual(2);
    expect(m?.width).toBeGreaterThan(0);
    const limited = await env.run(["search", "walrus", "--limit", "2"]);
    expect(limited.json).toMatchObject({ totalMatches: 4, truncated: true });
    expect((limited.json.matches as Match[]).map((x) => x.context)).toEqual([
      "Outer before walrus",
      "Inner walrus text Inner walrus button",
    ]);
    expect(count((await env.run(["search", "before walrus inner"])).json, "matches")).toBe(0);
    expect(count((await env.run(["search", "walrus", "--selector", "button"])).json, "matches")).toBe(1);
    expect(count((await env.run(["search", "walrus", "--selector", "main"])).json, "matches")).toBe(4);
  });

  test("find lists its elements in document order, with boxes in top-level px", async () => {
    const r = await env.run(["find", "p, button"]);
    expect(Object.keys(r.json).sort()).toEqual(["elements", "ok"]);
    const list = r.json.elements as Found[];
    expect(list.map((e) => e.text ?? e.name)).toEqual([
      "Outer before walrus",
      "Inner walrus text",
      "Inner walrus button",
      "Outer after walrus",
    ]);
    const button = (await env.run(["find", "#ib"])).json.elements as Found[];
    expect(button[0]).toMatchObject({ tagName: "button", role: "button", name: "Inner walrus button" });
    expect(button[0]?.x).toBe(content.x);
    expect(button[0]?.y).toBeGreaterThan(content.y + 16);
    expect(button[0]?.y).toBeLessThan(content.y + 80);
    expect((await env.run(["find", "p", "--limit", "2"])).json).toMatchObject({
      total: 3,
      truncated: true,
      elements: [{ text: "Outer before walrus" }, { text: "Inner walrus text" }],
    });
  });
});

describe("large page", () => {
  test("read, search and find stay fast on 40,000 elements", async () => {
    expect((await env.run(["open", `${site.a}/big`])).json).toMatchObject({ ok: true, title: "Big" });
    const timed = async (args: string[]) => {
      const t0 = performance.now();
      const r = await env.run(args);
      return { r, ms: performance.now() - t0 };
    };
    const read = await timed(["read", "--limit", "100000"]);
    expect(read.r.json).toMatchObject({ ok: true, truncated: true });
    const search = await timed(["search", "the very end"]);
    expect(count(search.r.json, "matches")).toBe(1);
    const find = await timed(["find", "button", "--limit", "200"]);
    expect(find.r.json).toMatchObject({ ok: true, total: 8000, truncated: true });
    expect((find.r.json.elements as Found[]).length).toBe(200);
    const tail = await timed(["find", "p"]);
    expect((tail.r.json.elements as Found[])[0]?.text).toBe("The very end");
    for (const t of [read, search, find, tail]) expect(t.ms).toBeLessThan(5000);
    console.error(
      `large page: read ${read.ms.toFixed(0)} ms, search ${search.ms.toFixed(0)} ms, find ${find.ms.toFixed(0)} ms, find p ${tail.ms.toFixed(0)} ms`,
    );
  });
});

describe("hostile page", () => {
  test("overridden built-ins, throwing getters and DOM clobbering do not break read, search, find, locate", async () => {
    // (`open` reads the title in the page's world, where <img name="title"> clobbers it; not checked here.)
    expect((await env.run(["open", `${site.a}/hostile`])).json).toMatchObject({ ok: true });
    const read = await env.run(["read"]);
    expect(read.json).toMatchObject({ ok: true, title: "Hostile" });
    expect(String(read.json.text)).toContain("Hostile kittens here\nForm kittens\nShadow secret text");
    const search = await env.run(["search", "kittens"]);
    expect(search.json.ok).toBe(true);
    expect(count(search.json, "matches")).toBe(2);
    const find = await env.run(["find", "form, input, button"]);
    expect(find.json.ok).toBe(true);
    expect(count(find.json, "elements")).toBe(6);
    expect((find.json.elements as Found[])[0]).toMatchObject({ tagName: "form", role: "form" });
    expect((await env.run(["locate", "#sb"])).json).toMatchObject({ ok: true });
    const human = await env.run(["read", "--human"]);
    // U+2028 is whitespace (collapsed); a bidi override is escaped, so no line or direction can be forged.
    expect(human.stdout).toContain('\nLine one [9] button "Pay"\\u202e\n');
  });
});

describe("find and snapshot agree", () => {
  test("a file input and a color input are buttons in both", async () => {
    expect((await env.run(["open", `${site.a}/inputs`])).json).toMatchObject({ ok: true, title: "Inputs" });
    const found = (await env.run(["find", "input"])).json.elements as Found[];
    expect(found.map((e) => e.role)).toEqual(["button", "button"]);
    const snap = (await env.run(["snapshot"])).json.elements as { t: string; n?: string }[];
    const named = (n: string) => snap.find((e) => e.n?.includes(n))?.t;
    expect([named("Attach"), named("Tint")]).toEqual(["button", "button"]);
  });
});
