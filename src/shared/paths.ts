import { homedir, tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import { invalidArgument } from "./errors.ts";

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
  if (override !== undefined && override !== "") {
    if (!isAbsolute(override)) {
      throw invalidArgument("BROWSER_PILOT_HOME", "BROWSER_PILOT_HOME must be an absolute path.");
    }
    return override;
  }
  if (process.platform === "win32") {
    const local = env.LOCALAPPDATA ?? join(homedir(), "AppData", "Local");
    return join(local, "Browser Pilot");
  }
  return join(env.HOME ?? homedir(), ".browser-pilot");
}

export function resolvePaths(env: Record<string, string | undefined> = process.env): BpPaths {
  const home = resolveHome(env);
  let runtimeDir = home;
  if (Buffer.byteLength(join(home, "broker.sock")) > MAX_SOCKET_PATH) {
    const uid = typeof process.getuid === "function" ? process.getuid() : 0;
    // Bun's built-in hasher: importing node:crypto costs every CLI call ~2 ms of start-up.
    const digest = new Bun.CryptoHasher("sha256").update(home).digest("hex").slice(0, 16);
    runtimeDir = join(tmpdir().length < 40 ? tmpdir() : "/tmp", `bp-${uid}-${digest}`);
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
