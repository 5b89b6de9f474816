/**
 * agent-browser adapter (npm `agent-browser`, native Rust CLI + daemon). Runs the platform binary
 * from the npm tarball directly, as a global install does. Private HOME and socket dir; the
 * browser is /usr/bin/chromium with closed-network flags; the CVE feed check is off
 * (peers.md §12). Sessions are `AGENT_BROWSER_SESSION` names: one daemon and one browser each.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { alive, cleanEnv, descendants, exec, markedPids, signalMarked, waitGone, type Exec } from "../lib/proc.ts";
import {
  CHROMIUM,
  CLOSED_NETWORK_FLAGS,
  errorText,
  yamlRef,
  type Cap,
  type Commands,
  type Sample,
  type Tool,
} from "./types.ts";

const MAIN = "bench";
const COLD = "cold";

export class AgentBrowserTool implements Tool {
  readonly id = "agent-browser";
  readonly selectors = true;
  version = "?";
  skipped?: string;
  missing = new Set<Cap>();
  private readonly pkg: string;
  private bin = "";
  private dir = "";

  constructor(root: string) {
    this.pkg = join(root, "node_modules/agent-browser");
  }

  cmd: Commands = {
    version: () => ["--version"],
    eval: (expr) => ["eval", expr],
    status: () => ["session", "info"],
    navigate: (url) => ["open", url],
    back: ["back"],
    firstOpen: (url) => ["open", url],
    snapshots: [{ key: "all", label: "snapshot -i", args: ["snapshot", "-i"] }],
    click: (ref) => ["click", `@${ref}`],
    drag: (from, to) => ["drag", ...[from, to].map((x) => (x.startsWith("#") ? x : `@${x}`))],
    type: (ref, text) => ["fill", `@${ref}`, text],
    hover: (ref) => ["hover", `@${ref}`],
    select: (ref, option) => ["select", `@${ref}`, option],
    screenshot: (file) => ["screenshot", file],
    observeAfterAction: ["snapshot", "-i"],
  };

  private get sockDir(): string {
    return join(this.dir, "sock");
  }

  private env(session: string): Record<string, string> {
    return cleanEnv({
      HOME: this.dir,
      // Its temporary Chromium profiles (agent-browser-chrome-<uuid>) stay inside our dir.
      TMPDIR: join(this.dir, "tmp"),
      AGENT_BROWSER_SOCKET_DIR: this.sockDir,
      AGENT_BROWSER_SESSION: session,
      AGENT_BROWSER_EXECUTABLE_PATH: CHROMIUM,
      // --no-sandbox is added by agent-browser itself when running as root.
      AGENT_BROWSER_ARGS: ["--no-sandbox", ...CLOSED_NETWORK_FLAGS].join(","),
      AGENT_BROWSER_NO_VERSION_CHECK: "1",
      AGENT_BROWSER_IDLE_TIMEOUT_MS: "900000",
    });
  }

  async init(): Promise<void> {
    const ext = process.platform === "win32" ? ".exe" : "";
    const native = join(this.pkg, "bin", `agent-browser-${process.platform}-${process.arch}${ext}`);
    if (!existsSync(native)) {
      this.skipped = existsSync(this.pkg)
        ? `no ${process.platform}-${process.arch} binary in the package`
        : "not installed (npm run bench:peers)";
      return;
    }
    this.bin = native;
    this.dir = mkdtempSync(join(tmpdir(), "bp-bench-ab-"));
    mkdirSync(this.sockDir, { mode: 0o700 });
    mkdirSync(join(this.dir, "tmp"));
    const v = await exec([this.bin, "--version"], { env: this.env(MAIN) });
    this.version = v.out.trim().replace(/^agent-browser\s+/, "") || "?";
  }

  run(args: string[], session?: string): Promise<Exec> {
    return exec([this.bin, ...args], { env: this.env(session ?? MAIN), timeoutMs: 120_000 });
  }

  ok(e: Exec): boolean {
    return e.code === 0 && !e.timedOut;
  }

  async start(url: string): Promise<void> {
    const e = await this.run(["open", url]);
    if (!this.ok(e)) throw new Error(`agent-browser open: ${errorText(e)}`);
  }

  findRef(out: string, name: string): string | undefined {
    return yamlRef(out, name);
  }

  private daemonPid(session: string): number | undefined {
    try {
      const pid = Number(readFileSync(join(this.sockDir, `${session}.pid`), "utf8").trim());
      return Number.isInteger(pid) && pid > 0 && alive(pid) ? pid : undefined;
    } catch {
      return undefined;
    }
  }

  daemons(): { label: "daemon" | "janitor"; pid: number }[] {
    const pid = this.daemonPid(MAIN);
    return pid === undefined ? [] : [{ label: "daemon", pid }];
  }

  async coldStart(url: string): Promise<Sample> {
    const e = await this.run(["open", url], COLD);
    return this.ok(e) ? { ms: e.ms, ok: true } : { ms: e.ms, ok: false, error: errorText(e) };
  }

  private async closeSession(session: string): Promise<void> {
    const pid = this.daemonPid(session);
    const tree = pid === undefined ? [] : [pid, ...descendants(pid)];
    await this.run(["close"], session);
    if (!(await waitGone(tree, 10_000))) signalMarked(tree, "SIGTERM");
  }

  coldStop(): Promise<void> {
    return this.closeSession(COLD);
  }

  endAgent(session: string): Promise<void> {
    return this.closeSession(session);
  }

  async shutdown(): Promise<void> {
    if (!this.dir) return;
    await this.run(["close", "--all"]);
    const mine = () => markedPids((_cmd, environ) => environ.includes(`HOME=${this.dir}\0`));
    if (!(await waitGone(mine(), 10_000))) signalMarked(mine(), "SIGTERM");
    if (!(await waitGone(mine(), 5000))) signalMarked(mine(), "SIGKILL");
    rmSync(this.dir, { recursive: true, force: true });
  }
}
