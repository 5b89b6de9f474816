import { afterAll, describe, expect, test } from "bun:test";
import { closePages, doc as page } from "../../../test/support/happy-dom.ts";
import { pageRead, type InspectError, type ReadOptions, type ReadResult } from "./read.ts";
import type { PageWindow } from "../types.ts";

afterAll(closePages);

function read(win: PageWindow, opts: ReadOptions = {}): ReadResult {
  const r = pageRead(win, { layout: false, ...opts });
  if ("error" in r) throw new Error(`unexpected ${r.error}`);
  return r;
}

describe("pageRead", () => {
  test("prefers main, strips chrome and hidden text, keeps block structure", () => {
    const { win } = page(
      `<!doctype html><title>Story</title>
      <header>Site header</header>
      <nav>Home | About</nav>
      <main>
        <h1>Big   news</h1>
        <p>First <b>bold</b>
           paragraph.</p>
        <div role="navigation">Crumbs</div>
        <div aria-hidden="true">Decor</div>
        <p hidden>Secret</p>
        <p style="display:none">Gone</p>
        <script>var x = "code";</script><style>p{}</style>
        <aside>Related</aside>
        <ul><li>one</li><li>two</li></ul>
        <p>a<br>b</p>
      </main>
      <footer>Copyright</footer>`,
      { url: "https://news.example/story" },
    );
    const r = read(win);
    expect(r.title).toBe("Story");
    expect(r.url).toBe("https://news.example/story");
    expect(r.text).toBe("Big news\nFirst bold paragraph.\none\ntwo\na\nb");
    expect(r.length).toBe(r.text.length);
    expect(r.truncated).toBe(false);
  });

  test("falls back to article, then [role=main], then body", () => {
    expect(read(page(`<div>Outside</div><article>In article</article>`).win).text).toBe("In article");
    expect(read(page(`<div>Outside</div><div role="main">In role main</div>`).win).text).toBe("In role main");
    expect(read(page(`<div>Just body</div><nav>menu</nav>`).win).text).toBe("Just body");
  });

  test("a selector picks the root; the root itself is never stripped", () => {
    const { win } = page(`<main>Main</main><nav id="n">Menu <a href="/">Home</a></nav>`);
    expect(read(win, { selector: "#n" }).text).toBe("Menu Home");
  });

  test("selector miss and invalid selector are reported, not thrown", () => {
    const { win } = page(`<main>x</main>`);
    expect(pageRead(win, { layout: false, selector: "#nope" })).toEqual({
      error: "no_match",
      message: "Selector did not match.",
    } satisfies InspectError);
    expect((pageRead(win, { layout: false, selector: "div[" }) as InspectError).error).toBe("invalid_selector");
  });

  test("limit truncates while length counts everything", () => {
    const { win } = page(`<main><p>${"word ".repeat(1000)}</p></main>`);
    const r = read(win, { limit: 100 });
    expect(r.text.length).toBe(100);
    expect(r.length).toBe(4999);
    expect(r.truncated).toBe(true);
  });

  test("a surrogate pair is never cut in half", () => {
    const { win } = page(`<main>${"a".repeat(9)}😀tail</main>`);
    expect(read(win, { limit: 10 }).text).toBe("a".repeat(9));
  });

  test("open shadow DOM and slots are read in composed order", () => {
    const { w, win } = page(`<main><x-card><span slot="title">Slotted title</span> light</x-card></main>`);
    const host = w.document.querySelector("x-card") as unknown as { attachShadow(o: object): { innerHTML: string } };
    host.attachShadow({
      mode: "open",
    }).innerHTML = `<h2><slot name="title">Fallback</slot></h2><p>Shadow body</p><slot></slot>`;
    expect(read(win).text).toBe("Slotted title\nShadow body\nlight");
  });

  test("same-origin iframe text appears in place", async () => {
    const { w, win } = page(
      `<main><p>Before</p><iframe srcdoc="<p>Inside frame</p><nav>inner nav</nav>"></iframe><p>After</p></main>`,
    );
    await w.happyDOM.waitUntilComplete();
    expect(read(win).text).toBe("Before\nInside frame\nAfter");
  });

  test("inline boxes and table cells are words apart", () => {
    const { win } = page(
      `<main><span style="display:inline-block">B</span><a href="/q">Link</a><table><tr><td>c1</td><td>c2</td></tr></table></main>`,
    );
    expect(read(win).text).toBe("B Link\nc1 c2");
  });

  test("pre keeps its line breaks", () => {
    const { win } = page(`<main><pre>line 1\n  line 2\n</pre></main>`);
    expect(read(win).text).toBe("line 1\n  line 2");
  });

  test("visibility:hidden hides text, a visible child shows again", () => {
    const { win } = page(
      `<main><div style="visibility:hidden">ghost <span style="visibility:visible">seen</span></div></main>`,
    );
    expect(read(win).text).toBe("seen");
  });

  test("a node whose getter throws loses only its own text", () => {
    const { w, win } = page(`<main><p>good one</p><p id="bad">bad</p><p>good two</p></main>`);
    const bad = w.document.getElementById("bad") as unknown as object;
    // Instance getters are bypassed (prototype accessors); a hostile prototype is caught per node.
    Object.defineProperty(bad, "firstChild", {
      configurable: true,
      get() {
        throw new Error("hostile");
      },
    });
    const proto = (w as unknown as { Element: { prototype: { getAttribute(this: object, n: string): string | null } } })
      .Element.prototype;
    const orig = proto.getAttribute;
    proto.getAttribute = function (this: object, n: string) {
      if (this === bad) throw new Error("hostile");
      return orig.call(this, n);
    };
    try {
      const r = read(win);
      expect(r.text).toBe("good one\ngood two");
    } finally {
      proto.getAttribute = orig;
      delete (bad as { firstChild?: unknown }).firstChild;
    }
  });

  test("the work limit stops the walk and reports truncation", () => {
    const { win } = page(`<main>${"<p>x</p>".repeat(50)}</main>`);
    const r = read(win, { maxNodes: 10 });
    expect(r.truncated).toBe(true);
  });
});
