// back, forward and reload with --snapshot, --text or --limit: the page's look in the same reply, as open's, and the
// agent's observation (the next action's diff is against it).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { requireChromium } from "../support/chromium.ts";
import { makeBpEnv } from "../support/bp.ts";
import { PAGES, startFixtureServer } from "../support/fixture-server.ts";
import { resultViolations } from "../support/result-check.ts";
import { findCommand } from "../../src/protocol/table.ts";

requireChromium();
type El = { r: number; t: string; n?: string; x?: string };

const site = startFixtureServer({
  ...PAGES,
  "/form": `<!doctype html><title>Form</title><label>Email <input type=email></label>
    <button type=button onclick="const b=document.createElement('button');b.textContent='Added';document.body.append(b)">Add</button>`,
  "/login": `<!doctype html><title>Sign in</title><form action="/welcome"><label>User <input name=u></label><label>Password <input type=password name=p></label><button>Sign in</button></form>`,
  "/welcome": `<!doctype html><title>Welcome</title><a href="/">Home</a>`,
  "/alerting": "<!doctype html><title>Alerting</title><script>alert('loading')</script><button>After</button>",
  // The alert comes after the load, while the look may be running: the page call it blocks never answers.
  "/late-alert":
    "<!doctype html><title>Late</title><button>Before</button><script>onload=()=>setTimeout(()=>{alert('late');document.body.insertAdjacentHTML('beforeend','<button>After</button>')},0)</script>",
  "/article": "<!doctype html><title>Article</title><h1>News</h1><p>Lead text of the article.</p><a href='/'>Home</a>",
});
const env = makeBpEnv();

beforeAll(async () => {
  expect((await env.run(["launch", "--headless"])).json.ok).toBe(true);
});
afterAll(async () => {
  await env.cleanup();
  site.stop();
});

const els = (r: { json: Record<string, unknown> }) => (r.json.elements ?? []) as El[];
const names = (r: { json: Record<string, unknown> }) => els(r).map((e) => e.x ?? e.n);

/** A reply, checked against the command's published result schema. */
async function run(argv: string[]) {
  const r = await env.run(argv);
  const def = await findCommand(argv.find((a) => !a.startsWith("-")) ?? "");
  expect(resultViolations(def?.result ?? ({} as never), r.json)).toEqual([]);
  return r;
}

test("back --snapshot, forward --limit, reload --text: the page in the reply; a click on its refs diffs against it", async () => {
  await run(["open", `${site.a}/form`, "--new"]);
  expect((await run(["open", `${site.a}/login`])).json).toEqual({ ok: true, title: "Sign in" });
  const back = await run(["back", "--snapshot"]);
  expect(back.json).toMatchObject({ ok: true, url: `${site.a}/form`, title: "Form" });
  expect(names(back)).toEqual(["Email", "Add"]);
  expect("diff" in back.json).toBe(false);
  // The look is the agent's observation: the click's diff is against it (no snapshot between).
  const add = els(back).find((e) => e.n === "Add");
  const click = await run(["click", String(add?.r)]);
  expect((click.json.diff as { added: El[] }).added.map((e) => e.n)).toEqual(["Added"]);

  const forward = await run(["forward", "--limit", "2"]);
  expect(forward.json).toMatchObject({
    ok: true,
    url: `${site.a}/login`,
    title: "Sign in",
    truncated: true,
    truncationReasons: ["element_limit"],
  });
  expect(els(forward)).toHaveLength(2);
  // The cut's hint names flags the navigation takes, and the snapshot's --find.
  expect(forward.json.hint).toBe(
    "Showing 2 of 3; use --limit 3, 'bp snapshot --find <text>', 'bp frame <n>', or 'bp find <css>' to narrow.",
  );

  // Neither url nor title changed: the reply is the look alone.
  const reload = await run(["reload", "--snapshot"]);
  expect(Object.keys(reload.json).filter((k) => k !== "hints")).toEqual(["ok", "elements"]);
  expect(names(reload)).toEqual(["User", "Password", "Sign in"]);
  // Without a flag, no look.
  expect((await run(["reload"])).json).toEqual({ ok: true });
  // --text: the page's headings and text blocks too.
  await run(["open", `${site.a}/article`]);
  const text = await run(["reload", "--text"]);
  expect(names(text)).toContain("Lead text of the article.");
  expect(names(text)).toContain("Home");
  expect(names(await run(["reload", "--snapshot"]))).not.toContain("Lead text of the article.");
});

test("no history entry: navigated:false, and the page all the same when asked", async () => {
  // A new tab's history starts at about:blank.
  await run(["open", `${site.a}/welcome`, "--new"]);
  expect((await run(["back"])).json).toMatchObject({ ok: true, url: "about:blank" });
  expect((await run(["back", "--snapshot"])).json).toEqual({ ok: true, navigated: false });
  expect((await env.run(["--human", "back", "--snapshot"])).stdout.trim()).toBe(
    "No back entry; nothing changed\n(no interactive elements)",
  );
  await run(["forward"]);
  const looked = await run(["forward", "--snapshot"]);
  expect(looked.json).toMatchObject({ ok: true, navigated: false });
  expect(els(looked).map((e) => [e.t, e.n])).toEqual([["link", "Home"]]);
  const human = await env.run(["--human", "forward", "--snapshot"]);
  const ref = els(looked)[0]?.r;
  expect(human.stdout.trim().split("\n")).toEqual(["No forward entry; nothing changed", `[${ref}] link "Home"`]);
});

test("human output: the navigation's line, then the page's entries and hints as 'bp snapshot' lists them", async () => {
  await run(["open", `${site.a}/login`, "--new"]);
  await run(["open", `${site.a}/welcome`]);
  const human = await env.run(["--human", "back", "--snapshot"]);
  const lines = human.stdout.trim().split("\n");
  const first = Number(/^\[(\d+)\]/.exec(lines[1] ?? "")?.[1]);
  expect(lines).toEqual([
    `✓ ${site.a}/login  Sign in`,
    `[${first}] textbox "User"`,
    `[${first + 1}] textbox "Password"`,
    `[${first + 2}] button "Sign in"`,
    `[hint] authentication_surface (strong): inspect_authentication_state refs=${first + 1}`,
  ]);
});

test("a reload that opens a dialog answers with it, and no look (the page is blocked)", async () => {
  const opened = await run(["open", `${site.a}/alerting`, "--new"]);
  const first = (opened.json.dialog as { id: string }).id;
  expect((await run(["dialog", first, "--dismiss"])).json.ok).toBe(true);
  const reload = await run(["reload", "--snapshot"]);
  expect(reload.json).toMatchObject({ ok: true, dialog: { type: "alert", message: "loading" } });
  expect("elements" in reload.json).toBe(false);
  const id = (reload.json.dialog as { id: string }).id;
  expect((await run(["dialog", id, "--dismiss"])).json.ok).toBe(true);
});

test("a dialog that opens while the look runs is named at once; the navigation is not turned into a timeout", async () => {
  for (const argv of [
    ["open", `${site.a}/late-alert`, "--new", "--snapshot"],
    ["reload", "--snapshot"],
  ]) {
    const started = Date.now();
    const r = await run([...argv, "--timeout", "20000"]);
    expect(r.json).toMatchObject({ ok: true, dialog: { type: "alert", message: "late" } });
    expect("elements" in r.json).toBe(false);
    // Before, the look's page call waited out the whole deadline (unknown_outcome).
    expect(Date.now() - started).toBeLessThan(15_000);
    const id = (r.json.dialog as { id: string }).id;
    // The answer's reply shows what it brought: the look the dialog blocked ran after the answer and saw the new
    // button, but the agent was never shown it, so it is no base for this diff.
    const answered = await env.run(["dialog", id, "--accept"]);
    expect(answered.json.ok).toBe(true);
    expect(answered.stdout).toContain('"After"');
  }
});

test("a navigation that used up its time answers without the look, with a hint, not an error", async () => {
  await run(["open", `${site.a}/form`, "--new"]);
  // /slow answers after 1.5 s: less than the look's second is left of the 2.45 s.
  const r = await run(["open", `${site.a}/slow`, "--snapshot", "--timeout", "2450"]);
  expect(r.json).toMatchObject({
    ok: true,
    title: "Slow",
    hint: "No time was left to look at the page: run 'bp snapshot'.",
  });
  expect("elements" in r.json).toBe(false);
});
