import { lstatSync, statfsSync } from "node:fs";
import { dirname } from "node:path";
import type { BpPaths } from "../shared/paths.ts";
import { executableIdentity } from "../shared/self.ts";
import { VERSION } from "../shared/version.ts";
import { probeBroker } from "./locate.ts";

export interface Check {
  name: string;
  status: "ok" | "warn" | "fail";
  detail: string;
  fix?: string;
}

const MIB = 1024 * 1024;
const STORE_TOTAL_DEFAULT = 1024 * MIB;

/**
 * 'bp doctor': what bp sees of this machine, each finding with a fix. Passive like 'bp status':
 * files, a version run of the browser executable, and at most a hello to a running broker;
 * it starts nothing and opens no socket to a browser.
 */
export async function runDoctor(
  paths: BpPaths,
  env: Record<string, string | undefined> = process.env,
): Promise<{ ok: boolean; checks: Check[] }> {
  const checks: Check[] = [];
  const { discoverBrowsers, findChromiumExecutable, installHint, publicCandidate, CHROME_ENV_VAR } = await import(
    "../discovery/index.ts"
  );
  const exe = findChromiumExecutable(env);
  if (!exe)
    checks.push({
      name: "browser",
      status: "fail",
      detail: "No Chromium-family browser found for 'bp launch'.",
      fix: installHint(),
    });
  else {
    // chrome.exe prints no version on Windows: found is all that can be said there.
    const version = process.platform === "win32" ? "found" : await browserVersion(exe);
    checks.push(
      version
        ? { name: "browser", status: "ok", detail: `${version} (${exe})` }
        : {
            name: "browser",
            status: "fail",
            detail: `${exe} does not answer --version.`,
            fix: `Reinstall it, or set ${CHROME_ENV_VAR} to a working Chromium-family browser.`,
          },
    );
  }
  for (const c of (await discoverBrowsers({ env })).map(publicCandidate)) {
    const detail = `${c.product} ${c.channel}: ${c.state} (process ${c.processState}, remote debugging ${c.remoteDebuggingState})`;
    checks.push({
      name: `browser ${c.id}`,
      status: c.remediation ? "warn" : "ok",
      detail,
      ...(c.remediation ? { fix: c.remediation.message } : {}),
    });
  }
  const root = typeof process.getuid === "function" && process.getuid() === 0;
  if (root)
    checks.push({
      name: "sandbox",
      status: "warn",
      detail: "Running as root: 'bp launch' starts Chromium with --no-sandbox.",
      fix: "Run bp as an ordinary user to keep Chromium's sandbox.",
    });
  checks.push(...dirChecks(paths));
  checks.push(await brokerCheck(paths));
  checks.push(diskCheck(paths.home, env));
  if (process.platform === "linux") {
    const display = env.DISPLAY || env.WAYLAND_DISPLAY;
    checks.push(
      display
        ? {
            name: "display",
            status: "ok",
            detail: `Headed launches use ${env.WAYLAND_DISPLAY ? `WAYLAND_DISPLAY=${env.WAYLAND_DISPLAY}` : `DISPLAY=${env.DISPLAY}`}.`,
          }
        : {
            name: "display",
            status: "warn",
            detail: "No DISPLAY or WAYLAND_DISPLAY: 'bp launch' runs headless.",
            fix: "Set DISPLAY (or run under xvfb-run) for a visible browser; use 'bp view' to watch a headless one.",
          },
    );
  }
  return { ok: !checks.some((c) => c.status === "fail"), checks };
}

function browserVersion(exe: string): Promise<string | undefined> {
  try {
    const child = Bun.spawn([exe, "--version"], { stdin: "ignore", stdout: "pipe", stderr: "ignore" });
    const timer = setTimeout(() => child.kill(), 5_000);
    return new Response(child.stdout).text().then(
      async (text) => {
        clearTimeout(timer);
        return (await child.exited) === 0 && text.trim() !== "" ? text.trim().slice(0, 200) : undefined;
      },
      () => undefined,
    );
  } catch {
    return Promise.resolve(undefined);
  }
}

/** The state and runtime directories must be this user's own and private (the broker refuses anything else). */
function dirChecks(paths: BpPaths): Check[] {
  const dirs =
    paths.runtimeDir === paths.home
      ? [["state directory", paths.home]]
      : [
          ["state directory", paths.home],
          ["runtime directory", paths.runtimeDir],
        ];
  const uid = typeof process.getuid === "function" ? process.getuid() : undefined;
  return dirs.map(([name = "", dir = ""]) => {
    let st;
    try {
      st = lstatSync(dir);
    } catch {
      return {
        name,
        status: "ok" as const,
        detail: `${dir} does not exist yet; the first command creates it (mode 0700).`,
      };
    }
    if (!st.isDirectory())
      return {
        name,
        status: "fail" as const,
        detail: `${dir} is not a directory.`,
        fix: `Move it away, or set BROWSER_PILOT_HOME to another absolute path.`,
      };
    if (uid !== undefined && st.uid !== uid)
      return {
        name,
        status: "fail" as const,
        detail: `${dir} belongs to uid ${st.uid}, not you (${uid}).`,
        fix: "Set BROWSER_PILOT_HOME to a directory of your own.",
      };
    const mode = st.mode & 0o777;
    if (process.platform !== "win32" && (mode & 0o077) !== 0)
      return {
        name,
        status: "fail" as const,
        detail: `${dir} has mode ${mode.toString(8)}; others can read it.`,
        fix: `chmod 700 '${dir}'`,
      };
    return { name, status: "ok" as const, detail: `${dir} (mode ${mode.toString(8)})` };
  });
}

async function brokerCheck(paths: BpPaths): Promise<Check> {
  const state = await probeBroker(paths, 1_500);
  switch (state.kind) {
    case "stopped":
      return { name: "broker", status: "ok", detail: "No broker running; the first browser command starts one." };
    case "exiting":
      return {
        name: "broker",
        status: "warn",
        detail: `The broker (pid ${state.locator.pid}) is stopping.`,
        fix: "Run the command again in a moment.",
      };
    case "unresponsive":
      return {
        name: "broker",
        status: "fail",
        detail: `The broker (pid ${state.locator.pid}) holds the socket but does not answer.`,
        fix: `Stop process ${state.locator.pid} yourself; bp never replaces a live broker.`,
      };
    case "unlocated":
      return {
        name: "broker",
        status: "fail",
        detail: `A broker (pid ${state.pid}) runs but its locator file is unusable.`,
        fix: `Stop process ${state.pid} (kill ${state.pid}); the next command starts a new broker.`,
      };
    case "incompatible":
      return {
        name: "broker",
        status: "fail",
        detail: `The broker (pid ${state.locator.pid}) is version ${state.hello.version} and speaks another protocol.`,
        fix: "Run 'bp disconnect' with the executable that started it, or set BROWSER_PILOT_HOME to isolate this installation.",
      };
    case "running":
      if (state.hello.version !== VERSION) {
        return {
          name: "broker",
          status: "warn",
          detail: `The broker (pid ${state.locator.pid}) is version ${state.hello.version}, this bp is ${VERSION}.`,
          fix: "Run 'bp disconnect', then any command starts a broker of this version.",
        };
      }
      // A rebuilt or reinstalled bp: the broker still runs the old executable's code.
      if (state.locator.executable.identity !== executableIdentity().identity) {
        return {
          name: "broker",
          status: "warn",
          detail: `The broker (pid ${state.locator.pid}) was started by another bp executable (${state.locator.executable.path}); it runs that executable's code.`,
          fix: `Run 'bp disconnect' once its agents are done (or stop process ${state.locator.pid}); the next command starts a broker of this bp.`,
        };
      }
      return {
        name: "broker",
        status: "ok",
        detail: `Broker ${state.hello.version} (pid ${state.locator.pid}) answers on its socket.`,
      };
  }
}

function diskCheck(home: string, env: Record<string, string | undefined>): Check {
  const want =
    Number(env.BROWSER_PILOT_STORE_TOTAL_BYTES) > 0 ? Number(env.BROWSER_PILOT_STORE_TOTAL_BYTES) : STORE_TOTAL_DEFAULT;
  let dir = home;
  for (let i = 0; i < 64; i++) {
    try {
      const fs = statfsSync(dir);
      const free = fs.bavail * fs.bsize;
      const shown = `${Math.round(free / MIB)} MiB free where the store lives (${dir}); its quota is ${Math.round(want / MIB)} MiB.`;
      return free >= want
        ? { name: "disk", status: "ok", detail: shown }
        : {
            name: "disk",
            status: "warn",
            detail: shown,
            fix: "Free some space, or lower BROWSER_PILOT_STORE_TOTAL_BYTES.",
          };
    } catch {
      const up = dirname(dir);
      if (up === dir) break;
      dir = up;
    }
  }
  return { name: "disk", status: "warn", detail: `Free space at ${home} is unknown.` };
}
