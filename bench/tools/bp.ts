/**
 * bp adapter: the compiled executable with a private BROWSER_PILOT_HOME (one for the warm
 * session and the parallel agents, one for cold starts). Sessions are client keys.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { alive, cleanEnv, cmdline, descendants, exec, signalMarked, waitGone, type Exec } from "../lib/proc.ts";
import { CHROMIUM, errorText, type Cap, type Commands, type Sample, type Tool } from "./types.ts";
import { readListing } from "../../src/protocol/elements.ts";

const MAIN_KEY = "bench-main";
/** Enough to cover every control of the largest fixture (bp's maximum). */
export const BP_FULL_LIMIT = "10000";

export class BpTool implements Tool {
  readonly id = "bp";
  version = "?";
  skipped?: string;
  missing = new Set<Cap>();
  private readonly built: string;
  private bin = "";
  private dir = "";
  private typeClear = false;
  private readonly keys = new Set<string>([MAIN_KEY]);
  /** Homes of agents run with a broker and browser of their own (the parallel scenario's comparison). */
  private readonly isolated = new Set<string>();

  /** `extraEnv`: more environment for every bp process (bench/phases.ts: BROWSER_PILOT_PHASES). */
  /** `built`: another executable than dist/bp (bench/ab.ts). */
  constructor(
    root: string,
    private readonly extraEnv: Record<string, string> = {},
    built?: string,
  ) {
    this.built = built ?? join(root, "dist/bp");
  }

  cmd: Commands = {
    version: () => ["--version"],
    eval: (expr) => ["eval", expr],
    status: () => ["status"],
    navigate: (url) => ["open", url],
    navigateAndLook: (url) => ["open", url, "--snapshot"],
    back: ["back"],
    backAndLook: ["back", "--snapshot"],
    firstOpen: (url) => ["open", url, "--new"],
    snapshots: [
      { key: "default", label: "snapshot", args: ["snapshot"] },
      { key: "all", label: `snapshot --limit ${BP_FULL_LIMIT}`, args: ["snapshot", "--limit", BP_FULL_LIMIT] },
    ],
    click: (ref) => ["click", ref],
    drag: (from, to) => ["drag", from, to],
    hover: (ref) => ["hover", ref],
    select: (ref, option) => ["select", ref, option],
    type: (ref, text) => (this.typeClear ? ["type", ref, text, "--clear"] : ["type", ref, text]),
    // bp keeps every output inside BROWSER_PILOT_OUTPUT_DIR, so the file goes to our private one.
    // --force: the bench writes the same file on every run (an existing name is otherwise refused).
    screenshot: (file) => ["screenshot", join(this.dir, "out", basename(file)), "--force"],
  };

  private home(name: "warm" | "cold"): string {
    return join(this.dir, name);
  }

  private env(home: string, key: string): Record<string, string> {
    return cleanEnv({
      BROWSER_PILOT_HOME: home,
      BROWSER_PILOT_CLIENT_KEY: key,
      BROWSER_PILOT_CHROME: CHROMIUM,
      BROWSER_PILOT_OUTPUT_DIR: join(this.dir, "out"),
      // The broker must not idle out while peers take their turn.
      BROWSER_PILOT_IDLE_MS: "900000",
      ...this.extraEnv,
    });
  }

  private exec(home: string, key: string, args: string[]): Promise<Exec> {
    return exec([this.bin, ...args], { env: this.env(home, key), timeoutMs: 120_000 });
  }

  async init(): Promise<void> {
    if (!existsSync(this.built)) {
      this.skipped = "dist/bp not built (run npm run build)";
      return;
    }
    this.dir = mkdtempSync(join(tmpdir(), "bp-bench-"));
    for (const d of ["warm", "cold", "out"]) mkdirSync(join(this.dir, d), { mode: 0o700 });
    // Run a private copy: a rebuild of dist/bp during the run must not mix two builds.
    this.bin = join(this.dir, "bp");
    copyFileSync(this.built, this.bin);
    const v = await this.exec(this.home("warm"), MAIN_KEY, ["--version"]);
    this.version = v.out.trim() || "?";
    for (const cap of ["snapshot", "click", "type", "screenshot"] as const) {
      const help = await this.exec(this.home("warm"), MAIN_KEY, [cap, "--help"]);
      if (help.code !== 0) this.missing.add(cap);
      else if (cap === "type") this.typeClear = help.out.includes("--clear");
    }
  }

  async start(url: string): Promise<void> {
    for (const args of [
      ["launch", "--headless"],
      ["open", url, "--new"],
    ]) {
      const e = await this.exec(this.home("warm"), MAIN_KEY, args);
      if (!this.ok(e)) throw new Error(`bp ${args[0]}: ${errorText(e)}`);
    }
  }

  run(args: string[], session?: string): Promise<Exec> {
    const key = session ?? MAIN_KEY;
    this.keys.add(key);
    return this.exec(this.home("warm"), key, args);
  }

  /**
   * One command of an agent that has a broker and browser of its own (a home per agent, started
   * on its first command): how bp fares when agents do not share one browser, as the peers' sessions do not.
   */
  runIsolated(agent: string, args: string[]): Promise<Exec> {
    const home = join(this.dir, `iso-${agent}`);
    if (!this.isolated.has(home)) {
      mkdirSync(home, { recursive: true, mode: 0o700 });
      this.isolated.add(home);
    }
    return this.exec(home, MAIN_KEY, args);
  }

  /** Stops the brokers and browsers runIsolated started (untimed). */
  async endIsolated(): Promise<void> {
    for (const home of this.isolated) await this.stopHome(home, [MAIN_KEY]);
    this.isolated.clear();
  }

  ok(e: Exec): boolean {
    return e.code === 0 && !e.timedOut && !e.out.trimStart().startsWith('{"ok":false');
  }

  findRef(out: string, name: string): string | undefined {
    const found = (v: unknown): string | undefined => {
      if (Array.isArray(v)) {
        for (const x of v) {
          const r = found(x);
          if (r) return r;
        }
      } else if (v && typeof v === "object") {
        const o = v as Record<string, unknown>;
        const ref = o.r ?? o.ref;
        if ((o.n ?? o.name) === name && (typeof ref === "number" || typeof ref === "string")) return String(ref);
        for (const x of Object.values(o)) {
          const r = found(x);
          if (r) return r;
        }
      }
      return undefined;
    };
    try {
      const r = found(readListing(JSON.parse(out) as object));
      if (r) return r;
    } catch {
      // human text
    }
    const line = out.split("\n").find((l) => l.includes(`"${name}"`));
    return line?.match(/^\[(\d+)\]/)?.[1];
  }

  private locatorPid(home: string): number | undefined {
    try {
      const pid = (JSON.parse(readFileSync(join(home, "broker-locator.json"), "utf8")) as { pid?: unknown }).pid;
      return typeof pid === "number" ? pid : undefined;
    } catch {
      return undefined;
    }
  }

  daemons(): { label: "daemon" | "janitor"; pid: number }[] {
    const broker = this.locatorPid(this.home("warm"));
    if (broker === undefined || !alive(broker)) return [];
    const out: { label: "daemon" | "janitor"; pid: number }[] = [{ label: "daemon", pid: broker }];
    const janitor = descendants(broker).find((p) => cmdline(p).includes("--browser-pilot-internal=janitor"));
    if (janitor !== undefined) out.push({ label: "janitor", pid: janitor });
    return out;
  }

  async coldStart(url: string): Promise<Sample> {
    let ms = 0;
    for (const args of [
      ["launch", "--headless"],
      ["open", url, "--new"],
    ]) {
      const e = await this.exec(this.home("cold"), MAIN_KEY, args);
      ms += e.ms;
      if (!this.ok(e)) return { ms, ok: false, error: `${args[0]}: ${errorText(e)}` };
    }
    return { ms, ok: true };
  }

  /** Disconnect every key, then make sure the broker and its children are gone (SIGTERM by pid). */
  private async stopHome(home: string, keys: Iterable<string>): Promise<void> {
    const broker = this.locatorPid(home);
    const tree = broker === undefined ? [] : [broker, ...descendants(broker)];
    for (const key of keys) await this.exec(home, key, ["disconnect"]);
    if (broker !== undefined && !(await waitGone([broker], 5000))) signalMarked([broker], "SIGTERM");
    if (!(await waitGone(tree, 10_000))) signalMarked(tree, "SIGKILL");
  }

  coldStop(): Promise<void> {
    return this.stopHome(this.home("cold"), [MAIN_KEY]);
  }

  async endAgent(session: string): Promise<void> {
    await this.exec(this.home("warm"), session, ["disconnect"]);
    this.keys.delete(session);
  }

  async shutdown(): Promise<void> {
    if (!this.dir) return;
    await this.stopHome(this.home("warm"), this.keys);
    await this.stopHome(this.home("cold"), [MAIN_KEY]);
    await this.endIsolated();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
