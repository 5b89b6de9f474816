import { afterEach, describe, expect, test } from "bun:test";
import fsp from "node:fs/promises";
import path from "node:path";
import {
  candidateId,
  connectAction,
  discoverBrowsers,
  markAuthorizationRequired,
  markConnected,
  matchBrowser,
  toPublicCandidate,
  withOwnId,
} from "./discover.ts";
import { findChromiumExecutable } from "./executable.ts";
import { deadLock, liveLock, makeFakeProfile, tempRoot } from "../../test/support/fake-profiles.ts";
import type { BrowserCandidate } from "./types.ts";

const PORT_FILE = "41234\r\n/devtools/browser/1111-2222\r\n";
let cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  await Promise.all(cleanups.map((c) => c()));
  cleanups = [];
});

async function fakeHome(): Promise<string> {
  const root = await tempRoot("discover");
  cleanups.push(root.cleanup);
  return root.dir;
}

/**
 * macOS layout on this Linux host is hermetic: no /Applications here, so only the fake HOME's
 * profiles can show up. The Linux layout is exercised too, looked up by data dir.
 */
async function discoverOne(home: string, platform: NodeJS.Platform, dataDir: string): Promise<BrowserCandidate> {
  const all = await discoverBrowsers({ env: { HOME: home, PATH: "" }, platform });
  const found = all.find((c) => c.userDataRoot === dataDir);
  if (!found) throw new Error(`no candidate for ${dataDir}`);
  return found;
}

describe("discoverBrowsers", () => {
  test("lists only installed browsers", async () => {
    const home = await fakeHome();
    expect(await discoverBrowsers({ env: { HOME: home, PATH: "" }, platform: "darwin" })).toEqual([]);
    await makeFakeProfile(path.join(home, "Library/Application Support/Google/Chrome Beta"));
    await makeFakeProfile(path.join(home, "Library/Application Support/BraveSoftware/Brave-Browser"));
    const found = await discoverBrowsers({ env: { HOME: home, PATH: "" }, platform: "darwin" });
    expect(found.map((c) => [c.product, c.channel])).toEqual([
      ["Brave", "stable"],
      ["Google Chrome", "beta"],
    ]);
  });

  test("an executable on PATH alone counts as installed", async () => {
    const home = await fakeHome();
    const bin = path.join(home, "bin");
    await fsp.mkdir(bin);
    const exe = path.join(bin, "microsoft-edge-dev");
    await fsp.writeFile(exe, "#!/bin/sh\n", { mode: 0o755 });
    const found = await discoverBrowsers({ env: { HOME: home, PATH: bin }, platform: "linux" });
    const edge = found.find((c) => c.id.startsWith("browser:edge-dev:"));
    expect(edge?.executablePath).toBe(exe);
    expect(edge?.state).toBe("not_running");
    expect(edge?.processState).toBe("not_running");
  });

  test("no port file, not running: not_running / start_browser", async () => {
    const home = await fakeHome();
    const dir = await makeFakeProfile(path.join(home, ".config/google-chrome"));
    const c = await discoverOne(home, "linux", dir);
    expect(c.product).toBe("Google Chrome");
    expect(c.channel).toBe("stable");
    expect(c.processState).toBe("not_running");
    expect(c.remoteDebuggingState).toBe("disabled");
    expect(c.authorizationState).toBe("not_applicable");
    expect(c.state).toBe("not_running");
    expect(c.remediation?.code).toBe("start_browser");
    // 'bp launch' works where a Chromium is installed: no one's action is required then, and it comes first.
    if (findChromiumExecutable() !== undefined) {
      expect(c.remediation?.actionRequired).toBeUndefined();
      expect(c.remediation?.message).toStartWith("Run 'bp launch'");
    } else expect(c.remediation?.actionRequired).toBe(true);
    expect(c.endpoint).toBeUndefined();
  });

  test("no port file, running: remote_debugging_disabled / enable_remote_debugging", async () => {
    const home = await fakeHome();
    const dir = await makeFakeProfile(path.join(home, ".config/chromium"), { lock: liveLock() });
    const c = await discoverOne(home, "linux", dir);
    expect(c.processState).toBe("running");
    expect(c.remoteDebuggingState).toBe("disabled");
    expect(c.state).toBe("remote_debugging_disabled");
    expect(c.remediation?.code).toBe("enable_remote_debugging");
    expect(c.remediation?.message).toContain("chrome://inspect/#remote-debugging");
  });

  test("port file, running: enabled / disconnected / connect_browser with endpoint", async () => {
    const home = await fakeHome();
    const dir = await makeFakeProfile(path.join(home, ".config/BraveSoftware/Brave-Browser"), {
      portFile: PORT_FILE,
      lock: liveLock(),
    });
    const c = await discoverOne(home, "linux", dir);
    expect(c.processState).toBe("running");
    expect(c.remoteDebuggingState).toBe("enabled");
    expect(c.authorizationState).toBe("unknown");
    expect(c.state).toBe("disconnected");
    // Lean: the agent can do it itself (no actionRequired:false), and the message names the
    // candidate's own id as <id> instead of repeating it.
    expect(c.remediation).toEqual({
      code: "connect_browser",
      message: expect.stringContaining("Run 'bp connect --browser <id>'"),
    });
    expect(c.remediation?.message).not.toContain(c.id);
    expect(withOwnId(c)?.message).toContain(`Run 'bp connect --browser ${c.id}'`);
    expect(c.endpoint).toBe("ws://127.0.0.1:41234/devtools/browser/1111-2222");
  });

  test("port file, crashed browser (dead pid): stale, never running", async () => {
    const home = await fakeHome();
    const dir = await makeFakeProfile(path.join(home, ".config/microsoft-edge"), {
      portFile: PORT_FILE,
      lock: deadLock(),
    });
    const c = await discoverOne(home, "linux", dir);
    expect(c.processState).toBe("not_running");
    expect(c.remoteDebuggingState).toBe("stale");
    expect(c.state).toBe("disconnected");
    expect(c.remediation?.code).toBe("restart_remote_debugging");
    expect(c.endpoint).toBeUndefined();
  });

  test("port file, no lock at all: stale", async () => {
    const home = await fakeHome();
    const dir = await makeFakeProfile(path.join(home, ".config/google-chrome-unstable"), {
      portFile: PORT_FILE,
    });
    const c = await discoverOne(home, "linux", dir);
    expect(c.channel).toBe("dev");
    expect(c.remoteDebuggingState).toBe("stale");
    expect(c.remediation?.code).toBe("restart_remote_debugging");
  });

  test("port file older than the running browser's lock: stale, debugging off", async () => {
    const home = await fakeHome();
    const dir = await makeFakeProfile(path.join(home, ".config/google-chrome-beta"), {
      portFile: PORT_FILE,
      portFileAgeMs: 60 * 60 * 1000,
      lock: liveLock(),
    });
    const c = await discoverOne(home, "linux", dir);
    expect(c.processState).toBe("running");
    expect(c.remoteDebuggingState).toBe("stale");
    expect(c.state).toBe("remote_debugging_disabled");
    expect(c.remediation?.code).toBe("enable_remote_debugging");
    expect(c.endpoint).toBeUndefined();
  });

  test("malformed port file counts as no port file", async () => {
    const home = await fakeHome();
    const dir = await makeFakeProfile(path.join(home, ".config/chromium"), {
      portFile: "99999\n/devtools/browser/x\n",
      lock: liveLock(),
    });
    const c = await discoverOne(home, "linux", dir);
    expect(c.remoteDebuggingState).toBe("disabled");
    expect(c.state).toBe("remote_debugging_disabled");
  });

  test("unreadable lock: unknown process state, still connectable when the port file exists", async () => {
    const home = await fakeHome();
    const dir = await makeFakeProfile(path.join(home, "Library/Application Support/Chromium"), {
      portFile: PORT_FILE,
      lock: "not-a-host-pid",
    });
    const c = await discoverOne(home, "darwin", dir);
    expect(c.processState).toBe("unknown");
    expect(c.state).toBe("disconnected");
    expect(c.remediation?.code).toBe("connect_browser");
  });

  test("honours an absolute XDG_CONFIG_HOME on Linux", async () => {
    const home = await fakeHome();
    const xdg = path.join(home, "xdg");
    const dir = await makeFakeProfile(path.join(xdg, "google-chrome-canary"));
    const found = await discoverBrowsers({
      env: { HOME: home, PATH: "", XDG_CONFIG_HOME: xdg },
      platform: "linux",
    });
    expect(found.find((c) => c.userDataRoot === dir)?.channel).toBe("canary");
  });

  test("ids are stable across runs and distinct per install", async () => {
    const home = await fakeHome();
    const dir = await makeFakeProfile(path.join(home, ".config/chromium"));
    const first = await discoverOne(home, "linux", dir);
    const second = await discoverOne(home, "linux", dir);
    expect(first.id).toBe(second.id);
    expect(first.id).toMatch(/^browser:chromium-stable:[A-Za-z0-9_-]{20}$/);
    expect(first.id).not.toContain(home);
    expect(candidateId("linux", "chromium-stable", dir)).toBe(first.id);
    expect(candidateId("darwin", "chromium-stable", dir)).not.toBe(first.id);
    expect(candidateId("linux", "chromium-stable", `${dir}2`)).not.toBe(first.id);
  });
});

describe("state transitions after connect", () => {
  const base: BrowserCandidate = {
    id: "browser:chrome-stable:abc",
    product: "Google Chrome",
    channel: "stable",
    userDataRoot: "/h/.config/google-chrome",
    processState: "running",
    remoteDebuggingState: "enabled",
    authorizationState: "unknown",
    state: "disconnected",
    remediation: { code: "connect_browser", message: "m", actionRequired: false },
    endpoint: "ws://127.0.0.1:1/devtools/browser/x",
  };

  test("markConnected: ready and authorized, no remediation", () => {
    const c = markConnected(base);
    expect(c.state).toBe("ready");
    expect(c.authorizationState).toBe("authorized");
    expect("remediation" in c).toBe(false);
    expect(base.state).toBe("disconnected");
  });

  test("markAuthorizationRequired: allow_remote_debugging, human action", () => {
    const c = markAuthorizationRequired(base);
    expect(c.state).toBe("authorization_required");
    expect(c.authorizationState).toBe("required");
    expect(c.remediation?.code).toBe("allow_remote_debugging");
    expect(c.remediation?.actionRequired).toBe(true);
    expect(c.remediation?.message).toContain("<id>");
    expect(withOwnId(c)).toEqual({
      code: "allow_remote_debugging",
      message: expect.stringContaining(`'bp connect --browser ${base.id}' again`),
      actionRequired: true,
    });
  });

  test("toPublicCandidate strips the endpoint and the executable path", () => {
    const pub = toPublicCandidate({ ...base, executablePath: "/usr/bin/google-chrome" });
    expect("endpoint" in pub).toBe(false);
    expect("executablePath" in pub).toBe(false);
    expect(JSON.stringify(pub)).not.toContain("devtools/browser");
    expect(Object.keys(pub).sort()).toEqual([
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
  });

  test("connectAction: plain connect for one connectable browser, --browser for several, else launch", () => {
    const off = { ...base, remoteDebuggingState: "disabled" as const };
    const stale = { ...base, remoteDebuggingState: "stale" as const, processState: "not_running" as const };
    expect(connectAction([base, off])).toBe("bp connect");
    expect(connectAction([base, base])).toBe("bp connect --browser <id>");
    expect(connectAction([off, stale])).toBe("bp launch");
    expect(connectAction([])).toBe("bp launch");
  });
});

describe("matchBrowser", () => {
  const make = (id: string, product: string, channel: string): BrowserCandidate => ({
    id,
    product,
    channel,
    userDataRoot: "/x",
    processState: "not_running",
    remoteDebuggingState: "disabled",
    authorizationState: "not_applicable",
    state: "not_running",
  });
  const list = [
    make("browser:chrome-stable:AAAA", "Google Chrome", "stable"),
    make("browser:chrome-beta:BBBB", "Google Chrome", "beta"),
    make("browser:chromium-stable:CCCC", "Chromium", "stable"),
    make("browser:edge-stable:DDDD", "Microsoft Edge", "stable"),
  ];
  const ids = (filter: string): string[] => matchBrowser(list, filter).map((c) => c.id);

  test("exact id, case-insensitive, wins outright", () => {
    expect(ids("BROWSER:CHROME-STABLE:aaaa")).toEqual(["browser:chrome-stable:AAAA"]);
  });

  test("substring on id, product and channel", () => {
    expect(ids("chromium")).toEqual(["browser:chromium-stable:CCCC"]);
    expect(ids("edge")).toEqual(["browser:edge-stable:DDDD"]);
    expect(ids("Beta")).toEqual(["browser:chrome-beta:BBBB"]);
    expect(ids("google chrome stable")).toEqual(["browser:chrome-stable:AAAA"]);
    expect(ids("chrome")).toEqual(["browser:chrome-stable:AAAA", "browser:chrome-beta:BBBB"]);
  });

  test("no match and empty filter give nothing", () => {
    expect(ids("firefox")).toEqual([]);
    expect(ids("  ")).toEqual([]);
  });
});

describe("passivity", () => {
  test("discovery sources use no network API at all", async () => {
    const dir = import.meta.dir;
    const sources = (await fsp.readdir(dir)).filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"));
    expect(sources.length).toBeGreaterThan(3);
    const forbidden = new RegExp(
      [
        String.raw`node:(net|http|https|http2|tls|dgram|dns)\b`,
        String.raw`\bfetch\(`,
        "new WebSocket",
        String.raw`Bun\.(connect|listen|serve|spawn)`,
        "child_process",
      ].join("|"),
    );
    for (const file of sources) {
      const text = await fsp.readFile(path.join(dir, file), "utf8");
      expect({ file, match: forbidden.exec(text)?.[0] }).toEqual({ file, match: undefined });
    }
  });
});
