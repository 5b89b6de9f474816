/**
 * bp against a real browserless (npm @browserless.io/browserless, run on loopback with the
 * system Chromium; see test/support/browserless.ts): connect, actions, a download, two agents, a wrong
 * token, a queue-full refusal, a server-side kill, and the token in no output or log. It never
 * skips: a browserless that cannot be installed or started fails the test.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { envPool, refNamed, waitFor, type BpResult } from "../support/bp.ts";
import { requireChromium } from "../support/chromium.ts";
import { startBrowserless, type Browserless } from "../support/browserless.ts";
import { startFixtureServer } from "../support/fixture-server.ts";

requireChromium();
const site = startFixtureServer();
const { newEnv, cleanupAll } = envPool();
const TOKEN = "bl-token-5e4d3c2b1a";
let bl: Browserless;

beforeAll(async () => {
  bl = await startBrowserless({ token: TOKEN, concurrent: 1, queued: 0 });
}, 420_000);

afterAll(async () => {
  await cleanupAll();
  await bl?.stop();
  site.stop();
});

const form = `${site.a}/echo?html=${encodeURIComponent("<title>Form</title><input aria-label=\"Name\"><button onclick=\"document.title='Sent '+document.querySelector('input').value\">Send</button>")}`;

describe("browserless", () => {
  test("connect, actions, two agents, wrong token, queue full, a server-side kill; the token in no output", async () => {
    const env = newEnv();
    const other = newEnv();
    const outs: BpResult[] = [];
    let calls = 0;
    const run = async (args: string[], key = "agent-a", e = env) => {
      calls++;
      // Files a command writes (the screenshot) land in the test's directory, not the clone.
      const r = await e.run(args, { key, cwd: join(e.home, "..") });
      outs.push(r);
      return r;
    };

    expect((await run(["connect", "--cdp-url", bl.url().replace(TOKEN, "wrong-token-000")])).json).toMatchObject({
      ok: false,
      code: "browser_not_authorized",
      retryable: false,
      context: { status: 401 },
    });
    // browserless starts its browser before it answers the upgrade: the default limit covers it.
    expect((await run(["connect", "--cdp-url", bl.url('&launch={"defaultViewport":null}')])).json).toMatchObject({
      ok: true,
      browser: { source: "remote" },
    });
    expect((await run(["open", form, "--new"])).json).toMatchObject({ ok: true });
    const name = await refNamed((a) => run(a), "Name");
    expect((await run(["type", name, "Ada"])).json).toMatchObject({ ok: true });
    expect((await run(["click", await refNamed((a) => run(a), "Send")])).json).toMatchObject({ ok: true });
    expect((await run(["eval", "document.title"])).json).toMatchObject({ ok: true, value: "Sent Ada" });
    // With defaultViewport null the page is its window, as in a browser bp launches; without
    // it browserless emulates 800x600 on every page (wider than the headless window itself).
    expect((await run(["eval", "innerWidth === outerWidth"])).json).toMatchObject({ ok: true, value: true });
    expect((await run(["screenshot"])).json).toMatchObject({ ok: true });
    // A download lands on browserless's disk; bp reads its bytes through CDP into its own store.
    expect((await run(["open", `${site.a}/files`])).json).toMatchObject({ ok: true });
    expect((await run(["click", await refNamed((a) => run(a), "Report")])).json).toMatchObject({ ok: true });
    expect((await run(["wait", "--download", "--timeout", "30000"])).json).toMatchObject({
      ok: true,
      matched: { download: { fileName: "report.csv", state: "completed", sizeBytes: 14 } },
    });
    expect((await run(["download", "dl1", "bl-report.csv", "--force"])).json).toMatchObject({ ok: true });
    expect(readFileSync(join(env.home, "..", "bl-report.csv"), "utf8")).toBe("id,name\n1,Ada\n");

    // A second agent shares the session; the first one's tab is not its to drive.
    expect(
      (await run(["connect", "--cdp-url", bl.url('&launch={"defaultViewport":null}')], "agent-b")).json,
    ).toMatchObject({ ok: true, reused: true });
    expect((await run(["open", `${site.a}/`, "--new"], "agent-b")).json).toMatchObject({ ok: true });
    expect((await run(["snapshot"], "agent-b")).json).toMatchObject({ ok: true });
    const tabs = (await run(["tabs"], "agent-b")).json.tabs as { id: string; url: string }[];
    const mine = tabs.find((t) => t.url.includes("/echo"));
    if (mine) expect((await run(["tab", mine.id], "agent-b")).json).toMatchObject({ ok: false, code: "target_busy" });

    // One browser at a time (CONCURRENT=1, QUEUED=0): another installation is refused, retryably.
    expect((await run(["connect", "--cdp-url", bl.url()], "agent-c", other)).json).toMatchObject({
      ok: false,
      code: "browser_busy",
      retryable: true,
      context: { status: 429 },
    });

    const sessions = bl.sessionsStarted();
    expect(await bl.killAll()).toBeLessThan(300);
    const lost = await waitFor(
      async () => {
        const r = await run(["snapshot"]);
        return r.json.code === "browser_disconnected" ? r : undefined;
      },
      20_000,
      "the kill to show",
    );
    if (!lost) throw new Error("waitFor returned nothing");
    expect(lost.json).toMatchObject({
      context: { reason: "remote_session_ended" },
      remediation: { code: "reconnect_remote" },
    });
    expect(String(lost.json.context?.endpoint)).toContain("token=***");
    expect((await run(["status"])).json.recovery).toMatchObject({ action: "bp connect --reconnect" });
    for (const c of (await run(["commands"])).json.commands as { id: string }[]) await run(["command", c.id]);
    // Letting go after the kill starts no new (billed) browser to clean up.
    expect((await run(["disconnect"], "agent-b")).json).toMatchObject({ ok: true });
    expect((await run(["disconnect"])).json).toMatchObject({ ok: true });
    await Bun.sleep(1000);
    expect(bl.sessionsStarted()).toBe(sessions);

    const failures = outs.filter((o) => o.json.ok !== true).length;
    const logs = [env, other].map((e) => {
      try {
        return readFileSync(join(e.home, "broker.log"), "utf8");
      } catch {
        return "";
      }
    });
    const leaked =
      outs.filter((o) => o.stdout.includes(TOKEN) || o.stderr.includes(TOKEN)).length +
      logs.filter((l) => l.includes(TOKEN)).length;
    console.log(
      `browserless: ${calls} calls, ${failures} failed replies (expected ones included), token found ${leaked} times`,
    );
    expect(leaked).toBe(0);
  }, 240_000);
});
