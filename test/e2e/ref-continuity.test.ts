/**
 * Ref numbering goes on within a tab after a handback and after a back/forward-cache restore:
 * the same elements get new numbers, so an old ref is stale_ref and never names anything again.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { makeBpEnv, type BpEnv } from "../support/bp.ts";
import { startFixtureServer } from "../support/fixture-server.ts";
import { startUserBrowser, type UserBrowser } from "../support/user-browser.ts";

const site = startFixtureServer({
  "/": "<!doctype html><title>One</title><button>Alpha</button><a href='/two'>Two</a>",
  "/two": "<!doctype html><title>Two</title><button>Beta</button>",
});
let user: UserBrowser;
let env: BpEnv;
const K = "agent-refs";

beforeAll(async () => {
  user = await startUserBrowser({ url: `${site.a}/` });
  env = makeBpEnv({ HOME: user.home });
  expect((await env.run(["connect", "--cdp-url", user.wsEndpoint])).json).toMatchObject({ ok: true });
});

afterAll(async () => {
  await env.cleanup();
  await user.stop();
  site.stop();
});

async function refsOf(): Promise<number[]> {
  const s = await env.run(["snapshot", "--json"], { key: K });
  expect(s.json).toMatchObject({ ok: true });
  const refs =
    JSON.stringify(s.json)
      .match(/"r":\d+/g)
      ?.map((m) => Number(m.slice(4))) ?? [];
  expect(refs.length).toBeGreaterThan(0);
  return refs;
}

test("after a handback the same elements get new numbers; the old ones are stale", async () => {
  expect((await env.run(["open", `${site.a}/`, "--new"], { key: K })).json).toMatchObject({ ok: true });
  const before = await refsOf();
  expect((await env.run(["handoff"], { key: K })).json).toMatchObject({ ok: true, control: "human" });
  expect((await env.run(["handback"], { key: K })).json).toMatchObject({ ok: true });
  const after = await refsOf();
  expect(Math.min(...after)).toBeGreaterThan(Math.max(...before));
  const old = await env.run(["click", String(before[0])], { key: K });
  expect(old.json).toMatchObject({ ok: false, code: "stale_ref", context: { reason: "human_control" } });
});

test("after a back/forward-cache restore the numbering goes on", async () => {
  expect((await env.run(["open", `${site.a}/?bf`], { key: K })).json).toMatchObject({ ok: true });
  const first = await refsOf();
  expect((await env.run(["open", `${site.a}/two`], { key: K })).json).toMatchObject({ ok: true });
  const second = await refsOf();
  expect((await env.run(["back"], { key: K })).json).toMatchObject({ ok: true });
  const restored = await refsOf();
  expect(Math.min(...restored)).toBeGreaterThan(Math.max(...first, ...second));
  const old = await env.run(["click", String(first[0])], { key: K });
  expect(old.json).toMatchObject({ ok: false, code: "stale_ref" });
});
