/**
 * A password inside a URL (`http://user:pass@host/`): the browser is sent the URL without it
 * and the server's challenge is answered with it, as 'bp auth' does, so it never lands in the
 * launched profile's files (session history), nor in any reply.
 */
import { afterAll, expect, test } from "bun:test";
import { browsersUnder, makeBpEnv, waitFor } from "../support/bp.ts";
import { requireChromium } from "../support/chromium.ts";
import { AUTH_PASSWORD, AUTH_USER, startFixtureServer } from "../support/fixture-server.ts";
import { filesContaining } from "../support/files-containing.ts";

requireChromium();

const site = startFixtureServer();
const env = makeBpEnv();
afterAll(async () => {
  await env.cleanup();
  site.stop();
});

test("open with user:password@ answers the challenge with them; the password reaches no reply and no profile file", async () => {
  expect((await env.run(["launch", "--headless"])).json.ok).toBe(true);
  const url = new URL(`${site.a}/basic`);
  url.username = AUTH_USER;
  url.password = AUTH_PASSWORD;
  const opened = await env.run(["open", url.href, "--new"]);
  expect(opened.json).toMatchObject({ ok: true, title: "Members", url: `${site.a}/basic` });
  const href = await env.run(["eval", "location.href"]);
  expect(href.json).toMatchObject({ ok: true, value: `${site.a}/basic` });
  // A history step and a reload re-send it: the session's own history must not hold it either.
  expect((await env.run(["open", `${site.a}/`])).json.ok).toBe(true);
  expect((await env.run(["back"])).json).toMatchObject({ ok: true, title: "Members" });
  for (const r of [opened, href]) expect(r.stdout).not.toContain(AUTH_PASSWORD);
  const launched = browsersUnder(env.home);
  expect(launched.length).toBeGreaterThan(0);
  expect((await env.run(["disconnect"])).json.ok).toBe(true);
  await waitFor(() => browsersUnder(env.home).length === 0, 15_000, "the launched browser to exit");
  expect(filesContaining(env.home, AUTH_PASSWORD)).toEqual([]);
}, 90_000);
