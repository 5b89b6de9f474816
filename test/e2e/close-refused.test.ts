/**
 * `close --all` when the browser refuses to close a tab: a hop in front of a real Chromium
 * answers that tab's `Target.closeTarget` with an error. The refused tab is not reported
 * closed and stays the agent's; the others close; a tab already gone counts as closed.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startCdpRecorder, type CdpRecorder } from "../support/cdp-recorder.ts";
import { requireChromium } from "../support/chromium.ts";
import { makeBpEnv } from "../support/bp.ts";
import { startFixtureServer } from "../support/fixture-server.ts";
import { listPageTargets, startUserBrowser, type UserBrowser } from "../support/user-browser.ts";

requireChromium();
const site = startFixtureServer({
  "/one": "<title>One</title>1",
  "/two": "<title>Two</title>2",
  "/three": "<title>Three</title>3",
});
const env = makeBpEnv();
let browser: UserBrowser;
let rec: CdpRecorder;

beforeAll(async () => {
  browser = await startUserBrowser();
  rec = startCdpRecorder(browser.wsEndpoint);
  expect((await env.run(["connect", "--cdp-url", rec.url])).json.ok).toBe(true);
});
afterAll(async () => {
  await env.cleanup();
  rec.stop();
  await browser.stop();
  site.stop();
});

type Tab = { id: string; title: string };

test("a tab the browser will not close is not reported closed and stays the agent's", async () => {
  for (const p of ["one", "two", "three"])
    expect((await env.run(["open", `${site.a}/${p}`, "--new"])).json.ok).toBe(true);
  const targets = await listPageTargets(browser.port);
  const two = targets.find((t) => t.title === "Two")?.id;
  const three = targets.find((t) => t.title === "Three")?.id;
  expect(two && three).toBeTruthy();
  rec.refuse((m, p) => m === "Target.closeTarget" && p.targetId === two, "Unable to close target");
  const tabs = (await env.run(["tabs"])).json.tabs as Tab[];
  const idOf = (title: string) => tabs.find((t) => t.title === title)?.id;

  const r = await env.run(["close", "--all"]);
  // remaining also counts the person's own tab of this browser.
  expect(r.json).toMatchObject({ ok: true, notClosed: [idOf("Two")], remaining: tabs.length - 2 });
  expect((r.json.closed as string[]).sort()).toEqual([idOf("One"), idOf("Three")].sort() as string[]);
  const left = (await env.run(["tabs"])).json.tabs as Tab[];
  expect(left.map((t) => t.title)).toContain("Two");
  expect(left.map((t) => t.title)).not.toContain("One");
  expect(left.map((t) => t.title)).not.toContain("Three");
  expect((await listPageTargets(browser.port)).some((t) => t.id === two)).toBe(true);

  // Refused again, with nothing else to close: the failure itself, never an empty success.
  const again = await env.run(["close", "--all"]);
  expect(again.json.ok).toBe(false);
  expect(((await env.run(["tabs"])).json.tabs as Tab[]).map((t) => t.title)).toContain("Two");
});

test("a tab that is already gone when closed counts as closed", async () => {
  rec.refuse((m) => m === "Target.closeTarget", "No target with given id found");
  const before = ((await env.run(["tabs"])).json.tabs as Tab[]).length;
  const r = await env.run(["close", "--all"]);
  expect(r.json).toMatchObject({ ok: true, remaining: before - 1 });
  expect(r.json.closed).toHaveLength(1);
  expect(r.json).not.toHaveProperty("notClosed");
});
