/**
 * The reliability suite's workbench: a private BROWSER_PILOT_HOME, the compiled `bp` run as an
 * agent's shell would run it, a Chromium kept on loopback, and checks on every reply.
 */
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { ERROR_CODES } from "../../../src/shared/errors.ts";
import { BP, browsersUnder, killAndWait, makeBpEnv, processesFor, type BpEnv } from "../../support/bp.ts";
import { requireChromium } from "../../support/chromium.ts";
import { cliEnded, cliStarted, trackRoot } from "./cpu.ts";
import { readListing } from "../../../src/protocol/elements.ts";

/**
 * Keeps a browser off every network but loopback: a dead proxy for everything that is not
 * loopback (Chromium bypasses proxies for loopback itself) and a resolver that knows no names.
 */
export const LOOPBACK_FLAGS: readonly string[] = [
  "--proxy-server=127.0.0.1:9",
  "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost",
];

const KNOWN_CODES = new Set<string>(ERROR_CODES);
/** Line breaks a line reader (Python's splitlines) splits on, besides \n. */
const LINE_BREAKS = /[\r\u000b\u000c\u001c-\u001e\u0085\u2028\u2029]/;

export type Json = Record<string, unknown> & {
  ok?: unknown;
  code?: unknown;
  error?: unknown;
  context?: Record<string, unknown>;
};

export interface Reply {
  exit: number | null;
  stdout: string;
  stderr: string;
  ms: number;
  /** Killed by the harness after `killAfterMs`. */
  hung: boolean;
  json?: Json;
}

export interface RunOptions {
  key?: string;
  stdin?: string;
  env?: Record<string, string>;
  cwd?: string;
  killAfterMs?: number;
}

export interface Lab {
  bpEnv: BpEnv;
  home: string;
  root: string;
  /** A directory the suite may let `bp` write into (screenshots, PDFs). */
  sandbox: string;
  /** An executable for `bp launch --executable` that starts Chromium on loopback only. */
  chromium: string;
  env: Record<string, string>;
  bp(args: string[], opts?: RunOptions): Promise<Reply>;
  spawn(args: string[], opts?: RunOptions): { pid: number; kill(signal?: NodeJS.Signals): void; done: Promise<Reply> };
  brokerPid(): number | undefined;
  brokers(): number[];
  janitors(): number[];
  /** Chromium main processes started by `bp launch` under this home. */
  launched(): number[];
  /** Stops every process of this home by pid and removes its files. */
  cleanup(): Promise<void>;
}

/** Lines the brokers of finished labs logged about unhandled rejections and uncaught throws. */
export const strayErrors: string[] = [];
const STRAY = /unhandled rejection|uncaught exception/i;

function collectStray(home: string): void {
  let text = "";
  try {
    text = readFileSync(join(home, "broker.log"), "utf8");
  } catch {
    return;
  }
  for (const line of text.split("\n")) if (STRAY.test(line)) strayErrors.push(line.slice(0, 300));
}

export function makeLab(extraEnv: Record<string, string> = {}): Lab {
  const bpEnv = makeBpEnv({ BROWSER_PILOT_IDLE_MS: "120000", ...extraEnv });
  const root = dirname(bpEnv.home);
  trackRoot(root);
  const sandbox = join(root, "sandbox", "a", "b", "c");
  mkdirSync(sandbox, { recursive: true });
  const chromium = join(root, "chromium-loopback");
  const flags = LOOPBACK_FLAGS.map((f) => `'${f}'`).join(" ");
  writeFileSync(chromium, `#!/bin/sh\nexec '${requireChromium()}' ${flags} --disable-dev-shm-usage "$@"\n`);
  chmodSync(chromium, 0o755);

  const spawn = (args: string[], opts: RunOptions = {}) => {
    const started = performance.now();
    const proc = Bun.spawn([BP, ...args], {
      env: { ...bpEnv.env, ...(opts.key ? { BROWSER_PILOT_CLIENT_KEY: opts.key } : {}), ...opts.env },
      cwd: opts.cwd ?? sandbox,
      stdin: opts.stdin !== undefined ? new Blob([opts.stdin]) : "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    cliStarted(proc.pid);
    let hung = false;
    const timer = opts.killAfterMs
      ? setTimeout(() => {
          hung = true;
          proc.kill("SIGKILL");
        }, opts.killAfterMs)
      : undefined;
    const done = (async (): Promise<Reply> => {
      const [stdout, stderr, exit] = await Promise.all([
        new Response(proc.stdout).text(),
        new Response(proc.stderr).text(),
        proc.exited,
      ]);
      if (timer) clearTimeout(timer);
      cliEnded(proc.pid, Number(proc.resourceUsage()?.cpuTime.total ?? 0));
      const reply: Reply = { exit, stdout, stderr, ms: performance.now() - started, hung };
      try {
        const parsed: unknown = JSON.parse(stdout);
        if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed))
          reply.json = readListing(parsed) as Json;
      } catch {
        // replyProblem names it
      }
      return reply;
    })();
    return { pid: proc.pid, kill: (signal: NodeJS.Signals = "SIGKILL") => proc.kill(signal), done };
  };

  const lab: Lab = {
    bpEnv,
    home: bpEnv.home,
    root,
    sandbox,
    chromium,
    env: bpEnv.env,
    bp: (args, opts) => spawn(args, opts).done,
    spawn,
    brokerPid: () => bpEnv.brokerPid(),
    brokers: () => processesFor(bpEnv.home, "broker").filter(running),
    janitors: () => processesFor(bpEnv.home, "janitor").filter(running),
    launched: () => browsersUnder(bpEnv.home).filter(running),
    async cleanup() {
      await bpEnv.stop();
      collectStray(bpEnv.home);
      for (const pid of processesFor(bpEnv.home, "janitor")) await killAndWait(pid, "SIGKILL");
      for (const pid of browsersUnder(bpEnv.home)) await killAndWait(pid, "SIGKILL");
      await bpEnv.cleanup();
    },
  };
  return lab;
}

/** Alive and not a zombie (a zombie answers kill(pid, 0) but will never run again). */
export function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

export function rssKiB(pid: number): number | undefined {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

export function openFds(pid: number): number | undefined {
  try {
    return Bun.spawnSync(["ls", `/proc/${pid}/fd`])
      .stdout.toString()
      .split("\n")
      .filter(Boolean).length;
  } catch {
    return undefined;
  }
}

export interface ReplyCheck {
  /** `--help` or `--human`: text is the right answer; only the exit code and stack traces are checked. */
  text?: boolean;
  maxBytes?: number;
}

const STACK =
  /^\s+at .+:\d+:\d+\)?$|^(?:TypeError|RangeError|ReferenceError|SyntaxError): |panic:|Segmentation fault|oh no: Bun has crashed/m;

/**
 * Why a reply breaks the contract, or undefined: one JSON object line on stdout with a boolean
 * `ok`; failures carry a known `code` and a string `error`; exit 0 or 1; nothing crashed.
 */
export function replyProblem(r: Reply, check: ReplyCheck = {}): string | undefined {
  if (r.hung) return `no answer within ${Math.round(r.ms)} ms (killed)`;
  if (r.exit !== 0 && r.exit !== 1) return `exit ${String(r.exit)}${r.stderr ? `: ${r.stderr.slice(0, 200)}` : ""}`;
  if (STACK.test(r.stderr)) return `stack trace on stderr: ${r.stderr.slice(0, 300)}`;
  if (check.text) return r.stdout.length > 0 || r.stderr.length > 0 ? undefined : "empty output";
  const max = check.maxBytes ?? 1024 * 1024;
  if (r.stdout.length > max) return `reply of ${r.stdout.length} bytes (bound ${max})`;
  if (!r.stdout.endsWith("\n") || r.stdout.indexOf("\n") !== r.stdout.length - 1)
    return `not one line: ${JSON.stringify(r.stdout.slice(0, 200))}`;
  const j = r.json;
  if (!j) return `not a JSON object: ${JSON.stringify(r.stdout.slice(0, 200))}`;
  if (typeof j.ok !== "boolean") return `no boolean ok: ${r.stdout.slice(0, 200)}`;
  if (j.ok !== (r.exit === 0)) return `ok:${String(j.ok)} with exit ${String(r.exit)}`;
  if (j.ok) return undefined;
  if (typeof j.code !== "string" || !KNOWN_CODES.has(j.code)) return `unknown code ${JSON.stringify(j.code)}`;
  if (typeof j.error !== "string" || j.error === "") return `failure without an error message (${j.code})`;
  return undefined;
}

/** A page-controlled line break inside the JSON line splits it for line readers. */
export function rawLineBreak(stdout: string): boolean {
  return LINE_BREAKS.test(stdout.replace(/\n$/, ""));
}

export const codeOf = (r: Reply): string =>
  r.json?.ok === true ? "ok" : typeof r.json?.code === "string" ? r.json.code : "unparsable";

export { rng } from "../../support/rng.ts";

/** Runs `fn` over items with at most `n` at a time. */
export async function pool<T>(
  items: readonly T[],
  n: number,
  fn: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(n, items.length) }, async () => {
    for (;;) {
      const i = next++;
      if (i >= items.length) return;
      await fn(items[i] as T, i);
    }
  });
  await Promise.all(workers);
}

export async function until<T>(fn: () => T | Promise<T>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await Bun.sleep(25);
  }
}
