/**
 * Runs the compiled `bp` like an agent's shell tool would, with a private BROWSER_PILOT_HOME,
 * and stops whatever broker it started by pid.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readListing } from "../../src/protocol/elements.ts";
import { isPidAlive } from "../../src/shared/process-identity.ts";

export const BP = join(import.meta.dir, "../../dist/bp");

if (!existsSync(BP)) throw new Error(`${BP} is missing: run 'npm run build' (the README's test command does).`);

export interface BpResult {
  code: number;
  json: Record<string, unknown> & { ok: boolean; code?: string; context?: Record<string, unknown> };
  stdout: string;
  stderr: string;
}

export interface BpEnv {
  home: string;
  env: Record<string, string>;
  run(
    args: string[],
    opts?: { key?: string; stdin?: string; env?: Record<string, string>; cwd?: string },
  ): Promise<BpResult>;
  /** Stops the broker of this home (SIGTERM, then SIGKILL) and waits until it is gone. */
  stop(): Promise<void>;
  brokerPid(): number | undefined;
  cleanup(): Promise<void>;
}

export function makeBpEnv(extra: Record<string, string> = {}): BpEnv {
  const root = mkdtempSync(join(tmpdir(), "bp-test-"));
  const home = join(root, "home");
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? root,
    BROWSER_PILOT_HOME: home,
    BROWSER_PILOT_IDLE_MS: "30000",
    ...(process.env.CI ? { CI: process.env.CI } : {}),
    ...extra,
  };
  const self: BpEnv = {
    home,
    env,
    async run(args, opts = {}) {
      const proc = Bun.spawn([BP, ...args], {
        env: { ...env, ...(opts.key ? { BROWSER_PILOT_CLIENT_KEY: opts.key } : {}), ...opts.env },
        stdin: opts.stdin !== undefined ? new Blob([opts.stdin]) : "ignore",
        ...(opts.cwd ? { cwd: opts.cwd } : {}),
        stdout: "pipe",
        stderr: "pipe",
      });
      const [stdout, stderr, code] = await Promise.all([
        new Response(proc.stdout).text(),
        new Response(proc.stderr).text(),
        proc.exited,
      ]);
      let json: BpResult["json"];
      try {
        // Listed elements travel as arrays (src/protocol/elements.ts); tests look them up by field.
        json = readListing(JSON.parse(stdout.trim().split("\n").at(-1) ?? "") as BpResult["json"]);
      } catch {
        json = { ok: false, code: "unparsable_output" };
      }
      return { code, json, stdout, stderr };
    },
    brokerPid() {
      try {
        return (JSON.parse(readFileSync(join(home, "broker-locator.json"), "utf8")) as { pid: number }).pid;
      } catch {
        return undefined;
      }
    },
    async stop() {
      const pid = self.brokerPid();
      if (pid !== undefined && pid !== process.pid) await killAndWait(pid);
      for (const p of brokerPidsFor(home)) await killAndWait(p);
    },
    async cleanup() {
      await self.stop();
      // A browser bp launched outlives its broker while a person's tab is open in it (by design,
      // and some tests open one): stop it by pid before its profile directory goes.
      for (const p of browsersUnder(home)) await killAndWait(p);
      rmSync(root, { recursive: true, force: true });
    },
  };
  return self;
}

/**
 * Whether the process still runs. A zombie does not: a broker or browser that outlived its
 * parent is reaped by whatever runs as PID 1, which on some machines is slow to do it or never
 * does, and waiting on a zombie made cleanups run out their time (and a test fail under load).
 */
export function alive(pid: number): boolean {
  return isPidAlive(pid);
}

/** The ref of the element a fresh snapshot names `name`; throws when there is none. */
export async function refNamed(run: (args: string[]) => Promise<BpResult>, name: string): Promise<string> {
  const elements = ((await run(["snapshot"])).json.elements ?? []) as { r: number; n?: string }[];
  const ref = elements.find((e) => e.n === name)?.r;
  if (ref === undefined) throw new Error(`no element named ${name}: ${JSON.stringify(elements.map((e) => e.n))}`);
  return String(ref);
}

export async function waitFor<T>(fn: () => T | Promise<T>, timeoutMs = 10_000, what = "condition"): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await Bun.sleep(25);
  }
}

export async function killAndWait(pid: number, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  try {
    process.kill(pid, signal);
  } catch {
    return;
  }
  const deadline = Date.now() + 8000;
  while (alive(pid) && Date.now() < deadline) await Bun.sleep(25);
  if (alive(pid)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone
    }
  }
}

/**
 * Pids of our processes (any role) whose environment names this BROWSER_PILOT_HOME. Linux
 * only: reads /proc, which lets a test prove that exactly one broker exists.
 */
export function processesFor(home: string, role: "broker" | "janitor"): number[] {
  const out: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmd = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      if (!cmd.includes(`--browser-pilot-internal=${role}`)) continue;
      const environ = readFileSync(`/proc/${entry}/environ`, "utf8");
      if (environ.split("\0").includes(`BROWSER_PILOT_HOME=${home}`)) out.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

/** Pids of Chromium processes started with a user-data dir under `dir`. */
export function browsersUnder(dir: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const args = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      if (args.some((a) => a.startsWith(`--user-data-dir=${dir}`)) && !args.some((a) => a.startsWith("--type=")))
        out.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  // Chromium forks its helpers: a child between its fork and its exec still shows the
  // browser's own command line for a moment. It is not a second browser.
  return out.filter((pid) => !out.includes(parentOf(pid)));
}

function parentOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return 0;
  }
}

function brokerPidsFor(home: string): number[] {
  return processesFor(home, "broker");
}

/**
 * The environments one test file makes, so its afterAll stops them all, and any browser one of
 * them launched that outlived its broker (by pid, never by name).
 */
export function envPool(): { newEnv(extra?: Record<string, string>): BpEnv; cleanupAll(): Promise<void> } {
  const envs: BpEnv[] = [];
  return {
    newEnv(extra = {}) {
      const e = makeBpEnv(extra);
      envs.push(e);
      return e;
    },
    async cleanupAll() {
      for (const e of envs) {
        const pids = browsersUnder(e.home);
        await e.cleanup();
        for (const p of pids) if (alive(p)) process.kill(p, "SIGKILL");
      }
    },
  };
}
