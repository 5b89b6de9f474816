import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { alive, killAndWait, makeBpEnv, processesFor, waitFor, type BpEnv } from "../support/bp.ts";
import { startFixtureServer } from "../support/fixture-server.ts";
import { listPageTargets, openUserTab, startUserBrowser, type UserBrowser } from "../support/user-browser.ts";

const site = startFixtureServer();
let user: UserBrowser;
let env: BpEnv;

beforeAll(async () => {
  user = await startUserBrowser({ url: `${site.a}/` });
  await waitFor(
    async () => (await listPageTargets(user.port)).some((t) => t.title === "Home"),
    10_000,
    "user page load",
  );
  env = makeBpEnv({ HOME: "" });
  env.env.HOME = user.home;
});

afterAll(async () => {
  await env.cleanup();
  await user.stop();
  site.stop();
});

type Tab = { id: string; origin: string; url: string; title: string; control: string };

describe("the person's own browser", () => {
  test("discovery finds it passively; connect attaches; the person's tab is a user_tab", async () => {
    const status = await env.run(["status"]);
    const browsers = status.json.browsers as { id: string; state: string }[];
    const candidate = browsers.find((b) => b.state === "disconnected");
    expect(candidate).toBeDefined();
    expect(env.brokerPid()).toBeUndefined();
    const c = await env.run(["connect", "--browser", candidate?.id ?? ""]);
    expect(c.json).toMatchObject({ ok: true, browser: { source: "discovered", generation: 1 } });
    expect(c.json).not.toHaveProperty("reused");
    const tabs = (await env.run(["tabs"])).json.tabs as Tab[];
    expect(tabs).toHaveLength(1);
    expect(tabs[0]).toMatchObject({ origin: "user_tab", title: "Home", control: "available" });
  });

  test("kill -9 of the broker closes managed tabs and their popups, never the user tab", async () => {
    const opened = await env.run(["open", `${site.a}/popup`, "--new"], { key: "agent-k" });
    expect(opened.json.ok).toBe(true);
    await env.run(["eval", "document.getElementById('b').click()"], { key: "agent-k" });
    await waitFor(async () => (await listPageTargets(user.port)).length === 3, 10_000, "popup");
    const tabs = (await env.run(["tabs"], { key: "agent-k" })).json.tabs as Tab[];
    expect(tabs.filter((t) => t.origin === "managed_popup")).toHaveLength(1);
    const broker = env.brokerPid() ?? 0;
    const janitors = processesFor(env.home, "janitor");
    expect(janitors).toHaveLength(1);
    await killAndWait(broker, "SIGKILL");
    await waitFor(() => janitors.every((p) => !alive(p)), 10_000, "janitor exit");
    // The janitor has sent every close; the browser finishes closing a moment later.
    const onlyHome = async () => JSON.stringify((await listPageTargets(user.port)).map((t) => t.title)) === '["Home"]';
    await waitFor(onlyHome, 10_000, "only the person's tab left").catch(() => undefined);
    const left = await listPageTargets(user.port);
    expect(left.map((t) => t.title)).toEqual(["Home"]);
    expect(alive(user.pid)).toBe(true);
  });

  test("a new broker reconnects with a new generation; user tabs opened meanwhile are listed", async () => {
    await openUserTab(user.port, `${site.b}/third`);
    const c = await env.run(["connect"]);
    expect(c.json).toMatchObject({ ok: true, browser: { generation: 1 } });
    expect(c.json).not.toHaveProperty("reused");
    const tabs = (await env.run(["tabs"])).json.tabs as Tab[];
    expect(tabs.map((t) => t.origin)).toEqual(["user_tab", "user_tab"]);
  });

  test("ten concurrent connects from cold share one broker and one browser connection", async () => {
    await env.stop();
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => env.run(["connect"], { key: `agent-${i}` })),
    );
    for (const r of results) expect(r.json.ok).toBe(true);
    expect(results.filter((r) => r.json.reused === undefined)).toHaveLength(1);
    expect(processesFor(env.home, "broker")).toHaveLength(1);
    expect(processesFor(env.home, "janitor")).toHaveLength(1);
  });

  test("an earlier managed tab stays visible, and actions there are not slowed by throttled timers", async () => {
    // This browser has no anti-throttling flags (it is the person's own): every managed tab
    // gets its own background window and focus emulation, so a second tab hides nothing.
    const page = `<title>Counter</title><button onclick="this.textContent = Number(this.textContent) + 1">0</button>`;
    const o1 = await env.run(["open", `${site.a}/echo?html=${encodeURIComponent(page)}`, "--new"], { key: "bg-agent" });
    expect(o1.json).toMatchObject({ ok: true, title: "Counter" });
    await env.run(["open", `${site.a}/second`, "--new"], { key: "bg-agent" });
    const tabs = (await env.run(["tabs"], { key: "bg-agent" })).json.tabs as Tab[];
    const counter = tabs.find((t) => t.title === "Counter");
    await env.run(["tab", counter?.id ?? ""], { key: "bg-agent" });
    expect((await env.run(["eval", "document.visibilityState"], { key: "bg-agent" })).json.value).toBe("visible");
    await env.run(["snapshot"], { key: "bg-agent" });
    for (let i = 1; i <= 3; i++) {
      const r = await env.run(["--timeout", "2500", "click", "1"], { key: "bg-agent" });
      expect(r.json).toMatchObject({ ok: true, evidence: { status: "verified" } });
      expect((r.json.evidence as { effects: string[] }).effects).toContain("dom_changed");
    }
    await env.run(["close", "--all"], { key: "bg-agent" });
  });

  test("if the janitor dies, the next connection owns this agent's tabs again and still cleans them up", async () => {
    const opened = await env.run(
      ["open", `${site.a}/echo?html=${encodeURIComponent("<title>Orphan</title>")}`, "--new"],
      { key: "orphan-agent" },
    );
    expect(opened.json.ok).toBe(true);
    const before = (await listPageTargets(user.port)).length;
    const [janitor] = processesFor(env.home, "janitor");
    await killAndWait(janitor ?? 0, "SIGKILL");
    await waitFor(
      async () => (await env.run(["tabs"], { key: "orphan-agent" })).json.code === "browser_disconnected",
      10_000,
      "loss noticed",
    );
    // Nothing closed the tab: the janitor died without cleaning up, as SIGKILL allows.
    expect((await listPageTargets(user.port)).length).toBe(before);
    expect((await env.run(["connect"], { key: "orphan-agent" })).json).toMatchObject({
      ok: true,
      browser: { generation: 2 },
    });
    const tabs = (await env.run(["tabs"], { key: "orphan-agent" })).json.tabs as Tab[];
    expect(tabs.find((t) => t.title === "Orphan")?.origin).toBe("managed");
    // Control came back with the tab: another agent still cannot take it.
    const seen = ((await env.run(["tabs"], { key: "other-agent" })).json.tabs as Tab[]).find(
      (t) => t.title === "Orphan",
    );
    expect(seen?.control).toBe("busy");
    expect((await env.run(["tab", seen?.id ?? ""], { key: "other-agent" })).json.code).toBe("target_busy");
    await killAndWait(env.brokerPid() ?? 0, "SIGKILL");
    await waitFor(
      async () => (await listPageTargets(user.port)).length === before - 1,
      10_000,
      "re-adopted tab closed",
    );
    expect((await listPageTargets(user.port)).some((t) => t.title === "Home")).toBe(true);
    expect((await env.run(["connect"], { key: "agent-0" })).json.ok).toBe(true);
  });

  test("disconnect releases the key; its user tab stays open", async () => {
    const tabs = (await env.run(["tabs"], { key: "agent-0" })).json.tabs as Tab[];
    await env.run(["tab", tabs[0]?.id ?? ""], { key: "agent-0" });
    const r = await env.run(["disconnect"], { key: "agent-0" });
    // The user's tab is never closed: no count of 0.
    expect(r.json.ok).toBe(true);
    expect(r.json).not.toHaveProperty("closedTabs");
    expect((await listPageTargets(user.port)).length).toBe(2);
  });
});
