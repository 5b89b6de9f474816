import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { requireChromium } from "../support/chromium.ts";
import { alive, browsersUnder, makeBpEnv, processesFor, waitFor } from "../support/bp.ts";
import { startFixtureServer } from "../support/fixture-server.ts";

requireChromium();
const env = makeBpEnv();
const site = startFixtureServer();
const A = "agent-a";
const B = "agent-b";

beforeAll(async () => {
  const r = await env.run(["launch", "--headless"]);
  // Lean: started now (no reused), headless as asked, the default profile: nothing of it is news.
  expect(Object.keys(r.json).sort()).toEqual(["browser", "ok"]);
});

afterAll(async () => {
  await env.cleanup();
  site.stop();
});

type Tab = { id: string; origin: string; url: string; title: string; selected?: true; control: string };

describe("launched browser: tabs, navigation, eval", () => {
  test("open --new creates a managed tab with a per-key id; eval reads it", async () => {
    const r = await env.run(["open", `${site.a}/`, "--new"], { key: A });
    // A new tab's id is what the agent needs next; the URL is the one given, so it is not repeated.
    expect(r.json).toEqual({ ok: true, tab: "t1", title: "Home" });
    const e = await env.run(["eval", "document.querySelector('h1').textContent"], { key: A });
    // Lean: a value that shows its own type comes alone.
    expect(e.json).toEqual({ ok: true, value: "Home" });
  });

  test("navigation: open in the selected tab, back, forward, reload", async () => {
    // The selected tab is not named again; only the title is news.
    expect((await env.run(["open", `${site.a}/second`], { key: A })).json).toEqual({ ok: true, title: "Second" });
    expect((await env.run(["back"], { key: A })).json).toEqual({ ok: true, url: `${site.a}/`, title: "Home" });
    expect((await env.run(["forward"], { key: A })).json).toEqual({
      ok: true,
      url: `${site.a}/second`,
      title: "Second",
    });
    await env.run(["eval", "window.marker = 42"], { key: A });
    // A reload changes neither url nor title: the reply is just ok.
    expect((await env.run(["reload"], { key: A })).json).toEqual({ ok: true });
    expect((await env.run(["eval", "typeof window.marker"], { key: A })).json.value).toBe("undefined");
    expect((await env.run(["forward"], { key: A })).json).toEqual({ ok: true, navigated: false });
    // Text says the same, without printing a URL that did not change.
    expect((await env.run(["--human", "forward"], { key: A })).stdout.trim()).toBe("No forward entry; nothing changed");
    expect((await env.run(["--human", "open", `${site.a}/second`], { key: A })).stdout.trim()).toBe(
      "✓ Navigated  Second",
    );
    // A URL that is not the one given (a scheme added, a redirect) is said.
    const bare = `${site.a}/third`.replace(/^http:\/\//, "");
    expect((await env.run(["open", bare], { key: A })).json).toEqual({
      ok: true,
      url: `${site.a}/third`,
      title: "Third",
    });
    await env.run(["back"], { key: A });
  });

  test("eval: stdin expressions, promises, exceptions, undefined and bounded values", async () => {
    expect(
      (await env.run(["eval"], { key: A, stdin: "new Promise(r => setTimeout(() => r(7), 10))" })).json.value,
    ).toBe(7);
    const thrown = await env.run(["eval", "throw new TypeError('nope')"], { key: A });
    expect(thrown.json).toMatchObject({ ok: false, code: "script_error" });
    expect(String(thrown.json.error)).toContain("nope");
    expect((await env.run(["eval", "undefined"], { key: A })).json).toEqual({
      ok: true,
      value: null,
      type: "undefined",
    });
    expect((await env.run(["eval", "NaN"], { key: A })).json).toEqual({ ok: true, value: "NaN", type: "number" });
    expect((await env.run(["eval", "({a: [1, null]})"], { key: A })).json).toEqual({
      ok: true,
      value: { a: [1, null] },
    });
    const big = await env.run(["eval", "'x'.repeat(300000)"], { key: A });
    expect(big.json.truncated).toBe(true);
    expect(String(big.json.value).length).toBe(100_000);
  });

  test("a URL without a scheme gets https://; javascript: is refused", async () => {
    const r = await env.run(["open", "javascript:alert(1)"], { key: A });
    expect(r.json).toMatchObject({ ok: false, code: "invalid_argument" });
    const bad = await env.run(["open", "nonexistent.invalid"], { key: A });
    expect(bad.json).toMatchObject({ ok: false, code: "navigation_failed" });
    expect(bad.json.context?.url).toBe("https://nonexistent.invalid/");
  });

  test("two keys: isolated ids, one controller per tab, target_busy never steals", async () => {
    const b1 = await env.run(["open", `${site.b}/third`, "--new"], { key: B });
    expect(b1.json).toMatchObject({ ok: true, tab: "t1", title: "Third" });
    const listA = (await env.run(["tabs"], { key: A })).json.tabs as Tab[];
    const bTab = listA.find((t) => t.title === "Third");
    expect(bTab?.control).toBe("busy");
    // Only the selected tab says so.
    expect(listA.filter((t) => "selected" in t).map((t) => t.selected)).toEqual([true]);
    const steal = await env.run(["tab", bTab?.id ?? ""], { key: A });
    expect(steal.json).toMatchObject({ ok: false, code: "target_busy", retryable: true });
    // B still has it, unchanged.
    expect((await env.run(["eval", "document.title"], { key: B })).json.value).toBe("Third");
    // B releases; now A may take it.
    // Released without naming it: the reply names it.
    expect((await env.run(["tab", "release"], { key: B })).json).toEqual({ ok: true, released: "t1" });
    // Selecting a tab answers what it is, not the id given nor the control it now has.
    expect((await env.run(["tab", bTab?.id ?? ""], { key: A })).json).toEqual({
      ok: true,
      tab: { origin: "managed", title: "Third", url: `${site.b}/third` },
    });
    expect((await env.run(["eval", "document.title"], { key: A })).json.value).toBe("Third");
    // B without a selected tab gets a clear code, not someone else's tab.
    expect((await env.run(["eval", "1"], { key: B })).json.code).toBe("no_selected_tab");
    await env.run(["tab", "t1"], { key: A });
  });

  test("BROWSER_PILOT_TAB_ACCESS=own hides other keys' tabs", async () => {
    const aOwn = (await env.run(["tabs"], { key: A, env: { BROWSER_PILOT_TAB_ACCESS: "own" } })).json.tabs as Tab[];
    const aTitle = aOwn[0]?.title;
    expect(aTitle).toBeDefined();
    const own = await env.run(["tabs"], { key: B, env: { BROWSER_PILOT_TAB_ACCESS: "own" } });
    const titles = (own.json.tabs as Tab[]).map((t) => t.title);
    expect(titles).toContain("Third");
    expect(titles).not.toContain(aTitle ?? "");
    const all = await env.run(["tabs"], { key: B });
    expect((all.json.tabs as Tab[]).map((t) => t.title)).toContain(aTitle ?? "");
  });

  test("tab ids are never reused; closed tabs do not resolve", async () => {
    const r = await env.run(["open", `${site.a}/`, "--new"], { key: A });
    const id = String(r.json.tab);
    expect(Number(id.slice(1))).toBeGreaterThan(1);
    const closed = await env.run(["close"], { key: A });
    expect(closed.json).toMatchObject({ ok: true, closed: [id] });
    const again = await env.run(["tab", id], { key: A });
    expect(again.json).toMatchObject({ ok: false, code: "tab_not_found" });
    const next = await env.run(["open", `${site.a}/`, "--new"], { key: A });
    expect(Number(String(next.json.tab).slice(1))).toBeGreaterThan(Number(id.slice(1)));
  });

  test("status is one passive round trip with this agent's tab and command records", async () => {
    const s = await env.run(["status"], { key: A });
    expect(s.json).toMatchObject({ ok: true, service: { state: "running" }, session: { state: "active" } });
    // Lean: no empty command lists, no recovery when none is needed.
    expect(s.json).not.toHaveProperty("commands");
    expect(s.json).not.toHaveProperty("recovery");
    expect((s.json.session as { selectedTab: { id: string } }).selectedTab.id).toMatch(/^t\d+$/);
  });

  test("raw CDP target ids never appear in output", async () => {
    const r = await env.run(["tabs"], { key: A });
    expect(r.stdout).not.toMatch(/[0-9A-F]{32}/);
  });

  test("close --all closes only this key's managed tabs", async () => {
    const before = (await env.run(["tabs"], { key: B })).json.tabs as Tab[];
    const r = await env.run(["close", "--all"], { key: A });
    expect(r.json.ok).toBe(true);
    const after = (await env.run(["tabs"], { key: B })).json.tabs as Tab[];
    expect(after.some((t) => t.title === "Third")).toBe(true);
    expect(after.length).toBeLessThan(before.length);
  });

  test("disconnect from every key stops the broker, janitor and launched browser", async () => {
    const broker = env.brokerPid();
    expect(broker).toBeDefined();
    const janitors = processesFor(env.home, "janitor");
    expect(janitors.length).toBe(1);
    const chromium = browsersUnder(env.home);
    expect(chromium.length).toBe(1);
    const a = await env.run(["disconnect"], { key: A });
    expect(a.json).toMatchObject({ ok: true, message: expect.stringContaining("keep the broker running") });
    expect(a.json).not.toHaveProperty("brokerStopped");
    const b = await env.run(["disconnect"], { key: B });
    expect(b.json.ok).toBe(true);
    expect(b.json).not.toHaveProperty("brokerStopped");
    // The key that ran 'bp launch' is an agent too; it is the last one out.
    const last = await env.run(["disconnect"]);
    expect(last.json).toEqual({ ok: true, brokerStopped: true });
    await waitFor(() => !alive(broker ?? 0), 10_000, "broker exit");
    await waitFor(() => janitors.every((p) => !alive(p)), 10_000, "janitor exit");
    await waitFor(() => chromium.every((p) => !alive(p)), 10_000, "launched browser exit");
    const status = await env.run(["status"]);
    expect((status.json.service as { state: string }).state).toBe("stopped");
  });
});
