/**
 * Several Chrome profiles behind one endpoint. The browser here is what a person's Chrome is
 * when two profiles are open: one browser process, a second profile directory of the same
 * user-data dir opened into it (Chrome's process singleton hands the second invocation over),
 * each profile its own browser context. We do not use Target.createBrowserContext: contexts
 * made over CDP are listed by Target.getBrowserContexts and accepted by Target.createTarget,
 * while a person's profiles are neither; only real profile directories show what bp meets in
 * a real browser, including the in-profile window.open that opening a tab there needs.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { BP, killAndWait, makeBpEnv, processesFor, waitFor, type BpEnv } from "../support/bp.ts";
import { startFixtureServer } from "../support/fixture-server.ts";
import { listPageTargets, startUserBrowser, type UserBrowser } from "../support/user-browser.ts";

const site = startFixtureServer();
let user: UserBrowser;
let env: BpEnv;

const page = (title: string, body = "") =>
  `${site.a}/echo?html=${encodeURIComponent(`<title>${title}</title><p>${title}</p>${body}`)}`;

type Tab = { id: string; profile?: string; origin: string; title: string; url: string };
type Profile = {
  id: string;
  label: string;
  kind?: "context";
  name?: string;
  directory?: string;
  selected?: true;
  tabCount: number;
  tabs?: { id: string; title: string; url: string }[];
};

async function profiles(key = "lister", args: string[] = []): Promise<Profile[]> {
  const r = await env.run(["profiles", ...args], { key });
  expect(r.json.ok).toBe(true);
  return r.json.profiles as Profile[];
}

async function tabs(key: string): Promise<Tab[]> {
  const r = await env.run(["tabs"], { key });
  expect(r.json.ok).toBe(true);
  return r.json.tabs as Tab[];
}

/** The profile whose person's window shows `title`. */
async function profileOf(title: string): Promise<Profile> {
  const found = (await profiles()).find((p) => p.tabs?.some((t) => t.title === title));
  if (!found) throw new Error(`no profile shows ${title}`);
  return found;
}

async function pageIds(): Promise<string[]> {
  return (await listPageTargets(user.port)).map((t) => t.id).sort();
}

beforeAll(async () => {
  user = await startUserBrowser({ profiles: true, url: page("Work home") });
  await user.openProfile("Profile 2", page("Personal home"));
  await waitFor(
    async () => {
      const titles = (await listPageTargets(user.port)).map((t) => t.title);
      return titles.includes("Work home") && titles.includes("Personal home");
    },
    20_000,
    "both profile windows",
  );
  env = makeBpEnv();
  env.env.HOME = user.home;
  const c = await env.run(["connect"]);
  // Connecting already says that new tabs need a profile choice.
  expect(c.json).toMatchObject({ ok: true, browser: { source: "discovered" }, profileSelectionRequired: true });
  expect((c.json.profiles as { label: string }[]).map((p) => p.label).sort()).toEqual(["Profile 1", "Profile 2"]);
  // Each profile keeps its own storage: what a tab reads back proves which profile it is in.
  for (const [title, who] of [
    ["Work home", "work"],
    ["Personal home", "personal"],
  ] as const) {
    const t = (await tabs("setup")).find((x) => x.title === title);
    expect((await env.run(["tab", t?.id ?? ""], { key: "setup" })).json.ok).toBe(true);
    expect((await env.run(["eval", `localStorage.setItem("who", "${who}"); "ok"`], { key: "setup" })).json.value).toBe(
      "ok",
    );
    await env.run(["tab", "release"], { key: "setup" });
  }
});

afterAll(async () => {
  await env?.cleanup();
  await user?.stop();
  site.stop();
});

describe("profiles of one browser", () => {
  test("bp profiles lists both, passively, with opaque ids, neutral labels and representative tabs", async () => {
    const before = await pageIds();
    const r = await env.run(["profiles"], { key: "lister" });
    const list = r.json.profiles as Profile[];
    expect(list.map((p) => p.label).sort()).toEqual(["Profile 1", "Profile 2"]);
    for (const p of list) {
      expect(p.id).toMatch(/^p[0-9a-z]{6}$/);
      expect(p.tabCount).toBe(1);
      // Not identified yet: no name is guessed from directories or order.
      expect(p.name).toBeUndefined();
      expect(p.directory).toBeUndefined();
    }
    expect(new Set(list.map((p) => p.id)).size).toBe(2);
    expect(list.flatMap((p) => (p.tabs ?? []).map((t) => t.title)).sort()).toEqual(["Personal home", "Work home"]);
    // Raw CDP context and target ids (32 hex digits) never appear.
    expect(r.stdout).not.toMatch(/[0-9A-F]{32}/);
    // An agent limited to its own tabs sees every profile, but none of the person's tabs in them.
    const own = (await env.run(["profiles"], { key: "own-only", env: { BROWSER_PILOT_TAB_ACCESS: "own" } })).json
      .profiles as Profile[];
    expect(own.map((p) => [p.tabCount, p.tabs])).toEqual([
      [0, undefined],
      [0, undefined],
    ]);
    const human = await env.run(["profiles", "--human"], { key: "lister" });
    expect(human.stdout).toMatch(/p[0-9a-z]{6} {2}Profile 1 {2}1 tab\(s\)/);
    expect(human.stdout).toContain("Work home");
    expect(await pageIds()).toEqual(before);
    const listed = await tabs("lister");
    const work = list.find((p) => p.tabs?.some((t) => t.title === "Work home"));
    expect(listed.find((t) => t.title === "Work home")?.profile).toBe(work?.id ?? "");
  });

  test("with two profiles and no anchor, open --new is profile_selection_required and sends nothing", async () => {
    const before = await pageIds();
    const r = await env.run(["open", page("Nowhere"), "--new"], { key: "undecided" });
    expect(r.json).toMatchObject({
      ok: false,
      code: "profile_selection_required",
      remediation: { code: "select_profile" },
    });
    expect((r.json.context?.profiles as unknown[]).length).toBe(2);
    expect(await pageIds()).toEqual(before);
    const recs = (await env.run(["commands"], { key: "undecided" })).json.commands as {
      method: string;
      dispatchedAt?: string;
    }[];
    expect(recs.find((c) => c.method === "open")?.dispatchedAt).toBeUndefined();
  });

  test("two agents routed to different profiles at once; each new tab is in its profile", async () => {
    const work = await profileOf("Work home");
    const personal = await profileOf("Personal home");
    const chosen = (await env.run(["profile", work.id], { key: "agent-work" })).json;
    expect(chosen).toMatchObject({ ok: true, profile: { id: work.id } });
    // It was just chosen: selected:true would say nothing.
    expect(chosen.profile).not.toHaveProperty("selected");
    expect((await env.run(["status"], { key: "agent-work" })).json).toMatchObject({ session: { profile: work.id } });
    const [a, b] = await Promise.all([
      env.run(["open", page("Work task", "<button>Go</button>"), "--new"], { key: "agent-work" }),
      env.run(["open", page("Personal task"), "--new", "--profile", personal.id], { key: "agent-personal" }),
    ]);
    expect(a.json).toMatchObject({ ok: true, profile: work.id, title: "Work task" });
    expect(b.json).toMatchObject({ ok: true, profile: personal.id, title: "Personal task" });
    expect((await env.run(["eval", `localStorage.getItem("who")`], { key: "agent-work" })).json.value).toBe("work");
    expect((await env.run(["eval", `localStorage.getItem("who")`], { key: "agent-personal" })).json.value).toBe(
      "personal",
    );
    // The agent's next tab stays in its profile (its selected tab anchors it).
    const again = await env.run(["open", page("Work task 2"), "--new"], { key: "agent-work" });
    expect(again.json).toMatchObject({ ok: true, profile: work.id });
    expect((await env.run(["eval", `localStorage.getItem("who")`], { key: "agent-work" })).json.value).toBe("work");
    const own = (await tabs("agent-work")).filter((t) => t.title.startsWith("Work task"));
    expect(own.map((t) => t.profile)).toEqual([work.id, work.id]);
    // A profile choice is no permission: the other profile's tabs stay listed and usable.
    const personalTab = (await tabs("agent-work")).find((t) => t.title === "Personal home");
    expect(personalTab?.profile).toBe(personal.id);
    expect((await env.run(["tab", personalTab?.id ?? ""], { key: "agent-work" })).json).toMatchObject({
      ok: true,
      tab: { profile: personal.id },
    });
    expect((await env.run(["eval", `localStorage.getItem("who")`], { key: "agent-work" })).json.value).toBe("personal");
    expect((await env.run(["tab", "release"], { key: "agent-work" })).json.ok).toBe(true);
  });

  test("switching to a tab routes new tabs to its profile; bp profile deselects a tab of another", async () => {
    const work = await profileOf("Work home");
    const personal = await profileOf("Personal home");
    const t = (await tabs("switcher")).find((x) => x.title === "Personal home");
    expect((await env.run(["tab", t?.id ?? ""], { key: "switcher" })).json.ok).toBe(true);
    const o = await env.run(["open", page("Switched"), "--new"], { key: "switcher" });
    expect(o.json).toMatchObject({ ok: true, profile: personal.id });
    // A label works as a selector too (case-insensitive, exact).
    expect((await env.run(["profile", personal.label.toLowerCase()], { key: "switcher" })).json).toMatchObject({
      ok: true,
      profile: { id: personal.id },
    });
    expect((await env.run(["profile", work.id], { key: "switcher" })).json.ok).toBe(true);
    // The personal tab no longer anchors: the next tab without --new is a new one in the chosen profile.
    const n = await env.run(["open", page("Chosen")], { key: "switcher" });
    expect(n.json).toMatchObject({ ok: true, profile: work.id });
    expect((await env.run(["eval", `localStorage.getItem("who")`], { key: "switcher" })).json.value).toBe("work");
    await env.run(["close", "--all"], { key: "switcher" });
  });

  test("unknown ids and names fail with clear codes", async () => {
    expect((await env.run(["profile", "pzzzzzz"], { key: "typo" })).json).toMatchObject({
      ok: false,
      code: "profile_context_stale",
      context: { reason: "unknown_profile" },
    });
    expect((await env.run(["profile", "No Such Person"], { key: "typo" })).json).toMatchObject({
      ok: false,
      code: "invalid_argument",
      context: { field: "profile" },
    });
    expect((await env.run(["open", page("X"), "--profile", "pzzzzzz"], { key: "typo" })).json).toMatchObject({
      ok: false,
      code: "profile_context_stale",
    });
  });

  test("--identify names each profile from Local State through a temporary page it closes again", async () => {
    const help = await Bun.spawn([BP, "profiles", "--help"], { stdout: "pipe", env: env.env }).stdout.text();
    expect(help).toMatch(/opens a temporary chrome:\/\/version page/);
    // Chrome writes Local State a moment after a profile opens; identity reads what is on disk.
    await waitFor(
      () => {
        try {
          const state = JSON.parse(readFileSync(join(user.userDataDir, "Local State"), "utf8")) as {
            profile?: { info_cache?: Record<string, unknown> };
          };
          return ["Default", "Profile 2"].every((d) => state.profile?.info_cache?.[d] !== undefined);
        } catch {
          return false;
        }
      },
      30_000,
      "Local State with both profiles",
    );
    const before = await pageIds();
    const list = await profiles("identifier", ["--identify"]);
    expect(await pageIds()).toEqual(before);
    const work = list.find((p) => p.tabs?.some((t) => t.title === "Work home"));
    const personal = list.find((p) => p.tabs?.some((t) => t.title === "Personal home"));
    expect(work?.directory).toBe("Default");
    expect(personal?.directory).toBe("Profile 2");
    for (const p of [work, personal]) expect(typeof p?.name).toBe("string");
    // Identity lasts for the connection: a plain listing shows it without opening anything.
    expect((await profiles("someone-else")).every((p) => p.directory !== undefined)).toBe(true);
  });

  test("--identify tells a context another tool made over CDP from the profile Chrome shows as its parent", async () => {
    // Another automation on the same browser: its context's chrome://version shows the Default profile's path.
    const ws = new WebSocket(user.wsEndpoint);
    await new Promise((resolve, reject) => {
      ws.onopen = resolve;
      ws.onerror = reject;
    });
    let next = 0;
    const send = (method: string, params: Record<string, unknown> = {}) =>
      new Promise<Record<string, unknown>>((resolve, reject) => {
        const id = ++next;
        const onMessage = (e: MessageEvent) => {
          const msg = JSON.parse(String(e.data)) as { id?: number; result?: Record<string, unknown>; error?: unknown };
          if (msg.id !== id) return;
          ws.removeEventListener("message", onMessage);
          msg.error ? reject(new Error(JSON.stringify(msg.error))) : resolve(msg.result ?? {});
        };
        ws.addEventListener("message", onMessage);
        ws.send(JSON.stringify({ id, method, params }));
      });
    const { browserContextId } = await send("Target.createBrowserContext");
    try {
      await send("Target.createTarget", { url: page("Tool context"), browserContextId });
      await waitFor(
        async () => (await listPageTargets(user.port)).some((t) => t.title === "Tool context"),
        10_000,
        "the tool's page",
      );
      const list = await profiles("identifier", ["--identify"]);
      // Chrome sends no event for a title: the listing reads titles fresh, never the placeholder a new tab had.
      const tool = list.find((p) => p.tabs?.some((t) => t.title === "Tool context"));
      expect(tool).toMatchObject({ kind: "context" });
      expect(tool?.directory).toBeUndefined();
      expect(tool?.name).toBeUndefined();
      const real = list.filter((p) => p !== tool);
      expect(real.map((p) => p.directory).sort()).toEqual(["Default", "Profile 2"]);
      for (const p of real) expect(p.kind).toBeUndefined();
    } finally {
      await send("Target.disposeBrowserContext", { browserContextId });
      ws.close();
    }
    await waitFor(async () => (await profiles()).length === 2, 10_000, "the tool's context gone");
  });

  test("reconnect: every old profile id, tab id and ref fails with a clear code", async () => {
    const old = await profiles();
    const workTask = (await tabs("agent-work")).find((t) => t.title === "Work task");
    expect((await env.run(["tab", workTask?.id ?? ""], { key: "agent-work" })).json.ok).toBe(true);
    expect((await env.run(["snapshot"], { key: "agent-work" })).stdout).toContain("Go");
    const work = old.find((p) => p.tabs?.some((t) => t.title === "Work home"));
    expect((await env.run(["profile", work?.id ?? ""], { key: "agent-work" })).json.ok).toBe(true);
    const [janitor] = processesFor(env.home, "janitor");
    await killAndWait(janitor ?? 0, "SIGKILL");
    await waitFor(
      async () => (await env.run(["tabs"], { key: "agent-work" })).json.code === "browser_disconnected",
      10_000,
      "loss noticed",
    );
    expect((await env.run(["connect"])).json).toMatchObject({ ok: true, browser: { generation: 2 } });
    for (const p of old) {
      expect(
        (await env.run(["open", page("Stale"), "--new", "--profile", p.id], { key: "agent-personal" })).json,
      ).toMatchObject({
        ok: false,
        code: "profile_context_stale",
        context: { reason: "browser_reconnected" },
        remediation: { code: "relist_profile_contexts" },
      });
    }
    // The agent chose its profile itself: that choice is not silently moved to another one.
    expect((await env.run(["open", page("Stale"), "--new"], { key: "agent-work" })).json).toMatchObject({
      ok: false,
      code: "profile_context_stale",
    });
    const fresh = await profiles();
    expect(fresh).toHaveLength(2);
    for (const p of fresh) expect(old.map((o) => o.id)).not.toContain(p.id);
    expect((await env.run(["tab", workTask?.id ?? ""], { key: "agent-work" })).json).toMatchObject({
      ok: false,
      code: "tab_not_found",
      context: { reason: "browser_reconnected" },
    });
    // The same physical tab under its new id: refs observed before the reconnect are stale.
    const again = (await tabs("agent-work")).find((t) => t.title === "Work task");
    expect(again?.origin).toBe("managed");
    expect((await env.run(["tab", again?.id ?? ""], { key: "agent-work" })).json.ok).toBe(true);
    expect((await env.run(["click", "1"], { key: "agent-work" })).json).toMatchObject({
      ok: false,
      code: "stale_ref",
      context: { reason: "browser_reconnected" },
    });
  });

  test("a profile whose windows all closed is profile_context_unavailable; the other one works on", async () => {
    const list = await profiles();
    const personal = list.find((p) => p.tabs?.some((t) => t.title === "Personal home"));
    const work = list.find((p) => p.tabs?.some((t) => t.title === "Work home"));
    // The person closes every window of the personal profile.
    const personalTitles = new Set(["Personal home", "Personal task"]);
    for (const t of await listPageTargets(user.port)) {
      if (personalTitles.has(t.title)) await fetch(`http://127.0.0.1:${user.port}/json/close/${t.id}`);
    }
    await waitFor(async () => (await profiles()).length === 1, 10_000, "profile gone");
    expect(
      (await env.run(["open", page("Late"), "--new", "--profile", personal?.id ?? ""], { key: "late" })).json,
    ).toMatchObject({
      ok: false,
      code: "profile_context_unavailable",
      remediation: { code: "relist_profile_contexts" },
    });
    // One profile left: it is the only choice, so no selection is needed.
    const o = await env.run(["open", page("Late"), "--new"], { key: "late" });
    expect(o.json).toMatchObject({ ok: true, tab: expect.stringMatching(/^t\d+$/) });
    expect(o.json.profile).toBeUndefined();
    expect((await env.run(["eval", `localStorage.getItem("who")`], { key: "late" })).json.value).toBe("work");
    expect((await profiles())[0]?.id).toBe(work?.id ?? "");
  });
});
