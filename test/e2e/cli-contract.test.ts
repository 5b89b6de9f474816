import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { VERSION } from "../../src/shared/version.ts";
import { liveLock, makeFakeProfile } from "../support/fake-profiles.ts";
import { BP, makeBpEnv } from "../support/bp.ts";

const env = makeBpEnv();
/** The platform name the build gives this machine's executable. */
const HOST = `${process.platform === "win32" ? "windows" : process.platform}-${process.arch}`;
afterAll(() => env.cleanup());

describe("CLI contract (no browser needed)", () => {
  test("top-level help lists every command in under 4 KB and hides the internal roles", async () => {
    const proc = Bun.spawnSync([BP, "--help"]);
    const text = proc.stdout.toString();
    expect(proc.exitCode).toBe(0);
    expect(text.length).toBeLessThanOrEqual(4096);
    for (const cmd of [
      "status",
      "browsers",
      "connect",
      "launch",
      "disconnect",
      "tabs",
      "tab release",
      "open",
      "close",
      "back",
      "forward",
      "reload",
      "eval",
      "schema",
    ]) {
      expect(text).toContain(`  ${cmd}`);
    }
    // A family of subcommands takes one line.
    expect(text).toContain("  state save|load|list|remove  ");
    expect(text).not.toContain("browser-pilot-internal");
    expect(text).not.toContain("janitor");
  });

  test("command help shows arguments and an example", () => {
    const text = Bun.spawnSync([BP, "open", "--help"]).stdout.toString();
    expect(text).toContain("<url>");
    expect(text).toContain("--new");
    expect(text).toContain("Example: bp open");
  });

  test("--version prints the version, then the platform the executable was built for", () => {
    expect(Bun.spawnSync([BP, "--version"]).stdout.toString().trim()).toBe(`${VERSION} (${HOST})`);
  });

  const bad: [string[], string][] = [
    [["tabs", "--bogus"], "bogus"],
    [["--timeout", "abc", "tabs"], "timeout"],
    [["--timeout", "0", "tabs"], "timeout"],
    [["--timeout", "300001", "tabs"], "timeout"],
    [["--client-key", "x", "tabs"], "client-key"],
    [["--request-id", "-bad", "tabs"], "request-id"],
    [["tab", "7"], "id"],
    [["tab"], "id"],
    [["open"], "url"],
    [["tabs", "extra"], "arguments"],
    [["nosuchcommand"], "command"],
    [["launch", "--profile", "../escape"], "profile"],
    [["schema", "nosuch"], "command"],
  ];
  for (const [args, field] of bad) {
    test(`bp ${args.join(" ")} → invalid_argument on '${field}'`, async () => {
      const r = await env.run(args);
      expect(r.code).toBe(1);
      expect(r.json.ok).toBe(false);
      expect(r.json.code).toBe("invalid_argument");
      expect(r.json.context?.field).toBe(field);
      expect(r.stderr).toBe("");
      expect(r.stdout).not.toContain("    at ");
    });
  }

  test("a bad client key in the environment is refused too", async () => {
    const r = await env.run(["tabs"], { env: { BROWSER_PILOT_CLIENT_KEY: "no spaces allowed" } });
    expect(r.json.code).toBe("invalid_argument");
    expect(r.json.context?.field).toBe("clientKey");
    // The message says what a key may be, so an agent that picked "qa" learns it is too short.
    expect(String(r.json.error)).toContain("3-128 characters");
  });

  test("a relative BROWSER_PILOT_OUTPUT_DIR is refused", async () => {
    const r = await env.run(["tabs"], { env: { BROWSER_PILOT_OUTPUT_DIR: "relative/dir" } });
    expect(r.json.code).toBe("invalid_argument");
    expect(r.json.context?.field).toBe("outputDir");
  });

  test("a .env or bunfig.toml in the working directory configures nothing", async () => {
    // Bun's compiled programs load both from the working directory unless the build says not to.
    const dir = mkdtempSync(join(tmpdir(), "bp-cwd-"));
    try {
      writeFileSync(join(dir, ".env"), "BROWSER_PILOT_TAB_ACCESS=bogus\nBROWSER_PILOT_CLIENT_KEY=not a key\n");
      writeFileSync(join(dir, "bunfig.toml"), "[[[ not toml\n");
      const r = await env.run(["status"], { cwd: dir });
      expect(r.stderr).toBe("");
      expect(r.json.ok).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("eval with an empty expression from stdin is invalid", async () => {
    const r = await env.run(["eval"], { stdin: "   \n" });
    expect(r.json.code).toBe("invalid_argument");
    expect(r.json.context?.field).toBe("expression");
  });

  test("bp schema gives JSON Schema of arguments and result", async () => {
    const r = await env.run(["schema", "tab", "release"]);
    expect(r.json.ok).toBe(true);
    expect(r.json.command).toBe("tab release");
    const args = r.json.args as { properties: Record<string, { pattern?: string }> };
    expect(args.properties.id?.pattern).toBe("^t[1-9][0-9]{0,8}$");
    const open = await env.run(["schema", "open"]);
    // Lean: a new tab's id is there only when one was made, so it is optional; the title is always there.
    expect((open.json.result as { required: string[] }).required).toEqual(["ok", "title"]);
    expect(Object.keys((open.json.result as { properties: Record<string, unknown> }).properties)).toContain("tab");
  });

  test("status and browsers are passive: no broker, no locator", async () => {
    const s = await env.run(["status"]);
    expect(s.json.ok).toBe(true);
    expect(s.json.service).toEqual({ state: "stopped", version: VERSION, target: HOST });
    expect((s.json.recovery as { required: boolean }).required).toBe(true);
    const b = await env.run(["browsers"]);
    expect(b.json.ok).toBe(true);
    expect(Array.isArray(b.json.browsers)).toBe(true);
    expect(existsSync(join(env.home, "broker-locator.json"))).toBe(false);
    expect(env.brokerPid()).toBeUndefined();
  });

  test("browsers and the no-broker status are lean: no executable path, no id repeated in a remediation, one recovery action", async () => {
    // A fake home: Chrome installed but closed, Chromium running with remote debugging on (this
    // process holds its lock; nothing listens on the port, and passive discovery never dials it).
    const home = mkdtempSync(join(tmpdir(), "bp-browsers-"));
    try {
      await makeFakeProfile(join(home, ".config/google-chrome"));
      await makeFakeProfile(join(home, ".config/chromium"), {
        portFile: "41234\n/devtools/browser/x\n",
        lock: liveLock(),
      });
      const opts = { env: { HOME: home, XDG_CONFIG_HOME: "" } };
      const b = await env.run(["browsers"], opts);
      const list = b.json.browsers as Record<string, unknown>[];
      const byProduct = (p: string) =>
        list.find((c) => c.product === p) as {
          id: string;
          remediation: { code: string; message: string; actionRequired?: boolean };
        };
      expect(list.length).toBeGreaterThanOrEqual(2);
      for (const c of list) {
        expect(Object.keys(c).sort()).toEqual([
          "authorizationState",
          "channel",
          "id",
          "processState",
          "product",
          "remediation",
          "remoteDebuggingState",
          "state",
          "userDataRoot",
        ]);
        const rem = c.remediation as { message: string };
        expect(rem.message).not.toContain(String(c.id));
      }
      const chrome = byProduct("Google Chrome");
      // Chromium is installed here: 'bp launch' comes first and no one's action is required.
      expect(chrome.remediation).toMatchObject({ code: "start_browser" });
      expect(chrome.remediation.actionRequired).toBeUndefined();
      expect(chrome.remediation.message).toStartWith("Run 'bp launch'");
      expect(chrome.remediation.message).toContain("'bp connect --browser <id>'");
      expect(byProduct("Chromium").remediation).toEqual({
        code: "connect_browser",
        message: expect.stringContaining("'bp connect --browser <id>'"),
      });
      const s = await env.run(["status"], opts);
      // The browser list as 'bp browsers' gives it; the recovery is the one command (the broker
      // picks the only connectable browser), with no copy of a browser's remediation.
      expect(s.json).toEqual({
        ok: true,
        service: { state: "stopped", version: VERSION, target: HOST },
        browser: { state: "disconnected" },
        browsers: list,
        session: { state: "unavailable" },
        recovery: { required: true, code: "browser_disconnected", action: "bp connect" },
      });
      // A person reads the command whole.
      const h = await env.run(["--human", "browsers"], opts);
      expect(h.stdout).toContain(`'bp connect --browser ${chrome.id}'`);
      expect(h.stdout).not.toContain("<id>");
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  test("disconnect without a broker is a no-op that says so", async () => {
    const r = await env.run(["disconnect"]);
    expect(r.json).toEqual({ ok: true, message: "No broker is running." });
    expect(existsSync(join(env.home, "broker-locator.json"))).toBe(false);
  });

  test("human mode prints text and errors to stderr", async () => {
    const r = await env.run(["--human", "tab", "bogus"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("✗");
    expect(r.stderr).toContain("invalid_argument");
  });
});

describe("hidden roles", () => {
  test("the janitor role still dispatches: it exits cleanly when its broker (stdin) is gone", async () => {
    const proc = Bun.spawn([BP, "--browser-pilot-internal=janitor"], {
      stdin: new Blob([""]),
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(await proc.exited).toBe(0);
  });

  test("the broker role still dispatches: it listens, writes a locator, and stops on SIGTERM", async () => {
    const e = makeBpEnv();
    try {
      const proc = Bun.spawn([BP, "--browser-pilot-internal=broker"], {
        env: e.env,
        stdout: "ignore",
        stderr: "ignore",
      });
      const deadline = Date.now() + 10_000;
      while (e.brokerPid() === undefined && Date.now() < deadline) await Bun.sleep(20);
      expect(e.brokerPid()).toBe(proc.pid);
      const status = await e.run(["status"]);
      expect(status.json.service).toEqual({ state: "running", version: VERSION, target: HOST });
      proc.kill("SIGTERM");
      expect(await proc.exited).toBe(0);
      expect(existsSync(join(e.home, "broker-locator.json"))).toBe(false);
    } finally {
      await e.cleanup();
    }
  });

  test("an unknown internal role is refused", () => {
    const proc = Bun.spawnSync([BP, "--browser-pilot-internal=bogus"]);
    expect(proc.exitCode).toBe(2);
  });
});
