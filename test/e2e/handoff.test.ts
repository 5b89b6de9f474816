/**
 * Human takeover and handback against real Chromium: the admission gate, draining, blocked
 * agents, lease expiry and renew bounds, stale refs and the handback notice. The "person" is
 * a second CDP client of the same browser acting on the page, as a person at the window would.
 * Leases run their real length; the expiry tests use a second broker on the same browser whose
 * host settings cut every lease to 0.6 s and viewer links to 6 s (BROWSER_PILOT_HANDOFF_MAX_MS,
 * BROWSER_PILOT_VIEW_LINK_MS); the bounds the CLI validates stay 60/300/3600.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { CdpConnection } from "../../src/cdp/connection.ts";
import { attachToTarget, type CdpSession } from "../../src/cdp/session.ts";
import { connectWebSocket } from "../../src/cdp/transport.ts";
import { BP, makeBpEnv, waitFor, type BpEnv } from "../support/bp.ts";
import { PAGES, startFixtureServer } from "../support/fixture-server.ts";
import { listPageTargets, startUserBrowser, type UserBrowser } from "../support/user-browser.ts";
import { LOGIN_PAGE } from "./handoff-pages.ts";

const site = startFixtureServer({ ...PAGES, "/login": LOGIN_PAGE });
let user: UserBrowser;
let env: BpEnv;
/** A broker of a host that keeps handoffs short: expiry is seen in a second, not minutes. */
let quick: BpEnv;
let person: CdpConnection;
const A = "agent-a";
const B = "agent-b";

type Notice = {
  tab: string;
  ended: string;
  url?: string;
  title?: string;
  authentication_surface?: string;
  newTabs?: { id: string; origin: string; title: string }[];
  hint: string;
};

beforeAll(async () => {
  user = await startUserBrowser({ url: `${site.a}/` });
  env = makeBpEnv({ HOME: user.home });
  quick = makeBpEnv({ HOME: user.home, BROWSER_PILOT_HANDOFF_MAX_MS: "600", BROWSER_PILOT_VIEW_LINK_MS: "6000" });
  for (const e of [env, quick])
    expect((await e.run(["connect", "--cdp-url", user.wsEndpoint])).json).toMatchObject({ ok: true });
  person = new CdpConnection(await connectWebSocket(user.wsEndpoint));
});

afterAll(async () => {
  person?.close();
  await env.cleanup();
  await quick?.cleanup();
  await user.stop();
  site.stop();
});

/** The person's own view of a tab (by URL), through their browser, not through bp. */
async function personTab(urlPart: string): Promise<CdpSession> {
  const target = await waitFor(
    async () => (await listPageTargets(user.port)).find((t) => t.url.includes(urlPart)),
    10_000,
    `tab ${urlPart}`,
  );
  if (!target) throw new Error(`no tab ${urlPart}`);
  return attachToTarget(person, target.id);
}

async function personEval(s: CdpSession, expression: string): Promise<unknown> {
  const r = await s.send("Runtime.evaluate", {
    expression,
    awaitPromise: true,
    returnByValue: true,
    userGesture: true,
  });
  return r.result.value;
}

describe("handoff and handback", () => {
  test("a handed-off tab refuses every agent at once; other tabs go on; the person's changes come back as a notice", async () => {
    expect((await env.run(["open", `${site.a}/login`, "--new"], { key: A })).json).toMatchObject({
      ok: true,
      tab: "t1",
    });
    const snap = await env.run(["snapshot"], { key: A });
    expect(JSON.stringify(snap.json.hints)).toContain("authentication_surface");
    expect((await env.run(["open", `${site.a}/third`, "--new"], { key: B })).json).toMatchObject({
      ok: true,
      tab: "t1",
    });
    await env.run(["tab", "t1"], { key: A });

    const h = await env.run(["handoff", "--message", "Please sign in", "--lease-seconds", "3600"], { key: A });
    expect(h.json).toMatchObject({ ok: true, tab: "t1", control: "human" });
    // Lean: the message is the agent's own; status shows it to the others.
    expect(h.json).not.toHaveProperty("message");
    const until = String(h.json.until);
    expect(Date.parse(until)).toBeGreaterThan(Date.now());

    // Every tab command of the agent that handed off (reads, waits, actions, captures,
    // navigation, selection) is refused at once, before it touches the tab.
    const file = join(env.home, "..", "upload.txt");
    writeFileSync(file, "x");
    const tabCommands = [
      ["snapshot"],
      ["frame"],
      ["frame", "0"],
      ["read"],
      ["search", "Sign"],
      ["find", "button"],
      ["locate", "button"],
      ["eval", "1"],
      ["screenshot", join(env.home, "..", "s.png")],
      ["pdf", join(env.home, "..", "s.pdf")],
      ["click", "1"],
      ["type", "1", "x"],
      ["keyboard", "x"],
      ["press", "Enter"],
      ["scroll", "down"],
      ["hover", "1"],
      ["drag", "1", "2"],
      ["dropdown", "1"],
      ["select", "1", "x"],
      ["upload", "1", file],
      ["wait", "--text", "x"],
      ["wait", "--url", "x"],
      ["wait", "--selector", "x"],
      ["wait", "--network-idle"],
      ["back"],
      ["forward"],
      ["reload"],
      ["open", `${site.a}/`],
      ["close"],
      ["tab", "release"],
      ["tab", "t1"],
      ["cookies"],
    ];
    for (const args of tabCommands) {
      const started = Date.now();
      const r = await env.run(args, { key: A });
      expect({ args, reply: r.json }).toMatchObject({
        args,
        reply: { ok: false, code: "human_control", retryable: true, context: { tab: "t1", until, phase: "human" } },
      });
      expect(Date.now() - started).toBeLessThan(5_000);
    }
    // A second agent neither queues nor steals: human_control, not target_busy.
    const tabsB = (await env.run(["tabs"], { key: B })).json.tabs as { id: string; title: string; control: string }[];
    const handed = tabsB.find((t) => t.title === "Sign in");
    expect(handed?.control).toBe("human");
    const blocked = await env.run(["tab", handed?.id ?? ""], { key: B });
    expect(blocked.json).toMatchObject({ ok: false, code: "human_control", context: { until } });
    // Its own tab is unaffected, and so is A on another tab.
    expect((await env.run(["eval", "document.title"], { key: B })).json).toMatchObject({ ok: true, value: "Third" });
    const status = await env.run(["status"], { key: A });
    expect(status.json.humanControl).toEqual([
      { tab: "t1", phase: "human", until, message: "Please sign in", yours: true },
    ]);

    // The person signs in; the page opens a popup on success.
    const tab = await personTab("/login");
    await personEval(tab, "document.getElementById('user').value = 'ada'; document.getElementById('go').click(); true");
    await waitFor(
      async () => (await listPageTargets(user.port)).some((t) => t.url.endsWith("/second")),
      10_000,
      "popup",
    );

    const back = await env.run(["handback"], { key: "person-shell" });
    // Lean: handback always means automation again; the reply names the tab.
    expect(back.json).toMatchObject({ ok: true, tab: "t1" });
    expect(back.json).not.toHaveProperty("control");
    expect(back.json.handbacks).toBeUndefined();

    // The agent that handed off: told what changed on its next reply, whatever the command.
    const next = await env.run(["click", "2"], { key: A });
    expect(next.json).toMatchObject({ ok: false, code: "stale_ref", context: { ref: 2, reason: "human_control" } });
    const notices = next.json.handbacks as Notice[];
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({
      tab: "t1",
      ended: "handback",
      url: `${site.a}/login?signed-in`,
      title: "Welcome ada",
      authentication_surface: "left",
    });
    expect(notices[0]?.newTabs).toMatchObject([{ origin: "managed_popup", title: "Second" }]);
    // Once only.
    expect((await env.run(["tabs"], { key: A })).json.handbacks).toBeUndefined();
    // The blocked agent is told too, in its own tab ids.
    const toldB = await env.run(["eval", "document.title"], { key: B });
    expect(toldB.json).toMatchObject({ ok: true, value: "Third" });
    expect((toldB.json.handbacks as Notice[])[0]).toMatchObject({
      tab: handed?.id,
      ended: "handback",
      title: "Welcome ada",
    });
    // A works again after observing afresh.
    const fresh = await env.run(["snapshot"], { key: A });
    expect(fresh.json).toMatchObject({ ok: true, title: "Welcome ada" });
    expect((await env.run(["status"], { key: A })).json.humanControl).toBeUndefined();
  });

  test("admission closes first: a command already running finishes, new ones are refused while draining", async () => {
    await env.run(["open", `${site.a}/second`, "--new"], { key: "agent-d" });
    const running = env.run(["wait", "--text", "never there", "--timeout", "2500"], { key: "agent-d" });
    await waitFor(
      async () =>
        ((await env.run(["commands", "--status", "dispatched"], { key: "agent-d" })).json.commands as unknown[])
          .length > 0,
      5_000,
      "wait running",
    );
    const handoff = env.run(["handoff", "--lease-seconds", "3600"], { key: "agent-d" });
    const refused = await waitFor(
      async () => {
        const r = await env.run(["eval", "1"], { key: "agent-d" });
        return r.json.code === "human_control" ? r : undefined;
      },
      5_000,
      "admission closed",
    );
    expect(refused?.json.context).toMatchObject({ phase: "draining" });
    try {
      // The admitted wait ran to its own deadline, not cut by the handoff (wait_timeout, or
      // command_expired when a loaded machine makes it miss its own margin); only then control
      // turned human.
      const waited = (await running).json;
      expect(waited.ok).toBe(false);
      expect(["wait_timeout", "command_expired"]).toContain(String(waited.code));
      expect((await handoff).json).toMatchObject({ ok: true, control: "human" });
    } finally {
      await handoff;
      expect((await env.run(["handback"], { key: "agent-d" })).json).toMatchObject({
        ok: true,
        tab: expect.any(String),
      });
    }
  });

  test("lease expiry hands the tab back by itself; --wait returns the summary", async () => {
    await quick.run(["open", `${site.a}/third`, "--new"], { key: "agent-e" });
    const started = Date.now();
    const r = await quick.run(["handoff", "--lease-seconds", "60", "--wait"], { key: "agent-e" });
    expect(r.json).toMatchObject({ ok: true, control: "automation" });
    expect((r.json.handbacks as Notice[])[0]).toMatchObject({ ended: "lease_ended" });
    expect(Date.now() - started).toBeGreaterThanOrEqual(600);
    expect((await quick.run(["eval", "document.title"], { key: "agent-e" })).json).toMatchObject({
      ok: true,
      value: "Third",
    });
  });

  test("close --all leaves a handed-off tab open; disconnect ends the handoff first and tells the blocked", async () => {
    expect((await env.run(["open", `${site.a}/third`, "--new"], { key: "agent-x" })).json).toMatchObject({
      ok: true,
      tab: "t1",
    });
    await env.run(["handoff", "--lease-seconds", "3600"], { key: "agent-x" });
    const seen = (await env.run(["tabs"], { key: "agent-y" })).json.tabs as {
      id: string;
      title: string;
      control: string;
    }[];
    const theirs = seen.find((t) => t.control === "human" && t.title === "Third");
    expect((await env.run(["tab", theirs?.id ?? ""], { key: "agent-y" })).json).toMatchObject({
      code: "human_control",
    });
    expect((await env.run(["close", "--all"], { key: "agent-x" })).json).toMatchObject({ ok: true, closed: [] });
    expect((await env.run(["disconnect"], { key: "agent-x" })).json).toMatchObject({ ok: true, closedTabs: 1 });
    const told = await env.run(["tabs"], { key: "agent-y" });
    expect((told.json.handbacks as Notice[])[0]).toMatchObject({ tab: theirs?.id, ended: "agent_released" });
    expect((told.json.tabs as { id: string }[]).some((t) => t.id === theirs?.id)).toBe(false);
  });

  test("a viewer link not opened in time has expired", async () => {
    await quick.run(["open", `${site.a}/third`, "--new"], { key: "agent-v" });
    const view = await quick.run(["view"], { key: "agent-v" });
    expect(view.json).toMatchObject({ ok: true, tab: "t1" });
    // Ten minutes, 6 s on this host: the condition is the clock itself.
    const expiresAt = Date.parse(String(view.json.expiresAt));
    expect(expiresAt - Date.now()).toBeLessThanOrEqual(6_000);
    await waitFor(() => Date.now() > expiresAt, 10_000, "link expiry");
    const res = await fetch(String(view.json.url));
    expect(res.status).toBe(403);
    expect(res.headers.get("cache-control")).toBe("no-store");
  });

  test("on a terminal, --wait shows progress on stderr and prints the summary as text", async () => {
    await quick.run(["open", `${site.a}/third`, "--new"], { key: "agent-t" });
    // script(1) gives bp a pseudo-terminal, as a person's shell would.
    const proc = Bun.spawn(["script", "-qec", `${BP} handoff --lease-seconds 60 --wait`, "/dev/null"], {
      env: { ...quick.env, BROWSER_PILOT_CLIENT_KEY: "agent-t" },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    expect(code).toBe(0);
    expect(out).toContain("bp: waiting for the person to hand the tab back");
    expect(out).toContain("is back under automation");
    expect(out).toContain("handback: t1 (lease_ended)");
  });

  test("the person's requests stay out of the agent's request journal; the agent's own are in it", async () => {
    const K = "agent-n";
    expect((await env.run(["open", `${site.a}/third?journal`, "--new"], { key: K })).json).toMatchObject({ ok: true });
    expect(
      (
        await env.run(["eval", "fetch('/agent-post', {method:'POST', body:'agent-body'}).then(r => r.status)"], {
          key: K,
        })
      ).json,
    ).toMatchObject({ ok: true });
    await waitFor(
      async () => JSON.stringify((await env.run(["net", "--method", "POST"], { key: K })).json).includes("/agent-post"),
      10_000,
      "agent request journaled",
    );
    expect((await env.run(["handoff"], { key: K })).json).toMatchObject({ ok: true, control: "human" });
    const s = await personTab("third?journal");
    expect(
      await personEval(s, "fetch('/person-login', {method:'POST', body:'pw=hunter2'}).then(r => r.status)"),
    ).toBeNumber();
    expect((await env.run(["handback"], { key: K })).json.ok).toBe(true);
    // After the handback the agent's requests are journaled again.
    await env.run(["eval", "fetch('/agent-after', {method:'POST', body:'x'}).then(r => r.status)"], { key: K });
    const after = await waitFor(
      async () => {
        const r = await env.run(["net", "--method", "POST"], { key: K });
        return JSON.stringify(r.json).includes("/agent-after") ? JSON.stringify(r.json) : undefined;
      },
      10_000,
      "journal after handback",
    );
    expect(after).toContain("/agent-post");
    expect(after).not.toContain("/person-login");
  });

  test("renew extends, never shortens; out-of-range leases are refused without change", async () => {
    await env.run(["open", `${site.a}/third`, "--new"], { key: "agent-r" });
    const h = await env.run(["handoff", "--lease-seconds", "600"], { key: "agent-r" });
    const first = Date.parse(String(h.json.until));
    for (const bad of ["59", "3601", "1.5", "0"]) {
      const r = await env.run(["handoff", "--renew", "--lease-seconds", bad], { key: "agent-r" });
      expect(r.json).toMatchObject({ ok: false, code: "invalid_argument", context: { field: "lease-seconds" } });
    }
    const shorter = await env.run(["handoff", "--renew", "--lease-seconds", "60"], { key: "agent-r" });
    expect(Date.parse(String(shorter.json.until))).toBe(first);
    const longer = await env.run(["handoff", "--renew", "--lease-seconds", "3600"], { key: "agent-r" });
    expect(Date.parse(String(longer.json.until))).toBeGreaterThan(first);
    const listed = (await env.run(["status"], { key: "agent-r" })).json.humanControl as {
      until: string;
      yours?: boolean;
    }[];
    expect(listed.filter((h) => h.yours)).toMatchObject([{ until: longer.json.until }]);
    // A second handoff of the same tab is not a renew.
    expect((await env.run(["handoff"], { key: "agent-r" })).json).toMatchObject({ ok: false, code: "human_control" });
    expect((await env.run(["handback"], { key: "agent-r" })).json).toMatchObject({ ok: true });
    expect((await env.run(["handoff", "--renew"], { key: "agent-r" })).json).toMatchObject({
      ok: false,
      code: "invalid_argument",
      context: { reason: "not_under_human_control" },
    });
  });
});
