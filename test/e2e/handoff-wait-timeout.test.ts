/**
 * `bp handoff --wait --timeout N` against real Chromium: a script's deadline bounds the whole
 * wait. Past it the answer is wait_timeout (retryable) and the handoff is still in force.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { makeBpEnv, type BpEnv } from "../support/bp.ts";
import { PAGES, startFixtureServer } from "../support/fixture-server.ts";
import { startUserBrowser, type UserBrowser } from "../support/user-browser.ts";

const site = startFixtureServer(PAGES);
let user: UserBrowser;
let env: BpEnv;
const A = "agent-wait";

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

describe("handoff --wait", () => {
  test("--timeout bounds the wait: wait_timeout, retryable, the handoff stays in force", async () => {
    expect((await env.run(["open", `${site.a}/second`, "--new"], { key: A })).json).toMatchObject({ ok: true });
    // The lease (600 s) outlives the deadline by far: only --timeout can end this wait.
    const waited = await env.run(
      ["handoff", "--message", "Please sign in", "--lease-seconds", "600", "--wait", "--timeout", "1500"],
      { key: A },
    );
    expect(waited.json).toMatchObject({
      ok: false,
      code: "wait_timeout",
      retryable: true,
      context: { control: "human" },
    });
    expect(String(waited.json.error)).toContain("the handoff stays in force");
    expect(waited.code).not.toBe(0);
    // Still handed off: the agent is refused, status names it, and a handback ends it.
    expect((await env.run(["eval", "1"], { key: A })).json).toMatchObject({ ok: false, code: "human_control" });
    expect((await env.run(["status"], { key: A })).json.humanControl).toBeDefined();
    expect((await env.run(["handback"], { key: A })).json).toMatchObject({ ok: true });
    expect((await env.run(["eval", "1"], { key: A })).json).toMatchObject({ ok: true, value: 1 });
  });
});
