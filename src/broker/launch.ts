import { existsSync, realpathSync, rmSync } from "node:fs";
import { join } from "node:path";
import {
  findChromiumExecutable,
  installHint,
  readPortFile,
  endpointFor,
  probeProcessState,
} from "../discovery/index.ts";
import { isPidAlive } from "../shared/process-identity.ts";
import { BpError } from "../shared/errors.ts";
import type { BpPaths } from "../shared/paths.ts";
import { ensurePrivateDir, readPrivateFile, writePrivateFileAtomic } from "../shared/private-fs.ts";
import type { BrowserInfo } from "./browser.ts";

const LAUNCH_TIMEOUT_MS = 30_000;

/**
 * WebUI address-bar popups cost 0.3-0.5 s of CPU per window (each tab is one) and no agent uses them.
 * DeferRendererTasksAfterInput would make `type`'s focus proof wait a frame after each click (up to 16.7 ms).
 */
const DISABLED_FEATURES = ["WebUIOmniboxPopup", "WebUIOmniboxAimPopup", "DeferRendererTasksAfterInput"];

/** Chromium keeps only the last --disable-features, and Debian's CHROMIUM_FLAGS come first: keep theirs. */
function disabledFeatures(env: Record<string, string | undefined>): string {
  const theirs = (env.CHROMIUM_FLAGS ?? "")
    .split(/\s+/)
    .filter((f) => f.startsWith("--disable-features="))
    .flatMap((f) => f.slice("--disable-features=".length).split(","));
  return [...new Set([...theirs, ...DISABLED_FEATURES])].filter((f) => f !== "").join(",");
}

/** Flags for a browser that must behave on closed networks and never prompt. */
export function launchFlags(
  userDataDir: string,
  headless: boolean,
  env: Record<string, string | undefined> = process.env,
): string[] {
  const flags = [
    "--remote-debugging-port=0",
    `--user-data-dir=${userDataDir}`,
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--password-store=basic",
    "--use-mock-keychain",
    // Agents work in background tabs by design; throttled timers there would slow every step.
    "--disable-background-timer-throttling",
    "--disable-renderer-backgrounding",
    "--disable-backgrounding-occluded-windows",
    `--disable-features=${disabledFeatures(env)}`,
  ];
  // Chromium refuses to run as root with its sandbox; elsewhere we keep the sandbox.
  if (process.getuid?.() === 0) flags.push("--no-sandbox");
  if (headless) flags.push("--headless=new", "--disable-gpu");
  flags.push("about:blank");
  return flags;
}

export function hasDisplay(env: Record<string, string | undefined> = process.env): boolean {
  if (process.platform !== "linux") return true;
  return Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
}

export function launchedBrowserId(profile: string): string {
  return `browser:launched:${profile}`;
}

/** A launched browser nobody attached to (it lost a race for the broker) is stopped again. */
export function stopLaunched(pid: number): void {
  try {
    process.kill(pid, "SIGTERM");
  } catch {
    // already gone
  }
}

type LaunchResult = { info: BrowserInfo; reused: boolean };

/** One attempt per profile directory at a time: concurrent launches share it, like connects. */
const inFlight = new Map<string, Promise<LaunchResult>>();

/** Starts (or reuses) a bp-owned Chromium for a profile; each caller stops waiting at its own deadline. */
export async function launchBrowser(
  paths: BpPaths,
  opts: { executable?: string; profile: string; headless: boolean; signal: AbortSignal },
): Promise<LaunchResult> {
  ensurePrivateDir(paths.profiles);
  const userDataDir = join(paths.profiles, opts.profile);
  ensurePrivateDir(userDataDir);
  let attempt = inFlight.get(userDataDir);
  if (!attempt) {
    attempt = startOrFind(userDataDir, opts).finally(() => inFlight.delete(userDataDir));
    inFlight.set(userDataDir, attempt);
  }
  return untilAborted(attempt, opts.signal);
}

function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted)
    return Promise.reject(new BpError("command_cancelled", "The launch was stopped.", { retryable: true }));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () =>
      reject(
        new BpError("command_cancelled", "The launch was stopped; the browser may still be starting.", {
          retryable: true,
        }),
      );
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** Which executable bp started for a profile: a later launch of the same one may reuse it. */
const EXECUTABLE_FILE = "bp-executable";

export function sameExecutable(given: string, started: string | undefined): boolean {
  if (started === undefined) return false;
  const real = (p: string) => {
    try {
      return realpathSync(p);
    } catch {
      return p;
    }
  };
  return real(given) === real(started);
}

async function startOrFind(
  userDataDir: string,
  opts: { executable?: string; profile: string; headless: boolean },
): Promise<LaunchResult> {
  const base = {
    id: launchedBrowserId(opts.profile),
    source: "launched" as const,
    profile: opts.profile,
    headless: opts.headless,
    userDataRoot: userDataDir,
  };
  const deadline = Date.now() + LAUNCH_TIMEOUT_MS;
  const probe = await probeProcessState(userDataDir);
  if (probe.state === "running") {
    // A live browser holds this profile: never delete its port file or start a second one.
    const live = await waitForPortFile(
      userDataDir,
      deadline,
      probe.startedAtMs,
      () => probe.pid !== undefined && !isPidAlive(probe.pid),
    );
    const started = readPrivateFile(join(userDataDir, EXECUTABLE_FILE))?.trim();
    if (live)
      return {
        info: { ...base, product: "Chromium", endpoint: live, ...(started ? { executable: started } : {}) },
        reused: true,
      };
    throw new BpError(
      "browser_not_found",
      `A browser (pid ${String(probe.pid)}) holds the profile directory ${userDataDir} but exposes no debugging port.`,
      {
        retryable: true,
        context: { profile: opts.profile },
      },
    );
  }
  const executable = opts.executable ?? findChromiumExecutable();
  if (!executable || !existsSync(executable)) {
    throw new BpError(
      "browser_not_found",
      opts.executable
        ? `No executable at ${opts.executable}.`
        : `No Chromium-family browser is installed. ${installHint()}`,
      {
        context: { field: opts.executable ? "executable" : "browser" },
        remediation: { code: "select_supported_browser", message: installHint(), actionRequired: true },
      },
    );
  }
  // No live browser holds the profile: a port file here is left over from an earlier run.
  rmSync(join(userDataDir, "DevToolsActivePort"), { force: true });
  writePrivateFileAtomic(join(userDataDir, EXECUTABLE_FILE), executable);
  const child = Bun.spawn([executable, ...launchFlags(userDataDir, opts.headless)], {
    stdin: "ignore",
    stdout: "ignore",
    stderr: "ignore",
  });
  child.unref();
  let exited = false;
  void child.exited.then(() => {
    exited = true;
  });
  const endpoint = await waitForPortFile(userDataDir, deadline, undefined, () => exited);
  if (endpoint)
    return {
      info: { ...base, product: productName(executable), endpoint, launchedPid: child.pid, executable },
      reused: false,
    };
  // Only our own child, which never wrote its port: no other browser was started for this profile.
  if (!exited) child.kill("SIGKILL");
  throw new BpError(
    "browser_not_found",
    `The browser at ${executable} did not start (${exited ? `exited with code ${String(child.exitCode)}` : "timed out"}).`,
    {
      retryable: true,
      context: { executable },
    },
  );
}

/** A port file written by the running browser (not older than its lock), polled until `gone`. */
async function waitForPortFile(
  userDataDir: string,
  deadline: number,
  startedAtMs: number | undefined,
  gone: () => boolean,
): Promise<string | undefined> {
  while (Date.now() < deadline) {
    const port = await readPortFile(userDataDir);
    if (port && (startedAtMs === undefined || port.mtimeMs + 1000 >= startedAtMs)) return endpointFor(port);
    if (gone()) return undefined;
    await Bun.sleep(25);
  }
  return undefined;
}

function productName(executable: string): string {
  const lower = executable.toLowerCase();
  if (lower.includes("edge")) return "Microsoft Edge";
  if (lower.includes("brave")) return "Brave";
  if (lower.includes("chrome") && !lower.includes("chromium")) return "Google Chrome";
  return "Chromium";
}
