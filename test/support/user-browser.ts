/**
 * A stand-in for a person's own browser: Chromium with its profile at the OS default location
 * inside a fake HOME, remote debugging on, so discovery finds it exactly as it would find a real
 * one. Never touches the real profile of whoever runs the tests.
 */
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { endpointFor, readPortFile } from "../../src/discovery/index.ts";
import { CHROMIUM_FLAGS, requireChromium } from "./chromium.ts";

export interface UserBrowser {
  home: string;
  /** Only with `profiles: true`: opens a window of another profile in this same browser process. */
  openProfile(directory: string, url: string): Promise<void>;
  userDataDir: string;
  pid: number;
  wsEndpoint: string;
  port: number;
  stop(): Promise<void>;
}

export interface StartUserBrowserOptions {
  headless?: boolean;
  url?: string;
  /** More Chromium flags, for example to keep a test browser on loopback. */
  args?: readonly string[];
  /**
   * Run as a person's Chrome does, so more profiles can be opened in the same browser process
   * (each its own browser context): the full browser with no display instead of headless mode,
   * which refuses a second profile.
   */
  profiles?: boolean;
}

export interface PageTarget {
  id: string;
  url: string;
  title: string;
  type: string;
}

const STARTUP_TIMEOUT_MS = 20_000;
const POLL_MS = 50;
const TERM_GRACE_MS = 3_000;
const STDERR_TAIL_BYTES = 4_096;

/** Pids started here and not yet reaped, so a crashed test run doesn't leak browsers. */
const live = new Set<number>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const pid of live) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
  });
}

export async function startUserBrowser(opts: StartUserBrowserOptions = {}): Promise<UserBrowser> {
  const executable = requireChromium();
  const root = await fsp.mkdtemp(path.join(os.tmpdir(), "bp-user-browser-"));
  const home = path.join(root, "home");
  const userDataDir = path.join(home, ".config", "chromium");
  await fsp.mkdir(userDataDir, { recursive: true });

  // Headless mode aborts a second invocation instead of handing it to the running browser, so
  // a multi-profile browser runs headed on Chromium's display-less platform.
  const displayless = ["--ozone-platform=headless", "--window-size=1280,800"];
  const args = [
    executable,
    ...(opts.profiles ? displayless : opts.headless === false ? [] : ["--headless=new"]),
    "--remote-debugging-port=0",
    `--user-data-dir=${userDataDir}`,
    ...CHROMIUM_FLAGS,
    ...(opts.args ?? []),
    opts.url ?? "about:blank",
  ];
  // Point every per-user location at the fake HOME so Chromium writes nothing of the real user's.
  const env = {
    ...process.env,
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, ".config"),
    XDG_CACHE_HOME: path.join(home, ".cache"),
    XDG_DATA_HOME: path.join(home, ".local", "share"),
  };
  const proc = Bun.spawn(args, { env, stdin: "ignore", stdout: "ignore", stderr: "pipe" });
  installExitHook();
  live.add(proc.pid);
  const stderr = collectTail(proc.stderr);
  let exited = false;
  void proc.exited.then(() => {
    exited = true;
    live.delete(proc.pid);
  });

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      if (!exited) {
        proc.kill("SIGTERM");
        const timer = setTimeout(() => {
          if (!exited) proc.kill("SIGKILL");
        }, TERM_GRACE_MS);
        await proc.exited;
        clearTimeout(timer);
      }
      // Helper processes may still be flushing into the profile for a moment after the browser
      // process exits; retries absorb that.
      await fsp.rm(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    })();
    return stopping;
  };

  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  try {
    for (;;) {
      const active = await readPortFile(userDataDir);
      if (active) {
        return {
          home,
          async openProfile(directory: string, url: string) {
            if (!opts.profiles) throw new Error("openProfile needs startUserBrowser({ profiles: true })");
            // What a person's second profile window is: Chrome's process singleton hands this
            // invocation to the running browser, which opens the profile in a new window.
            const second = Bun.spawn(
              [
                executable,
                ...displayless,
                `--user-data-dir=${userDataDir}`,
                `--profile-directory=${directory}`,
                ...CHROMIUM_FLAGS,
                url,
              ],
              { env, stdin: "ignore", stdout: "ignore", stderr: "ignore" },
            );
            if ((await second.exited) !== 0)
              throw new Error(`Opening profile ${directory} failed (exit ${second.exitCode})`);
          },
          userDataDir,
          pid: proc.pid,
          wsEndpoint: endpointFor(active),
          port: active.port,
          stop,
        };
      }
      if (exited) throw new Error(`Chromium exited with code ${proc.exitCode} before listening`);
      if (Date.now() > deadline) {
        throw new Error(`Chromium did not write DevToolsActivePort within ${STARTUP_TIMEOUT_MS} ms`);
      }
      await Bun.sleep(POLL_MS);
    }
  } catch (error) {
    await stop();
    const tail = stderr.text().trim();
    throw new Error(`${(error as Error).message} (${executable})${tail ? `\nstderr:\n${tail}` : ""}`);
  }
}

/** Keeps only the end of stderr: enough to explain a failed start without unbounded memory. */
function collectTail(stream: ReadableStream<Uint8Array>): { text(): string } {
  let tail = "";
  const decoder = new TextDecoder();
  void (async () => {
    for await (const chunk of stream) {
      tail = (tail + decoder.decode(chunk, { stream: true })).slice(-STDERR_TAIL_BYTES);
    }
  })().catch(() => undefined);
  return { text: () => tail };
}

/** Page targets over the HTTP endpoint. Test-only: Browser Pilot itself never uses HTTP here. */
export async function listPageTargets(port: number): Promise<PageTarget[]> {
  const res = await fetch(`http://127.0.0.1:${port}/json/list`);
  if (!res.ok) throw new Error(`/json/list answered ${res.status}`);
  const body: unknown = await res.json();
  if (!Array.isArray(body)) throw new Error("/json/list did not return an array");
  return body.map(toTarget).filter((t) => t.type === "page");
}

/** Opens a tab the way a person would, i.e. one Browser Pilot did not create. */
export async function openUserTab(port: number, url: string): Promise<PageTarget> {
  const res = await fetch(`http://127.0.0.1:${port}/json/new?${encodeURIComponent(url)}`, { method: "PUT" });
  if (!res.ok) throw new Error(`/json/new answered ${res.status}: ${await res.text()}`);
  return toTarget(await res.json());
}

function toTarget(value: unknown): PageTarget {
  const record = typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
  const str = (key: string): string => (typeof record[key] === "string" ? (record[key] as string) : "");
  return { id: str("id"), url: str("url"), title: str("title"), type: str("type") };
}
