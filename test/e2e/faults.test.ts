/**
 * Defects a fault probe found in commands against a real browser, each reproduced here:
 * a navigation stopped early, dialogs opened by eval, commands with no browser, page text
 * that breaks line readers, values JSON cannot carry.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { requireChromium } from "../support/chromium.ts";
import { alive, BP, browsersUnder, killAndWait, makeBpEnv, waitFor } from "../support/bp.ts";
import { PAGES, startFixtureServer } from "../support/fixture-server.ts";

requireChromium();
const env = makeBpEnv();
const site = startFixtureServer({
  ...PAGES,
  "/slow": () =>
    new Promise<Response>((r) =>
      setTimeout(() => r(new Response("<title>Slow</title>slow", { headers: { "content-type": "text/html" } })), 1500),
    ) as unknown as Response,
  "/separators": "<!doctype html><title>one\u2028two\u2029three\u0085four</title><p>x</p>",
});
let brokerPid = 0;

beforeAll(async () => {
  expect((await env.run(["launch", "--headless"])).json.ok).toBe(true);
  expect((await env.run(["open", `${site.a}/`, "--new"])).json.ok).toBe(true);
  brokerPid = env.brokerPid() ?? 0;
});

afterAll(async () => {
  const pids = browsersUnder(env.home);
  await env.cleanup();
  for (const pid of pids) await killAndWait(pid, "SIGKILL");
  site.stop();
});

function spawnBp(args: string[]) {
  const proc = Bun.spawn([BP, ...args], { env: env.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const out = new Response(proc.stdout).text();
  return {
    proc,
    result: async () => ({
      code: await proc.exited,
      json: JSON.parse((await out).trim().split("\n").at(-1) ?? "{}") as { ok: boolean; code?: string },
    }),
  };
}

describe("a navigation stopped early", () => {
  test("short --timeout, bp cancel and SIGINT during open, reload and back leave the broker running", async () => {
    await env.run(["open", `${site.a}/slow`]);
    for (let i = 0; i < 3; i++) {
      for (const args of [
        ["reload", "--timeout", "2"],
        ["open", `${site.a}/slow`, "--timeout", "2"],
        ["back", "--timeout", "2"],
        ["reload", "--timeout", "300"],
      ]) {
        const r = await env.run(args);
        expect(r.json.ok === true || ["unknown_outcome", "command_expired"].includes(r.json.code ?? "")).toBe(true);
        expect(alive(brokerPid)).toBe(true);
      }
      // The slow page answers after 1.5 s: each navigation below is still in flight when it
      // is interrupted (the reload reloads the slow page).
      expect((await env.run(["open", `${site.a}/slow?n=${i}`])).json.ok).toBe(true);
      for (const [args, how] of [
        [["reload"], "SIGINT"],
        [["open", `${site.a}/slow?s=${i}`], "SIGINT"],
        [["open", `${site.a}/slow?c=${i}`], "cancel"],
      ] as const) {
        const run = spawnBp([...args]);
        const id = await waitFor(
          async () => {
            const list = (await env.run(["commands", "--status", "dispatched"])).json.commands as {
              id: string;
              method: string;
            }[];
            return list.find((c) => c.method === args[0])?.id;
          },
          5000,
          `${args[0]} dispatched`,
        );
        if (how === "SIGINT") run.proc.kill("SIGINT");
        else await env.run(["cancel", id ?? ""]);
        const { code } = await run.result();
        if (how === "SIGINT") expect(code).toBe(130);
        expect(alive(brokerPid)).toBe(true);
      }
    }
    expect(env.brokerPid()).toBe(brokerPid);
    expect((await env.run(["eval", "1+1"])).json).toMatchObject({ ok: true, value: 2 });
  });
});

describe("eval", () => {
  test("an expression that opens an alert answers at once, naming the dialog", async () => {
    await env.run(["open", `${site.a}/`]);
    const started = Date.now();
    const r = await env.run(["eval", "alert('hi'); 5"]);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(r.json).toMatchObject({ ok: true, dialog: { type: "alert", message: "hi" } });
    expect(String(r.json.hint)).toContain("an alert dialog");
    const id = (r.json.dialog as { id: string }).id;
    expect((await env.run(["eval", "1"])).json).toMatchObject({ ok: false, code: "dialog_pending" });
    expect(String((await env.run(["eval", "1"])).json.error)).toContain("an alert dialog");
    expect((await env.run(["dialog", id, "--accept"])).json.ok).toBe(true);
    expect((await env.run(["eval", "2"])).json).toMatchObject({ ok: true, value: 2 });
  });

  test("window is a bounded description, not internal_error", async () => {
    const r = await env.run(["eval", "window"]);
    expect(r.json).toMatchObject({ ok: true, value: "Window", truncated: true });
    expect(r.stdout.length).toBeLessThan(1000);
  });
});

describe("JSON output", () => {
  test("U+2028, U+2029 and U+0085 from the page are escaped: one line per reply", async () => {
    await env.run(["open", `${site.a}/separators`]);
    for (const args of [["tabs"], ["status"], ["eval", "document.title"], ["read"]]) {
      const r = await env.run(args);
      expect(r.json.ok).toBe(true);
      expect(r.stdout).not.toMatch(/[\u2028\u2029\u0085]/);
      // Python's str.splitlines() splits on these: the reply must stay one line.
      expect(r.stdout.replace(/\n$/, "").split(/[\n\r\u000b\u000c\u001c-\u001e\u0085\u2028\u2029]/)).toHaveLength(1);
    }
    expect((await env.run(["eval", "document.title"])).json.value).toBe("one\u2028two\u2029three\u0085four");
  });
});

describe("no browser connected", () => {
  test("open, close and dialog answer browser_disconnected with the connect remediation", async () => {
    const fresh = makeBpEnv();
    try {
      for (const args of [
        ["open", `${site.a}/`],
        ["open", `${site.a}/`, "--new"],
        ["close"],
        ["dialog", "d123456789", "--accept"],
        ["eval", "1"],
      ]) {
        const r = await fresh.run(args);
        expect(r.json).toMatchObject({
          ok: false,
          code: "browser_disconnected",
          remediation: { code: "connect_browser" },
        });
      }
    } finally {
      await fresh.cleanup();
    }
  });
});

describe("output files", () => {
  test("an explicit name that exists, even read-only, is refused unless --force", async () => {
    await env.run(["open", `${site.a}/`]);
    const path = join(env.home, "..", "keep.png");
    writeFileSync(path, "the person's file");
    chmodSync(path, 0o444);
    const r = await env.run(["screenshot", path]);
    expect(r.json).toMatchObject({ ok: false, code: "invalid_argument", context: { field: "file", reason: "exists" } });
    expect(readFileSync(path, "utf8")).toBe("the person's file");
    expect((await env.run(["pdf", path])).json).toMatchObject({
      ok: false,
      code: "invalid_argument",
      context: { field: "file" },
    });
    const forced = await env.run(["screenshot", path, "--force"]);
    // A screenshot is always a PNG: the reply names no mimeType.
    expect(forced.json).toMatchObject({ ok: true, file: path, width: expect.any(Number) });
    expect(forced.json).not.toHaveProperty("mimeType");
    expect(readFileSync(path).subarray(1, 4).toString()).toBe("PNG");
  });
});
