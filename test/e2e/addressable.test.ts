import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { requireChromium } from "../support/chromium.ts";
import { makeBpEnv } from "../support/bp.ts";
import { startFixtureServer } from "../support/fixture-server.ts";

requireChromium();

const LISTENERS = `<!doctype html><title>Listeners</title>
  <a id=prev>Prev month</a> <a id=next>Next month</a>
  <input aria-label="City" value="Ap"><ul id=ac><li>Apple Valley</li><li>Apricot Hill</li></ul>
  <ul id=menu><li>Delegated one</li><li>Delegated two</li></ul>
  <div class=chip id=chip>Chip red</div>
  <div hidden><div class=chip id=hchip>Hidden chip</div></div>
  <div inert><a id=iprev>Inert prev</a></div>
  <div style="visibility:hidden"><span id=vchip>Invisible chip</span></div>
  <div id=wrap><p>Wrapper text</p><button>Real button</button></div>
  <div id=plain>Plain text</div>
  <script>
    const hit = (e) => { document.body.dataset.hit = e.currentTarget.textContent; };
    for (const id of ["prev", "next", "chip", "hchip", "iprev", "vchip", "wrap"]) document.getElementById(id).addEventListener("click", hit);
    for (const li of document.querySelectorAll("#ac li")) li.addEventListener("mousedown", hit);
    document.getElementById("menu").addEventListener("click", (e) => { document.body.dataset.hit = e.target.textContent; });
  </script>`;

const ROWS = (n: number) =>
  Array.from(
    { length: n },
    (_, i) => `<li><button onclick="document.body.dataset.hit=this.textContent">Row ${i + 1}</button></li>`,
  ).join("");

const site = startFixtureServer({
  "/framed": () =>
    `<!doctype html><title>Top</title><iframe src="/inner-same"></iframe><iframe src="${site.b}/inner-cross"></iframe>`,
  "/framed-nested": `<!doctype html><title>Nested</title><iframe hidden src="/inner-same"></iframe><iframe style="width:600px;height:300px" src="/nest"></iframe>`,
  "/nest": () =>
    `<!doctype html><title>Nest</title><button>Nest button</button><iframe src="${site.b}/inner-cross"></iframe>`,
  "/login": `<!doctype html><title>Login</title><form action="/plain"><input name=u aria-label="User"><input type=password name=p aria-label="Password"><button>Sign in</button></form>`,
  "/plain": `<!doctype html><title>Plain</title><button>Plain button</button>`,
  "/covered": `<!doctype html><title>Covered</title><button>Pay now</button><div id=banner style="position:fixed;inset:0;background:#fff">Cookies <button>Accept</button></div>`,
  "/inner-same": `<!doctype html><title>Same inner</title><button>Same button</button>`,
  "/inner-cross": `<!doctype html><title>Cross inner</title><button>Cross button</button>`,
  "/listeners": LISTENERS,
  "/doc-a": `<!doctype html><title>A</title><button onclick="document.body.dataset.hit='a'">Alpha</button><a href="/doc-b">Go B</a>`,
  "/doc-b": `<!doctype html><title>B</title><button onclick="document.body.dataset.hit='b'">Bravo</button>`,
  "/checks": `<!doctype html><title>Checks</title>${Array.from({ length: 12 }, (_, i) => `<label><input type=checkbox> Option ${i + 1}</label><br>`).join("")}`,
  "/rows": `<!doctype html><title>Rows</title><ul>${ROWS(300)}</ul>`,
});
const env = makeBpEnv();
const KEY = "agent-addr";

type El = { r: number; t: string; n?: string; fold?: number; to?: number };
const run = (args: string[]) => env.run(args, { key: KEY });
const snapshot = async (...extra: string[]): Promise<El[]> => (await run(["snapshot", ...extra])).json.elements as El[];
const names = (els: El[]) => els.map((e) => e.n);

beforeAll(async () => {
  expect((await env.run(["launch", "--headless"])).json.ok).toBe(true);
  expect((await run(["open", `${site.a}/listeners`, "--new"])).json.ok).toBe(true);
});
afterAll(async () => {
  await env.cleanup();
  site.stop();
});

describe("every control has a ref", () => {
  test("clickables bound only through addEventListener are listed and clickable; hidden and inert ones are not", async () => {
    const els = await snapshot();
    for (const n of [
      "Prev month",
      "Next month",
      "Apple Valley",
      "Apricot Hill",
      "Delegated one",
      "Delegated two",
      "Chip red",
    ])
      expect(names(els)).toContain(n);
    for (const n of ["Hidden chip", "Inert prev", "Invisible chip", "Plain text"]) expect(names(els)).not.toContain(n);
    // A listener on a wrapper around a real control is delegation, not a control of its own.
    expect(els.some((e) => e.n?.includes("Wrapper text"))).toBe(false);
    expect(names(els)).toContain("Real button");
    const click = await run(["click", String(els.find((e) => e.n === "Next month")?.r)]);
    expect(click.json.ok).toBe(true);
    expect((await run(["eval", "document.body.dataset.hit"])).json.value).toBe("Next month");
    expect((await run(["click", String(els.find((e) => e.n === "Apricot Hill")?.r)])).json.ok).toBe(true);
    expect((await run(["eval", "document.body.dataset.hit"])).json.value).toBe("Apricot Hill");
  });
});

describe("listener marks are reused only while they hold", () => {
  test("a clickable added later, in the document or inside an open shadow root, is listed by the next snapshot", async () => {
    await run(["open", `${site.a}/listeners`]);
    expect(names(await snapshot())).toContain("Chip red");
    // Unchanged page: the same list from the kept marks.
    expect(names(await snapshot())).toContain("Chip red");
    const add = (where: string, name: string) =>
      `(() => { const d = document.createElement('div'); d.textContent = ${JSON.stringify(name)}; d.addEventListener('click', () => { document.body.dataset.hit = d.textContent; }); ${where}.append(d); return 1; })()`;
    expect((await run(["eval", add("document.body", "Late chip")])).json.ok).toBe(true);
    const late = await snapshot();
    expect(names(late)).toContain("Late chip");
    expect((await run(["click", String(late.find((e) => e.n === "Late chip")?.r)])).json.ok).toBe(true);
    expect((await run(["eval", "document.body.dataset.hit"])).json.value).toBe("Late chip");
    // A shadow root that existed when the marks were made is watched too.
    await run([
      "eval",
      "(() => { const h = document.createElement('div'); h.id = 'host'; h.attachShadow({ mode: 'open' }); document.body.append(h); return 1; })()",
    ]);
    expect(names(await snapshot())).toContain("Late chip");
    expect((await run(["eval", add("document.getElementById('host').shadowRoot", "Shadow chip")])).json.ok).toBe(true);
    expect(names(await snapshot())).toContain("Shadow chip");
  });
});

describe("hints apply and name real commands", () => {
  test("a login's 'left' hint does not follow the agent to an unrelated site", async () => {
    const hints = (r: { json: Record<string, unknown> }) =>
      (r.json.hints as { type: string; state?: string }[] | undefined) ?? [];
    await run(["open", `${site.a}/login`]);
    expect(hints(await run(["snapshot"])).some((h) => h.type === "authentication_surface")).toBe(true);
    await run(["open", `${site.b}/plain`]);
    expect(hints(await run(["snapshot"])).some((h) => h.type === "authentication_surface")).toBe(false);
  });

  test("a covered click names what covers it instead of pointing at hints that are not there", async () => {
    await run(["open", `${site.a}/covered`]);
    const els = await snapshot();
    const r = await run(["click", String(els.find((e) => e.n === "Pay now")?.r)]);
    expect(r.json).toMatchObject({ ok: false, code: "action_not_verified" });
    expect(String(r.json.hint)).toContain("#banner");
    expect(String(r.json.hint)).not.toContain("hints");
  });
});

describe("refs never lie", () => {
  test("after a navigation the numbering goes on: an old ref is stale_ref (navigation), never the new page's element", async () => {
    await run(["open", `${site.a}/doc-a`]);
    const a = await snapshot();
    const alpha = a.find((e) => e.n === "Alpha")?.r ?? 0;
    await run(["open", `${site.a}/doc-b`]);
    const b = await snapshot();
    const bravo = b.find((e) => e.n === "Bravo")?.r ?? 0;
    expect(bravo).toBeGreaterThan(Math.max(...a.map((e) => e.r)));
    const stale = await run(["click", String(alpha)]);
    expect(stale.json).toMatchObject({ ok: false, code: "stale_ref", context: { reason: "navigation" } });
    expect((await run(["eval", "document.body.dataset.hit ?? null"])).json.value).toBeNull();
    expect((await run(["click", String(bravo)])).json.ok).toBe(true);
  });

  test("bp eval runs in the selected frame, same-origin or cross-origin", async () => {
    await run(["open", `${site.a}/framed`]);
    const frames = (await run(["frame"])).json.frames as { index: number; url: string }[];
    const same = frames.find((f) => f.url.endsWith("/inner-same"))?.index;
    const cross = frames.find((f) => f.url.endsWith("/inner-cross"))?.index;
    expect((await run(["frame", String(same)])).json.ok).toBe(true);
    expect((await run(["eval", "document.title"])).json.value).toBe("Same inner");
    expect((await run(["frame", String(cross)])).json.ok).toBe(true);
    expect((await run(["eval", "document.title"])).json.value).toBe("Cross inner");
    expect((await run(["frame", "0"])).json.ok).toBe(true);
    expect((await run(["eval", "document.title"])).json.value).toBe("Top");
  });

  test("the snapshot's frame numbers are the ones 'bp frame' lists and takes (hidden and nested frames too)", async () => {
    await run(["open", `${site.a}/framed-nested`]);
    const frames = (await run(["frame"])).json.frames as { index: number; url: string }[];
    const els = (await run(["snapshot"])).json.elements as (El & { f?: string })[];
    const nest = els.find((e) => e.n === "Nest button");
    const cross = els.find((e) => e.n === "Cross button");
    expect(nest?.f).toBe(String(frames.find((f) => f.url.endsWith("/nest"))?.index));
    expect(cross?.f).toBe(String(frames.find((f) => f.url.endsWith("/inner-cross"))?.index));
    expect((await run(["frame", String(cross?.f)])).json.ok).toBe(true);
    expect((await run(["eval", "document.title"])).json.value).toBe("Cross inner");
    expect((await run(["frame", "0"])).json.ok).toBe(true);
  });

  test("find and search say which frame a match is in, and give the ref of a listed control", async () => {
    await run(["open", `${site.a}/framed`]);
    const frames = (await run(["frame"])).json.frames as { index: number; url: string }[];
    const sameF = String(frames.find((f) => f.url.endsWith("/inner-same"))?.index);
    const crossF = String(frames.find((f) => f.url.endsWith("/inner-cross"))?.index);
    const els = await snapshot();
    const found = (await run(["find", "button"])).json.elements as { name: string; f?: string; r?: number }[];
    expect(found.find((e) => e.name === "Same button")).toMatchObject({
      f: sameF,
      r: els.find((e) => e.n === "Same button")?.r,
    });
    expect(found.find((e) => e.name === "Cross button")).toMatchObject({
      f: crossF,
      r: els.find((e) => e.n === "Cross button")?.r,
    });
    const hit = ((await run(["search", "Cross button"])).json.matches as { f?: string; r?: number }[])[0];
    expect(hit).toMatchObject({ f: crossF, r: els.find((e) => e.n === "Cross button")?.r });
  });

  test("a snapshot that fits is never folded: 12 checkboxes keep their names", async () => {
    await run(["open", `${site.a}/checks`]);
    const els = await snapshot();
    expect(els.some((e) => e.fold !== undefined)).toBe(false);
    expect(names(els)).toEqual(Array.from({ length: 12 }, (_, i) => `Option ${i + 1}`));
  });

  test("a long run folds; --find and --expand reach one row cheaply, with refs that work", async () => {
    await run(["open", `${site.a}/rows`]);
    const els = await snapshot();
    const fold = els.find((e) => e.fold !== undefined);
    expect(fold?.fold).toBeGreaterThan(290);
    const found = await snapshot("--find", "Row 250");
    expect(names(found)).toEqual(["Row 250"]);
    const ref = found[0]?.r ?? 0;
    const searched = ((await run(["search", "Row 250", "--whole-word"])).json.matches as { r?: number }[])[0];
    expect(searched?.r).toBe(ref);
    const around = await snapshot("--expand", String(ref));
    expect(names(around)).toContain("Row 250");
    expect(names(around)).toContain("Row 245");
    expect(names(around)).not.toContain("Row 2");
    expect(around.length).toBeLessThan(30);
    expect(around.find((e) => e.n === "Row 250")?.r).toBe(ref);
    expect((await run(["click", String(ref)])).json.ok).toBe(true);
    expect((await run(["eval", "document.body.dataset.hit"])).json.value).toBe("Row 250");
  });
});
