import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { findChromiumExecutable, installHint, readPortFile, endpointFor, probeProcessState } from "../discovery/index.ts";
import { BpError } from "../shared/errors.ts";
import type { BpPaths } from "../shared/paths.ts";
import { ensurePrivateDir } from "../shared/private-fs.ts";
import type { BrowserInfo } from "./browser.ts";

const LAUNCH_TIMEOUT_MS = 30_000;

/** Flags for a browser that must behave on closed networks and never prompt. */
export function launchFlags(userDataDir: string, headless: boolean): string[] {
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

/**
 * Starts (or finds already running) a Browser Pilot-owned Chromium for a profile under the
 * home directory. A profile whose browser is still alive from an earlier broker is reused.
 */
export async function launchBrowser(paths: BpPaths, opts: { executable?: string; profile: string; headless: boolean; signal: AbortSignal }): Promise<{ info: BrowserInfo; reused: boolean }> {
  ensurePrivateDir(paths.profiles);
  const userDataDir = join(paths.profiles, opts.profile);
  ensurePrivateDir(userDataDir);
  const existing = await runningEndpoint(userDataDir);
  const base = { id: `browser:launched:${opts.profile}`, source: "launched" as const, profile: opts.profile, headless: opts.headless, userDataRoot: userDataDir };
  if (existing) return { info: { ...base, product: "Chromium", endpoint: existing }, reused: true };

  const executable = opts.executable ?? findChromiumExecutable();
  if (!executable || !existsSync(executable)) {
    throw new BpError("browser_not_found", opts.executable ? `No executable at ${opts.executable}.` : `No Chromium-family browser is installed. ${installHint()}`, {
      context: { field: opts.executable ? "executable" : "browser" },
      remediation: { code: "select_supported_browser", message: installHint(), actionRequired: true },
    });
  }
  rmSync(join(userDataDir, "DevToolsActivePort"), { force: true });
  const child = Bun.spawn([executable, ...launchFlags(userDataDir, opts.headless)], { stdin: "ignore", stdout: "ignore", stderr: "ignore" });
  child.unref();
  let exited = false;
  void child.exited.then(() => {
    exited = true;
  });
  const deadline = Date.now() + LAUNCH_TIMEOUT_MS;
  while (Date.now() < deadline && !opts.signal.aborted) {
    const port = await readPortFile(userDataDir);
    if (port) return { info: { ...base, product: productName(executable), endpoint: endpointFor(port), launchedPid: child.pid }, reused: false };
    if (exited) break;
    await Bun.sleep(25);
  }
  if (!exited) child.kill("SIGKILL");
  throw new BpError("browser_not_found", `The browser at ${executable} did not start (${exited ? `exited with code ${String(child.exitCode)}` : "timed out"}).`, {
    retryable: true,
    context: { executable },
  });
}

async function runningEndpoint(userDataDir: string): Promise<string | undefined> {
  const port = await readPortFile(userDataDir);
  if (!port) return undefined;
  const probe = await probeProcessState(userDataDir);
  // A port file older than the running browser's lock was left by an earlier run.
  if (probe.state !== "running" || (probe.startedAtMs !== undefined && port.mtimeMs + 1000 < probe.startedAtMs)) return undefined;
  return endpointFor(port);
}

function productName(executable: string): string {
  const lower = executable.toLowerCase();
  if (lower.includes("edge")) return "Microsoft Edge";
  if (lower.includes("brave")) return "Brave";
  if (lower.includes("chrome") && !lower.includes("chromium")) return "Google Chrome";
  return "Chromium";
}
