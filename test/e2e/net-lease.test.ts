/**
 * An agent whose lease runs out loses its network rules and credentials at once, also on a
 * tab that stays open (the person's), and another agent that takes the tab is untouched.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { readPortFile } from "../../src/discovery/index.ts";
import { makeBpEnv, waitFor } from "../support/bp.ts";
import { requireChromium } from "../support/chromium.ts";
import { startFixtureServer } from "../support/fixture-server.ts";
import { openUserTab } from "../support/user-browser.ts";

requireChromium();

const LEASE_MS = 4000;
const site = startFixtureServer();
const env = makeBpEnv({ BROWSER_PILOT_LEASE_MS: String(LEASE_MS) });

beforeAll(async () => {
  expect((await env.run(["launch", "--headless"])).json.ok).toBe(true);
});
afterAll(async () => {
  await env.cleanup();
  site.stop();
});

const settled = (key: string) =>
  waitFor(
    async () => (await env.run(["eval", "inflight === 0"], { key })).json.value === true,
    10_000,
    "the app's earlier fetches",
  );
const text = async (key: string) =>
  String((await env.run(["eval", "document.getElementById('out').textContent"], { key })).json.value);

test("rules stop applying when the lease expires", async () => {
  const port = await readPortFile(join(env.home, "profiles", "default"));
  if (!port) throw new Error("launched browser has no DevToolsActivePort");
  await openUserTab(port.port, `${site.a}/app?lease`);
  const find = async (key: string) =>
    ((await env.run(["tabs"], { key })).json.tabs as { id: string; url: string; control?: string }[]).find((t) =>
      t.url.includes("/app?lease"),
    );
  const mine = await waitFor(() => find("lease-a"), 10_000, "the person's tab");
  expect((await env.run(["tab", mine?.id ?? ""], { key: "lease-a" })).json.ok).toBe(true);
  expect((await env.run(["net", "block", "*/api/*"], { key: "lease-a" })).json).toMatchObject({
    ok: true,
    intercepting: 1,
  });
  await settled("lease-a");
  await env.run(["eval", "load(); true"], { key: "lease-a" });
  expect(
    await waitFor(
      async () => ((await text("lease-a")).startsWith("failed:") ? true : undefined),
      10_000,
      "blocked fetch",
    ),
  ).toBe(true);
  // lease-a goes quiet; lease-b watches until the tab is free again (each call renews only b).
  const freed = await waitFor(
    async () => {
      const t = await find("lease-b");
      return t && t.control === "available" ? t : undefined;
    },
    LEASE_MS * 4,
    "lease-a's lease to expire",
  );
  expect((await env.run(["tab", freed?.id ?? ""], { key: "lease-b" })).json.ok).toBe(true);
  await settled("lease-b");
  await env.run(["eval", "document.getElementById('out').textContent = 'loading'; load(); true"], { key: "lease-b" });
  expect(
    await waitFor(
      async () => {
        const t = await text("lease-b");
        return t !== "loading" ? t : undefined;
      },
      10_000,
      "the fetch after expiry",
    ),
  ).toBe("200:Grace:");
  // The expired key starts over: no rules.
  expect((await env.run(["net", "rules"], { key: "lease-a" })).json).toEqual({ ok: true, rules: [] });
});
