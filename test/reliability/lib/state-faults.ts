/**
 * Faults of the broker's surroundings rather than of its pages (issue 30): an upgrade that
 * replaces the executable under a running broker, a deleted executable, a broken locator, a
 * frozen broker, a state directory that is read-only, full or a file, a start-up lock a failed
 * start left, two HOMEs. Each scenario runs real processes in a fresh home, stops what it
 * started by pid, and returns what missed its target (undefined: met). The e2e test
 * (test/e2e/state-faults.test.ts) and the reliability part (parts/state-faults.ts) share them.
 */
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BP, alive, browsersUnder, killAndWait, processesFor } from "../../support/bp.ts";
import { requireChromium } from "../../support/chromium.ts";
import { startUserBrowser } from "../../support/user-browser.ts";
import { cliEnded, cliStarted, trackRoot } from "./cpu.ts";
import { strayErrors } from "./lab.ts";

export interface Run {
  json: Record<string, unknown> & {
    ok?: unknown;
    code?: unknown;
    context?: Record<string, unknown>;
    remediation?: { code?: string };
    hints?: { type: string; message: string }[];
  };
  stderr: string;
  ms: number;
}

export interface Home {
  root: string;
  home: string;
  env: Record<string, string>;
  run(args: string[], opts?: { bin?: string; env?: Record<string, string>; key?: string }): Promise<Run>;
  brokerPid(): number | undefined;
  /** Stops every broker, janitor and launched Chromium of this home by pid, and removes it. */
  cleanup(): Promise<void>;
}

export function makeHome(extra: Record<string, string> = {}): Home {
  const root = mkdtempSync(join(tmpdir(), "bp-state-"));
  const home = join(root, "home");
  trackRoot(root);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: root,
    BROWSER_PILOT_HOME: home,
    BROWSER_PILOT_IDLE_MS: "120000",
    ...extra,
  };
  const h: Home = {
    root,
    home,
    env,
    run: (args, opts = {}) =>
      runBp(opts.bin ?? BP, args, { ...env, ...(opts.key ? { BROWSER_PILOT_CLIENT_KEY: opts.key } : {}), ...opts.env }),
    brokerPid() {
      try {
        return (JSON.parse(readFileSync(join(home, "broker-locator.json"), "utf8")) as { pid: number }).pid;
      } catch {
        return processesFor(home, "broker")[0];
      }
    },
    async cleanup() {
      for (const pid of processesFor(home, "broker")) {
        try {
          process.kill(pid, "SIGCONT");
        } catch {
          // gone
        }
        await killAndWait(pid);
      }
      for (const pid of processesFor(home, "janitor")) await killAndWait(pid, "SIGKILL");
      for (const pid of browsersUnder(home)) await killAndWait(pid, "SIGKILL");
      // A build that took BROWSER_PILOT_HOME='' for the default home started a broker in HOME.
      for (const pid of brokersWithHome(root)) await killAndWait(pid);
      collectStray(join(home, "broker.log"));
      rmSync(root, { recursive: true, force: true });
    },
  };
  return h;
}

/** The broker's log lines about unhandled rejections and uncaught throws, for the part's row. */
function collectStray(log: string): void {
  let text = "";
  try {
    text = readFileSync(log, "utf8");
  } catch {
    return;
  }
  for (const line of text.split("\n"))
    if (/unhandled rejection|uncaught exception/i.test(line)) strayErrors.push(line.slice(0, 300));
}

/** Brokers whose environment's HOME is `home` (this scenario's own, a fresh temp dir). */
function brokersWithHome(home: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!readFileSync(`/proc/${entry}/cmdline`, "utf8").includes("--browser-pilot-internal=broker")) continue;
      if (readFileSync(`/proc/${entry}/environ`, "utf8").split("\0").includes(`HOME=${home}`)) out.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

export async function runBp(
  bin: string,
  args: string[],
  env: Record<string, string>,
  killAfterMs = 60_000,
): Promise<Run> {
  const started = performance.now();
  const proc = Bun.spawn([bin, ...args], { env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  cliStarted(proc.pid);
  const timer = setTimeout(() => proc.kill("SIGKILL"), killAfterMs);
  const [stdout, stderr] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  clearTimeout(timer);
  cliEnded(proc.pid, Number(proc.resourceUsage()?.cpuTime.total ?? 0));
  let json: Run["json"];
  try {
    json = JSON.parse(stdout) as Run["json"];
  } catch {
    json = { ok: false, code: "unparsable", error: stdout.slice(0, 200) };
  }
  return { json, stderr, ms: performance.now() - started };
}

const brief = (r: Run) => JSON.stringify(r.json).slice(0, 300);

async function until(fn: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await fn()) return true;
    await Bun.sleep(50);
  }
  return fn();
}

/** A copy of bp at its own path, as an installation an upgrade replaces. */
function installCopy(h: Home): string {
  mkdirSync(join(h.root, "bin"), { recursive: true });
  const bin = join(h.root, "bin", "bp");
  copyFileSync(BP, bin);
  chmodSync(bin, 0o755);
  return bin;
}

function launchArgs(): string[] {
  return ["launch", "--headless", "--executable", requireChromium()];
}

/**
 * Item 4: start from a copy, replace the file ('cp --remove-destination'), then every reply says
 * the broker is another build, and the new file's 'bp disconnect' stops it and its Chromium.
 */
export async function upgradeScenario(): Promise<string | undefined> {
  const h = makeHome();
  try {
    const bin = installCopy(h);
    const l = await h.run(launchArgs(), { bin });
    if (l.json.ok !== true) return `launch: ${brief(l)}`;
    const broker = h.brokerPid() ?? 0;
    const chromium = browsersUnder(h.home);
    if (Bun.spawnSync(["cp", "--remove-destination", BP, bin]).exitCode !== 0) return "cp --remove-destination failed";
    // The broker notices within its one-second sweep.
    let hinted: Run | undefined;
    await until(async () => {
      hinted = await h.run(["tabs"], { bin });
      return hinted.json.hints?.some((x) => x.type === "broker_outdated") === true;
    }, 4000);
    if (!hinted?.json.hints?.some((x) => x.type === "broker_outdated"))
      return `no broker_outdated hint after the replacement: ${hinted ? brief(hinted) : ""}`;
    const failed = await h.run(["click", "1"], { bin });
    if (failed.json.ok !== false || !String(failed.json.hint ?? "").includes("bp disconnect"))
      return `a failure does not say the broker is outdated: ${brief(failed)}`;
    const d = await h.run(["disconnect"], { bin });
    if (d.json.brokerStopped !== true) return `disconnect from the replaced file: ${brief(d)}`;
    if (!(await until(() => !alive(broker) && chromium.every((p) => !alive(p)), 15_000)))
      return `broker ${alive(broker) ? "alive" : "gone"}, launched Chromium ${chromium.some(alive) ? "alive" : "gone"} 15 s after disconnect`;
    return undefined;
  } finally {
    await h.cleanup();
  }
}

/** Item 4: a broker whose last agent is gone (its lease ran out) stops its launched browser and exits. */
export async function idleLaunchedScenario(): Promise<string | undefined> {
  const h = makeHome({ BROWSER_PILOT_IDLE_MS: "1500", BROWSER_PILOT_LEASE_MS: "2000" });
  try {
    const l = await h.run(launchArgs());
    if (l.json.ok !== true) return `launch: ${brief(l)}`;
    const broker = h.brokerPid() ?? 0;
    const chromium = browsersUnder(h.home);
    if (chromium.length !== 1) return `${chromium.length} launched Chromium processes`;
    if (!(await until(() => !alive(broker) && chromium.every((p) => !alive(p)), 20_000)))
      return `broker ${alive(broker) ? "alive" : "gone"}, launched Chromium ${chromium.some(alive) ? "alive" : "gone"} 20 s after the last agent's lease ran out`;
    return undefined;
  } finally {
    await h.cleanup();
  }
}

/** Item 5: the broker's file deleted, then the browser connection lost: a new launch works, one Chromium. */
export async function deletedExecutableScenario(): Promise<string | undefined> {
  const h = makeHome();
  try {
    const bin = installCopy(h);
    const l = await h.run(launchArgs(), { bin });
    if (l.json.ok !== true) return `launch: ${brief(l)}`;
    rmSync(bin);
    for (const pid of processesFor(h.home, "janitor")) await killAndWait(pid, "SIGKILL");
    await Bun.sleep(300);
    const again = await h.run(launchArgs());
    if (again.json.ok !== true) return `launch after the executable was deleted: ${brief(again)}`;
    const tabs = await h.run(["open", "data:text/html,<title>x</title>x", "--new"]);
    if (tabs.json.ok !== true) return `open after relaunch: ${brief(tabs)}`;
    const n = browsersUnder(h.home).filter(alive).length;
    return n === 1 ? undefined : `${n} launched Chromium processes after the relaunch`;
  } finally {
    await h.cleanup();
  }
}

/** The kinds of broken locator, each made at `path`. */
export const LOCATOR_KINDS: Record<string, (path: string) => void> = {
  truncated: (p) => writeFileSync(p, readFileSync(p, "utf8").slice(0, 20)),
  empty: (p) => writeFileSync(p, ""),
  binary: (p) => writeFileSync(p, Buffer.from(Array.from({ length: 512 }, (_, i) => (i * 37) % 256))),
  "JSON null": (p) => writeFileSync(p, "null"),
  "JSON of another shape": (p) => writeFileSync(p, '{"schemaVersion":1,"pid":"x"}'),
  directory: (p) => {
    rmSync(p);
    mkdirSync(p);
  },
  FIFO: (p) => {
    rmSync(p);
    Bun.spawnSync(["mkfifo", p]);
  },
  "50 MB file": (p) => writeFileSync(p, Buffer.alloc(50 * 1024 * 1024, 0x7b)),
  "directory with a file in it (cannot be repaired)": (p) => {
    rmSync(p);
    mkdirSync(p);
    writeFileSync(join(p, "x"), "x");
  },
};

const UNREPAIRABLE = "directory with a file in it (cannot be repaired)";

/**
 * Item 6: a broken locator in front of a live broker. The broker rewrites it (the call reaches
 * the same broker) or, where it cannot, the call names its pid with restart_unresponsive_broker;
 * either within 5 s, never the 20 s start-up deadline.
 */
export async function brokenLocatorScenario(kind: string): Promise<string | undefined> {
  const h = makeHome();
  try {
    const first = await h.run(["commands"]);
    if (first.json.ok !== true) return `commands: ${brief(first)}`;
    const pid = h.brokerPid() ?? 0;
    // One it repairs is found at once; one it cannot is named once it is past starting.
    if (kind === UNREPAIRABLE) await waitPastStartGrace(h);
    LOCATOR_KINDS[kind]?.(join(h.home, "broker-locator.json"));
    const r = await h.run(["tabs"]);
    if (r.ms > 5000) return `${kind}: answered after ${Math.round(r.ms)} ms`;
    const s = await h.run(["status"]);
    const service = s.json.service as { state?: string; pid?: number } | undefined;
    if (kind === UNREPAIRABLE) {
      if (r.json.remediation?.code !== "restart_unresponsive_broker" || r.json.context?.brokerPid !== pid)
        return `${kind}: ${brief(r)}`;
      if (service?.state !== "unresponsive" || service.pid !== pid) return `${kind}: status ${brief(s)}`;
      return undefined;
    }
    // Answered by the live broker: no browser yet, and no remediation about the broker.
    if (r.json.code !== "browser_disconnected" || r.json.remediation?.code !== "connect_browser")
      return `${kind}: ${brief(r)}`;
    if (h.brokerPid() !== pid || processesFor(h.home, "broker").length !== 1) return `${kind}: another broker started`;
    if (service?.state !== "running") return `${kind}: status ${brief(s)}`;
    return undefined;
  } finally {
    await h.cleanup();
  }
}

/** A broker that has held its owner lock for less than 10 s may still be starting; the checks wait past it. */
async function waitPastStartGrace(h: Home): Promise<void> {
  try {
    const lock = JSON.parse(readFileSync(join(h.home, "broker-owner.lock"), "utf8")) as { createdAt: string };
    const wait = Date.parse(lock.createdAt) + 10_500 - Date.now();
    if (wait > 0) await Bun.sleep(wait);
  } catch {
    // no lock: nothing to wait for
  }
}

/** Items 6 and 12: a frozen broker behind a broken locator is named, frozen, with its pid; status recommends SIGCONT. */
export async function frozenBrokenLocatorScenario(): Promise<string | undefined> {
  const h = makeHome();
  try {
    if ((await h.run(["commands"])).json.ok !== true) return "commands failed";
    const pid = h.brokerPid() ?? 0;
    await waitPastStartGrace(h);
    process.kill(pid, "SIGSTOP");
    LOCATOR_KINDS.truncated?.(join(h.home, "broker-locator.json"));
    const r = await h.run(["tabs"]);
    if (r.ms > 5000) return `frozen: answered after ${Math.round(r.ms)} ms`;
    if (
      r.json.remediation?.code !== "restart_unresponsive_broker" ||
      r.json.context?.brokerPid !== pid ||
      r.json.context?.frozen !== true
    )
      return `frozen: ${brief(r)}`;
    const s = await h.run(["status"]);
    const recovery = s.json.recovery as { code?: string; action?: string } | undefined;
    if (recovery?.code !== "restart_unresponsive_broker" || recovery.action !== `kill -CONT ${pid}`)
      return `frozen: status recommends ${JSON.stringify(recovery)}`;
    process.kill(pid, "SIGCONT");
    await Bun.sleep(1500);
    const back = await h.run(["tabs"]);
    if (back.json.remediation?.code !== "connect_browser" || h.brokerPid() !== pid)
      return `after SIGCONT: ${brief(back)}`;
    return undefined;
  } finally {
    await h.cleanup();
  }
}

/** Item 12: a frozen broker with its locator intact: status names it and recommends resuming it. */
export async function frozenStatusScenario(): Promise<string | undefined> {
  const h = makeHome();
  try {
    if ((await h.run(["commands"])).json.ok !== true) return "commands failed";
    const pid = h.brokerPid() ?? 0;
    process.kill(pid, "SIGSTOP");
    const s = await h.run(["status"]);
    const recovery = s.json.recovery as { code?: string; action?: string } | undefined;
    const service = s.json.service as { state?: string; pid?: number; frozen?: boolean } | undefined;
    if (service?.state !== "unresponsive" || service.pid !== pid || service.frozen !== true)
      return `status service ${JSON.stringify(service)}`;
    return recovery?.action === `kill -CONT ${pid}` ? undefined : `status recommends ${JSON.stringify(recovery)}`;
  } finally {
    await h.cleanup();
  }
}

/** Item 12: after a remote endpoint dropped, status recommends connecting to it again, not a launch. */
export async function remoteDroppedScenario(): Promise<string | undefined> {
  const user = await startUserBrowser({});
  const h = makeHome();
  try {
    const version = (await (await fetch(`http://127.0.0.1:${user.port}/json/version`)).json()) as {
      webSocketDebuggerUrl: string;
    };
    const c = await h.run(["connect", "--cdp-url", version.webSocketDebuggerUrl]);
    if (c.json.ok !== true) return `connect --cdp-url: ${brief(c)}`;
    await user.stop();
    let s: Run | undefined;
    await until(async () => {
      s = await h.run(["status"]);
      return (s.json.browser as { state?: string } | undefined)?.state === "disconnected";
    }, 10_000);
    const recovery = s?.json.recovery as { code?: string; action?: string } | undefined;
    return recovery?.code === "check_remote_endpoint" && recovery.action === "bp connect --reconnect"
      ? undefined
      : `status after the endpoint dropped: ${s ? brief(s) : ""}`;
  } finally {
    await h.cleanup();
    await user.stop();
  }
}

/** Item 8: a broker started from one HOME, a caller with another: 'browsers' and 'connect' look in the caller's. */
export async function twoHomesScenario(): Promise<string | undefined> {
  const user = await startUserBrowser({});
  const h = makeHome();
  try {
    if ((await h.run(["commands"])).json.ok !== true) return "commands failed";
    const as = { env: { HOME: user.home } };
    const listed = await h.run(["browsers"], as);
    const candidates = (listed.json.browsers ?? []) as { id: string; remoteDebuggingState?: string }[];
    const debuggable = candidates.filter((b) => b.remoteDebuggingState === "enabled");
    if (debuggable.length !== 1) return `browsers in the caller's HOME: ${brief(listed)}`;
    const c = await h.run(["connect", "--browser", debuggable[0]?.id ?? ""], as);
    if (c.json.ok !== true) return `connect --browser <listed id>: ${brief(c)}`;
    if (!c.json.hints?.some((x) => x.type === "home_differs"))
      return `connect does not say the HOMEs differ: ${brief(c)}`;
    return undefined;
  } finally {
    await h.cleanup();
    await user.stop();
  }
}

/**
 * Runs `bp` in a private mount namespace (a user namespace when not root) with a small tmpfs
 * at `dir`: a real read-only or full file system, seen by nothing else on the machine.
 */
function inMountNamespace(
  dir: string,
  mountOptions: string,
  script: string,
  env: Record<string, string>,
): { stdout: string; stderr: string; ok: boolean } {
  const root = process.getuid?.() === 0;
  const cmd = [
    ...(root ? ["unshare", "-m"] : ["unshare", "-rm"]),
    "sh",
    "-c",
    `mount -t tmpfs -o ${mountOptions} tmpfs '${dir}' || exit 97\n${script}`,
  ];
  const p = Bun.spawnSync(cmd, { env, stdout: "pipe", stderr: "pipe" });
  return { stdout: p.stdout.toString(), stderr: p.stderr.toString(), ok: p.exitCode !== 97 && p.exitCode !== null };
}

/** Item 9 (and 11): state directories bp cannot use get state_directory_unusable with the path, at once. */
export const STATE_DIR_KINDS = [
  "read-only file system (EROFS)",
  "full disk (ENOSPC)",
  "disk full but for the start-up lock (the broker cannot write)",
  "BROWSER_PILOT_HOME names a file (EEXIST)",
] as const;

export async function stateDirScenario(kind: (typeof STATE_DIR_KINDS)[number]): Promise<string | undefined> {
  const root = mkdtempSync(join(tmpdir(), "bp-statedir-"));
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: root, BROWSER_PILOT_IDLE_MS: "5000" };
  try {
    let out: string;
    let reason: string | undefined;
    let path: string;
    const started = performance.now();
    if (kind === "BROWSER_PILOT_HOME names a file (EEXIST)") {
      path = join(root, "file");
      writeFileSync(path, "x");
      out = JSON.stringify((await runBp(BP, ["tabs"], { ...env, BROWSER_PILOT_HOME: path })).json);
      reason = "EEXIST";
    } else {
      const mnt = join(root, "mnt");
      mkdirSync(mnt);
      path = join(mnt, "home");
      const full = kind !== "read-only file system (EROFS)";
      // Full: the home exists, then the disk fills up; the start-up lock can be created but not
      // written. One page left: the CLI's lock fits, the broker's owner lock and locator do not.
      const spare = kind === "disk full but for the start-up lock (the broker cannot write)";
      const fill = `${spare ? `dd if=/dev/zero of='${mnt}/spare' bs=4096 count=1 2>/dev/null; ` : ""}dd if=/dev/zero of='${mnt}/fill' bs=4096 2>/dev/null;${spare ? ` rm '${mnt}/spare';` : ""}`;
      const script = full
        ? `mkdir -m 700 '${path}' && ${fill} BROWSER_PILOT_HOME='${path}' '${BP}' tabs; echo; ls -A '${path}'`
        : `BROWSER_PILOT_HOME='${path}' '${BP}' tabs`;
      const r = inMountNamespace(mnt, full ? "size=256k,mode=0755" : "ro,size=64k", script, env);
      if (!r.ok) return `cannot mount a tmpfs in a private namespace (unshare: ${r.stderr.trim().slice(0, 200)})`;
      const lines = r.stdout.split("\n");
      out = lines[0] ?? "";
      if (full && lines.slice(1).some((l) => l.includes("startup.lock") || l.includes("broker-owner.lock")))
        return `a failed start left ${lines.slice(1).join(" ").trim()}`;
      // The broker's own errno stays in its log (which a full disk may not take).
      reason = spare ? undefined : full ? "ENOSPC" : "EROFS";
    }
    const ms = performance.now() - started;
    const j = JSON.parse(out || "{}") as Run["json"];
    if (
      j.code !== "state_directory_unusable" ||
      j.remediation?.code !== "fix_state_directory" ||
      j.context?.reason !== reason ||
      !String(j.context?.path ?? "").startsWith(path)
    )
      return `${kind}: ${out.slice(0, 300)}`;
    return ms > 5000 ? `${kind}: answered after ${Math.round(ms)} ms` : undefined;
  } finally {
    for (const pid of processesFor(join(root, "mnt", "home"), "broker")) await killAndWait(pid, "SIGKILL");
    rmSync(root, { recursive: true, force: true });
  }
}

/** Item 11: an empty start-up lock a failed start left is stale: the next start does not wait 20 s. */
export async function emptyStartupLockScenario(): Promise<string | undefined> {
  const h = makeHome();
  try {
    mkdirSync(h.home, { recursive: true, mode: 0o700 });
    const lock = join(h.home, "startup.lock");
    writeFileSync(lock, "", { mode: 0o600 });
    const past = new Date(Date.now() - 3000);
    utimesSync(lock, past, past);
    const r = await h.run(["tabs"]);
    if (r.json.remediation?.code !== "connect_browser") return `after an empty startup.lock: ${brief(r)}`;
    return r.ms > 5000 ? `answered after ${Math.round(r.ms)} ms` : undefined;
  } finally {
    await h.cleanup();
  }
}

/** Item 16: an empty BROWSER_PILOT_HOME is refused; a home bp creates is said on stderr. */
export async function homeValueScenario(): Promise<string | undefined> {
  const h = makeHome();
  try {
    const empty = await h.run(["tabs"], { env: { BROWSER_PILOT_HOME: "" } });
    if (empty.json.code !== "invalid_argument" || empty.json.context?.field !== "BROWSER_PILOT_HOME")
      return `BROWSER_PILOT_HOME='': ${brief(empty)}`;
    const deep = join(h.root, "a", "b", "c");
    const created = await h.run(["commands"], { env: { BROWSER_PILOT_HOME: deep } });
    if (created.json.ok !== true || !created.stderr.includes(`created the state directory ${deep}`))
      return `a created home is not said: ${created.stderr.slice(0, 200)}`;
    for (const pid of processesFor(deep, "broker")) await killAndWait(pid);
    return undefined;
  } finally {
    await h.cleanup();
  }
}
