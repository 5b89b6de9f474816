/**
 * @playwright/cli adapter (Node client + per-session Node daemon). Runs in a private workspace
 * whose `.playwright/cli.config.json` points Playwright at /usr/bin/chromium without the sandbox
 * and with closed-network flags; private HOME/XDG_CACHE_HOME; the npm update check is off
 * (peers.md §12). Sessions are `-s=<name>`: one daemon and one browser each.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cleanEnv, descendants, exec, markedPids, signalMarked, waitGone, type Exec } from "../lib/proc.ts";
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

export class PlaywrightCliTool implements Tool {
  readonly id = "playwright-cli";
  version = "?";
  skipped?: string;
  missing = new Set<Cap>();
  private readonly script: string;
  private node = "";
  private dir = "";

  constructor(root: string) {
    this.script = join(root, "node_modules/@playwright/cli/playwright-cli.js");
  }

  cmd: Commands = {
    version: () => ["--version"],
    eval: (expr) => ["eval", expr],
    status: () => ["list"],
    navigate: (url) => ["goto", url],
    back: ["go-back"],
    firstOpen: (url) => ["open", url],
    snapshots: [{ key: "all", label: "snapshot", args: ["snapshot"] }],
    click: (ref) => ["click", ref],
    drag: (from, to) => ["drag", from, to],
    type: (ref, text) => ["fill", ref, text],
    hover: (ref) => ["hover", ref],
    select: (ref, option) => ["select", ref, option],
    screenshot: (file) => [`screenshot`, `--filename=${file}`],
    observeAfterAction: ["snapshot"],
  };

  private get workspace(): string {
    return join(this.dir, "ws");
  }

  private env(): Record<string, string> {
    // TMPDIR too: Playwright's temporary browser profiles and artifacts go there and can outlive a session.
    return cleanEnv({
      HOME: this.dir,
      TMPDIR: join(this.dir, "tmp"),
      XDG_CACHE_HOME: join(this.dir, "cache"),
      NO_UPDATE_NOTIFIER: "1",
    });
  }

  async init(): Promise<void> {
    if (!existsSync(this.script)) {
      this.skipped = "not installed (npm run bench:peers)";
      return;
    }
    const node = Bun.which("node");
    if (!node) {
      this.skipped = "node not found on PATH";
      return;
    }
    this.node = node;
    this.dir = mkdtempSync(join(tmpdir(), "bp-bench-pw-"));
    mkdirSync(join(this.workspace, ".playwright"), { recursive: true });
    mkdirSync(join(this.dir, "tmp"));
    const config = {
      browser: {
        browserName: "chromium",
        launchOptions: { executablePath: CHROMIUM, chromiumSandbox: false, args: CLOSED_NETWORK_FLAGS },
      },
    };
    writeFileSync(join(this.workspace, ".playwright/cli.config.json"), JSON.stringify(config));
    const v = await exec([this.node, this.script, "--version"], { env: this.env(), cwd: this.workspace });
    this.version = v.out.trim() || "?";
    try {
      const core = JSON.parse(readFileSync(join(this.script, "../../../playwright-core/package.json"), "utf8")) as {
        version?: string;
      };
      if (core.version) this.version += ` (playwright-core ${core.version})`;
    } catch {
      // version of the engine is a nicety
    }
  }

  run(args: string[], session?: string): Promise<Exec> {
    return exec([this.node, this.script, `-s=${session ?? MAIN}`, ...args], {
      env: this.env(),
      cwd: this.workspace,
      timeoutMs: 120_000,
    });
  }

  ok(e: Exec): boolean {
    return e.code === 0 && !e.timedOut && !e.out.includes("### Error");
  }

  async start(url: string): Promise<void> {
    const e = await this.run(["open", url]);
    if (!this.ok(e)) throw new Error(`playwright-cli open: ${errorText(e)}`);
  }

  findRef(out: string, name: string): string | undefined {
    return yamlRef(out, name);
  }

  private sessionPids(session: string): number[] {
    return markedPids(
      (cmd, environ) =>
        environ.includes(`HOME=${this.dir}\0`) && cmd.includes("cliDaemon") && cmd.endsWith(` ${session}`),
    );
  }

  daemons(): { label: "daemon" | "janitor"; pid: number }[] {
    return this.sessionPids(MAIN).map((pid) => ({ label: "daemon" as const, pid }));
  }

  async coldStart(url: string): Promise<Sample> {
    const e = await this.run(["open", url], COLD);
    return this.ok(e) ? { ms: e.ms, ok: true } : { ms: e.ms, ok: false, error: errorText(e) };
  }

  private async closeSession(session: string): Promise<void> {
    const tree = this.sessionPids(session).flatMap((pid) => [pid, ...descendants(pid)]);
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
    await exec([this.node, this.script, "close-all"], { env: this.env(), cwd: this.workspace });
    const mine = () => markedPids((_cmd, environ) => environ.includes(`HOME=${this.dir}\0`));
    if (!(await waitGone(mine(), 10_000))) signalMarked(mine(), "SIGTERM");
    if (!(await waitGone(mine(), 5000))) signalMarked(mine(), "SIGKILL");
    rmSync(this.dir, { recursive: true, force: true });
  }
}
