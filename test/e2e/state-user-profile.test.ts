/**
 * `bp state load` into a person's own browser overwrites their cookies for those sites, so it
 * asks for --into-user-profile; with it the state lands in their profile.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { makeBpEnv, waitFor, type BpEnv } from "../support/bp.ts";
import { requireChromium } from "../support/chromium.ts";
import { startFixtureServer } from "../support/fixture-server.ts";
import { listPageTargets, startUserBrowser, type UserBrowser } from "../support/user-browser.ts";
import { writeState } from "../../src/broker/state-files.ts";

requireChromium();

const site = startFixtureServer();
const KEY = "state-user-agent";
let user: UserBrowser;
let env: BpEnv;

beforeAll(async () => {
  user = await startUserBrowser({ url: `${site.a}/` });
  await waitFor(
    async () => (await listPageTargets(user.port)).some((t) => t.title === "Home"),
    10_000,
    "the person's page",
  );
  env = makeBpEnv({ HOME: "" });
  env.env.HOME = user.home;
});
afterAll(async () => {
  await env.cleanup();
  await user.stop();
  site.stop();
});

test("loading into the person's browser needs --into-user-profile, then puts the cookies there", async () => {
  const host = new URL(site.a).hostname;
  writeState(env.home, KEY, "login", {
    version: 1,
    savedAt: new Date().toISOString(),
    cookies: [{ name: "sid", value: "from-state", domain: host, path: "/", httpOnly: true }],
    localStorage: {},
  });
  const browsers = (await env.run(["status"], { key: KEY })).json.browsers as { id: string; state: string }[];
  const id = browsers.find((b) => b.state === "disconnected")?.id ?? "";
  expect((await env.run(["connect", "--browser", id], { key: KEY })).json.ok).toBe(true);
  expect((await env.run(["open", `${site.a}/second`, "--new"], { key: KEY })).json.ok).toBe(true);

  const refused = await env.run(["state", "load", "login"], { key: KEY });
  expect(refused.json).toMatchObject({ ok: false, code: "invalid_argument", context: { field: "into-user-profile" } });
  expect((await env.run(["cookies"], { key: KEY })).json.cookies).toEqual([]);

  const loaded = await env.run(["state", "load", "login", "--into-user-profile"], { key: KEY });
  expect(loaded.json).toEqual({ ok: true, cookies: 1, origins: [], items: 0 });
  const cookies = (await env.run(["cookies"], { key: KEY })).json.cookies as { name: string; httpOnly?: boolean }[];
  expect(cookies).toEqual([expect.objectContaining({ name: "sid", httpOnly: true })]);
});
