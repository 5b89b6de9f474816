import type * as NodeOs from "node:os";
import type * as NodePath from "node:path";
import { invalidArgument } from "./errors.ts";

/** Each agent step is a new CLI process and node:path plus node:os cost ~0.6 ms: a plain POSIX home needs neither. */
const nodePath = (): typeof NodePath => import.meta.require("node:path");
const nodeOs = (): typeof NodeOs => import.meta.require("node:os");
const POSIX = process.platform !== "win32";

/** Already normalised (path.join would change nothing); string tests, as compiling a regex costs ~0.1 ms. */
function plainAbsolute(p: string): boolean {
  if (p.length < 2 || !p.startsWith("/") || p.endsWith("/") || p.endsWith("/.") || p.endsWith("/..")) return false;
  return !p.includes("//") && !p.includes("/./") && !p.includes("/../");
}

export function isAbsolute(p: string): boolean {
  return POSIX ? p.startsWith("/") : nodePath().isAbsolute(p);
}

function join(dir: string, ...names: string[]): string {
  return POSIX && plainAbsolute(dir) ? [dir, ...names].join("/") : nodePath().join(dir, ...names);
}

/** Unix socket paths are limited to ~104 bytes (macOS) / 108 (Linux); stay safely below. */
const MAX_SOCKET_PATH = 96;

export interface BpPaths {
  home: string;
  runtimeDir: string;
  socket: string;
  locator: string;
  startupLock: string;
  ownerLock: string;
  brokerLog: string;
  profiles: string;
}

export function resolveHome(env: Record<string, string | undefined> = process.env): string {
  const override = env.BROWSER_PILOT_HOME;
  if (override !== undefined) {
    // An empty value (a variable set from an unset one) must not silently mean the shared default home.
    if (!isAbsolute(override)) {
      throw invalidArgument(
        "BROWSER_PILOT_HOME",
        override === ""
          ? "BROWSER_PILOT_HOME is set but empty; set it to an absolute path, or unset it for the default home."
          : "BROWSER_PILOT_HOME must be an absolute path.",
      );
    }
    return override;
  }
  if (process.platform === "win32") {
    const local = env.LOCALAPPDATA ?? join(nodeOs().homedir(), "AppData", "Local");
    return join(local, "Browser Pilot");
  }
  return join(env.HOME ?? nodeOs().homedir(), ".browser-pilot");
}

export function resolvePaths(env: Record<string, string | undefined> = process.env): BpPaths {
  const home = resolveHome(env);
  let runtimeDir = home;
  if (Buffer.byteLength(join(home, "broker.sock")) > MAX_SOCKET_PATH) {
    const uid = typeof process.getuid === "function" ? process.getuid() : 0;
    // Bun's built-in hasher: importing node:crypto costs every CLI call ~2 ms of start-up.
    const digest = new Bun.CryptoHasher("sha256").update(home).digest("hex").slice(0, 16);
    const tmp = nodeOs().tmpdir();
    runtimeDir = join(tmp.length < 40 ? tmp : "/tmp", `bp-${uid}-${digest}`);
  }
  return {
    home,
    runtimeDir,
    socket: join(runtimeDir, "broker.sock"),
    locator: join(home, "broker-locator.json"),
    startupLock: join(home, "startup.lock"),
    ownerLock: join(runtimeDir, "broker-owner.lock"),
    brokerLog: join(home, "broker.log"),
    profiles: join(home, "profiles"),
  };
}
