/**
 * Runs an unpacked native archive the way a user's machine would: no node, npm or bun on
 * PATH, a private BROWSER_PILOT_HOME, and a real `bp launch` + `open` + `snapshot`. The
 * release script records the Chromium it ran against as the tested version; the release test
 * uses the same helpers and asserts each step.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";

const RUNTIMES = /^(node|nodejs|npm|npx|bun|bunx|corepack|pnpm|yarn|deno)$/;

/** A PATH directory holding links to the system's tools minus every JavaScript runtime. */
export function pathWithoutRuntimes(dir: string): string {
  mkdirSync(dir, { recursive: true });
  for (const from of ["/usr/local/bin", "/usr/bin", "/bin"]) {
    if (!existsSync(from)) continue;
    for (const name of readdirSync(from)) {
      if (RUNTIMES.test(name) || existsSync(join(dir, name))) continue;
      try {
        symlinkSync(join(from, name), join(dir, name));
      } catch {
        // a dangling or racing entry: not needed
      }
    }
  }
  return dir;
}

/** Unpacks with the system tar (a second, independent reader of what build/archive.ts writes). */
export function unpack(archive: string, into: string): void {
  mkdirSync(into, { recursive: true });
  const r = Bun.spawnSync(["tar", "-xzf", archive, "-C", into], { stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`tar -xzf ${archive} failed: ${r.stderr.toString()}`);
}

export interface Ran {
  code: number;
  stdout: string;
  json: Record<string, unknown>;
}

export function runBp(exe: string, args: string[], env: Record<string, string>): Ran {
  const r = Bun.spawnSync([exe, ...args], { env, stdout: "pipe", stderr: "pipe", stdin: "ignore" });
  const stdout = r.stdout.toString();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(stdout.trim().split("\n").at(-1) ?? "") as Record<string, unknown>;
  } catch {
    // --version and --help print text
  }
  return { code: r.exitCode ?? -1, stdout, json };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Pids of processes started under `dir`: a broker or janitor whose environment names it as
 * BROWSER_PILOT_HOME, or a browser whose user-data dir lies inside it. Linux (/proc) only;
 * elsewhere the broker pid from the locator is all there is.
 */
export function processesUnder(dir: string): number[] {
  const out = new Set<number>();
  try {
    const locator = JSON.parse(readFileSync(join(dir, "broker-locator.json"), "utf8")) as { pid?: number };
    if (typeof locator.pid === "number") out.add(locator.pid);
  } catch {
    // no broker
  }
  if (!existsSync("/proc")) return [...out];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const args = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      const environ = readFileSync(`/proc/${entry}/environ`, "utf8").split("\0");
      if (args.some((a) => a.startsWith(`--user-data-dir=${dir}`)) || environ.includes(`BROWSER_PILOT_HOME=${dir}`))
        out.add(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return [...out];
}

/** SIGTERM, then SIGKILL after a grace, for each pid; waits until they are gone. */
export async function stopAll(pids: readonly number[]): Promise<void> {
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGTERM");
    } catch {
      // already gone
    }
  }
  const deadline = Date.now() + 8000;
  while (pids.some(alive) && Date.now() < deadline) await Bun.sleep(25);
  for (const pid of pids.filter(alive)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone
    }
  }
}

export interface SmokeResult {
  chromium: string;
}

/** Launch, open, snapshot with the unpacked executable; throws naming the step that failed. */
export async function smoke(
  exe: string,
  o: { version: string; platform: string; work: string; chromium: string },
): Promise<SmokeResult> {
  const home = join(o.work, "bp-home");
  mkdirSync(join(o.work, "user"), { recursive: true });
  const env: Record<string, string> = {
    PATH: pathWithoutRuntimes(join(o.work, "path")),
    HOME: join(o.work, "user"),
    BROWSER_PILOT_HOME: home,
    BROWSER_PILOT_CHROME: o.chromium,
    BROWSER_PILOT_CLIENT_KEY: "release-smoke",
    BROWSER_PILOT_IDLE_MS: "30000",
  };
  try {
    const version = runBp(exe, ["--version"], env);
    if (version.stdout.trim() !== `${o.version} (${o.platform})`)
      throw new Error(`bp --version printed '${version.stdout.trim()}'`);
    if (!runBp(exe, ["--help"], env).stdout.includes("launch")) throw new Error("bp --help does not list launch");
    const launch = runBp(exe, ["launch", "--headless"], env);
    if (launch.json.ok !== true) throw new Error(`bp launch failed: ${launch.stdout}`);
    const open = runBp(exe, ["open", "data:text/html,<title>smoke</title><button>Ready</button>", "--new"], env);
    if (open.json.ok !== true) throw new Error(`bp open failed: ${open.stdout}`);
    const snap = runBp(exe, ["snapshot"], env);
    if (snap.json.ok !== true || !snap.stdout.includes("Ready")) throw new Error(`bp snapshot failed: ${snap.stdout}`);
    const browser = launch.json.browser as { version?: string; product?: string };
    return { chromium: browser.version ?? browser.product ?? "unknown" };
  } finally {
    await stopAll(processesUnder(home));
  }
}
