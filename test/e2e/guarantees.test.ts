/**
 * Guarantees a fresh-eyes review found broken, each with the test that would have caught it.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CdpConnection } from "../../src/cdp/connection.ts";
import { attachToTarget } from "../../src/cdp/session.ts";
import { connectWebSocket } from "../../src/cdp/transport.ts";
import { requireChromium } from "../support/chromium.ts";
import { alive, browsersUnder, envPool, waitFor, type BpEnv } from "../support/bp.ts";
import { startFixtureServer } from "../support/fixture-server.ts";
import { listPageTargets, openUserTab } from "../support/user-browser.ts";

requireChromium();
const site = startFixtureServer();
const { newEnv: launched, cleanupAll } = envPool();
afterAll(async () => {
  await cleanupAll();
  site.stop();
});

/** The launched browser's debugging port, as a person's own tooling would find it. */
function portOf(env: BpEnv): number {
  return Number(readFileSync(join(env.home, "profiles", "default", "DevToolsActivePort"), "utf8").split("\n")[0]);
}

describe("browser-internal pages", () => {
  test("agents cannot open chrome:// or other internal pages", async () => {
    const env = launched();
    expect((await env.run(["launch", "--headless"])).json.ok).toBe(true);
    for (const url of [
      "chrome://settings",
      "chrome-extension://abc/x.html",
      "devtools://devtools/x",
      "view-source:https://x.test/",
    ]) {
      const r = await env.run(["open", url, "--new"]);
      expect(r.json).toMatchObject({ ok: false, code: "invalid_argument", context: { field: "url" } });
    }
  });
});

describe("the person's tabs in a browser Browser Pilot launched", () => {
  test("stopping the broker leaves the browser running while the person has a tab in it", async () => {
    const env = launched();
    await env.run(["launch", "--headless"]);
    await env.run(["open", `${site.a}/`, "--new"]);
    const person = await openUserTab(portOf(env), `${site.a}/second`);
    const [chromium] = browsersUnder(env.home);
    expect((await env.run(["disconnect"])).json).toMatchObject({ ok: true, brokerStopped: true });
    await waitFor(() => env.brokerPid() === undefined, 10_000, "broker exit");
    await Bun.sleep(500);
    expect(alive(chromium ?? 0)).toBe(true);
    const left = await listPageTargets(portOf(env));
    expect(left.map((t) => t.id)).toContain(person.id);
    expect(left.some((t) => t.title === "Home")).toBe(false);
  });

  test("the initial blank tab, once the person uses it, is never handed to an agent", async () => {
    const env = launched();
    await env.run(["launch", "--headless"]);
    const port = portOf(env);
    const [blank] = await listPageTargets(port);
    // The person navigates the launched browser's first tab themselves.
    const version = (await (await fetch(`http://127.0.0.1:${port}/json/version`)).json()) as {
      webSocketDebuggerUrl: string;
    };
    const conn = new CdpConnection(await connectWebSocket(version.webSocketDebuggerUrl));
    const s = await attachToTarget(conn, blank?.id ?? "");
    await s.send("Page.navigate", { url: `${site.a}/third` });
    await waitFor(
      async () => (await listPageTargets(port)).some((t) => t.title === "Third"),
      10_000,
      "person's navigation",
    );
    conn.close();
    const tabs = (await env.run(["tabs"], { key: "agent-b" })).json.tabs as { origin: string; title: string }[];
    expect(tabs.find((t) => t.title === "Third")?.origin).toBe("user_tab");
    const opened = await env.run(["open", `${site.a}/`, "--new"], { key: "agent-b" });
    expect(opened.json.ok).toBe(true);
    const pages = await listPageTargets(port);
    expect(pages.find((t) => t.id === blank?.id)?.title).toBe("Third");
  });
});

describe("nothing is sent after the agent was answered", () => {
  test("a keyboard sequence stops at its deadline instead of typing on", async () => {
    const env = launched();
    await env.run(["launch", "--headless"]);
    await env.run([
      "open",
      `${site.a}/echo?html=${encodeURIComponent("<title>K</title><input id=i autofocus>")}`,
      "--new",
    ]);
    await env.run(["eval", "document.getElementById('i').focus()"]);
    const r = await env.run(["--timeout", "1500", "keyboard", "abcdefghij", "--delay", "400", "--submit"]);
    expect(r.json).toMatchObject({ ok: false, code: "unknown_outcome" });
    await Bun.sleep(3000);
    const typed = (await env.run(["eval", "document.getElementById('i').value.length"])).json.value as number;
    expect(typed).toBeLessThan(10);
  });

  test("a click queued behind a long command expires unsent (command_expired, not unknown_outcome)", async () => {
    const env = launched();
    await env.run(["launch", "--headless"]);
    await env.run([
      "open",
      `${site.a}/echo?html=${encodeURIComponent("<title>Q</title><button onclick='window.clicked=1'>Go</button>")}`,
      "--new",
    ]);
    await env.run(["snapshot"]);
    const long = env.run(["eval", "new Promise(r => setTimeout(r, 3000))"]);
    await Bun.sleep(300);
    const click = await env.run(["--timeout", "1000", "click", "1"]);
    expect(click.json).toMatchObject({ ok: false, code: "command_expired" });
    await long;
    expect((await env.run(["eval", "window.clicked === 1"])).json.value).toBe(false);
  });
});

describe("request ids", () => {
  test("a failure before dispatch is not replayed: the same request id runs once the page allows", async () => {
    const env = launched();
    await env.run(["launch", "--headless"]);
    await env.run([
      "open",
      `${site.a}/echo?html=${encodeURIComponent("<title>D</title><button onclick='window.n=(window.n||0)+1'>Go</button>")}`,
      "--new",
    ]);
    await env.run(["snapshot"]);
    const opened = await env.run(["eval", "setTimeout(() => alert('wait'), 0); 1"]);
    expect(opened.json.ok).toBe(true);
    // The click must find the dialog open: one sent before it opened would run, and its outcome be kept.
    await waitFor(
      async () => (((await env.run(["dialogs"])).json.dialogs as unknown[] | undefined)?.length ?? 0) > 0 || undefined,
      5000,
      "dialog",
    );
    const first = await env.run(["--request-id", "retry-1", "click", "1"]);
    expect(first.json.code).toBe("dialog_pending");
    const dialogId = (first.json.context as { dialog: string }).dialog;
    // Numbered per agent, as the docs show them: the first dialog this agent saw.
    expect(dialogId).toBe("d1");
    await env.run(["dialog", dialogId, "--accept"]);
    const second = await env.run(["--request-id", "retry-1", "click", "1"]);
    expect(second.json.ok).toBe(true);
    const third = await env.run(["--request-id", "retry-1", "click", "1"]);
    expect(third.stdout).toBe(second.stdout);
    expect((await env.run(["eval", "window.n"])).json.value).toBe(1);
  });
});

describe("secrets stay off the command line and out of errors", () => {
  test("text to type can come on stdin; a stray word is not echoed back", async () => {
    const env = launched();
    await env.run(["launch", "--headless"]);
    await env.run([
      "open",
      `${site.a}/echo?html=${encodeURIComponent("<title>P</title><input type=password id=p>")}`,
      "--new",
    ]);
    await env.run(["snapshot"]);
    const r = await env.run(["type", "1"], { stdin: "hunter2 with spaces\n" });
    expect(r.json).toMatchObject({ ok: true, evidence: { status: "verified", sensitive: true, afterLength: 19 } });
    expect(r.stdout).not.toContain("hunter2");
    const stray = await env.run(["tabs", "s3cret-word"]);
    expect(stray.json).toMatchObject({ ok: false, code: "invalid_argument", context: { field: "arguments" } });
    expect(stray.stdout).not.toContain("s3cret-word");
  });
});
