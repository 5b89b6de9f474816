/** Where each Chromium-family browser keeps its profile and binary, per OS; array order is launch preference. */
import os from "node:os";
import path from "node:path";
import type { BrowserDefinition, DiscoveryOptions } from "./types.ts";

type Env = Record<string, string | undefined>;

interface Product {
  key: string;
  product: string;
  channel: string;
}

const CHROME_STABLE: Product = { key: "chrome-stable", product: "Google Chrome", channel: "stable" };
const CHROME_BETA: Product = { key: "chrome-beta", product: "Google Chrome", channel: "beta" };
const CHROME_DEV: Product = { key: "chrome-dev", product: "Google Chrome", channel: "dev" };
const CHROME_CANARY: Product = { key: "chrome-canary", product: "Google Chrome", channel: "canary" };
const CHROMIUM: Product = { key: "chromium-stable", product: "Chromium", channel: "stable" };
const EDGE_STABLE: Product = { key: "edge-stable", product: "Microsoft Edge", channel: "stable" };
const EDGE_BETA: Product = { key: "edge-beta", product: "Microsoft Edge", channel: "beta" };
const EDGE_DEV: Product = { key: "edge-dev", product: "Microsoft Edge", channel: "dev" };
const BRAVE: Product = { key: "brave-stable", product: "Brave", channel: "stable" };

/** Home directory as the browser would see it; tests pass a fake HOME through env. */
export function resolveHome(opts: DiscoveryOptions = {}): string {
  const env = opts.env ?? process.env;
  if (opts.home) return opts.home;
  const platform = opts.platform ?? process.platform;
  const fromEnv = platform === "win32" ? (env.USERPROFILE ?? env.HOME) : env.HOME;
  return fromEnv && fromEnv.length > 0 ? fromEnv : os.homedir();
}

export function browserDefinitions(opts: DiscoveryOptions = {}): BrowserDefinition[] {
  const env = opts.env ?? process.env;
  const platform = opts.platform ?? process.platform;
  const home = resolveHome(opts);
  if (platform === "darwin") return macDefinitions(home);
  if (platform === "win32") return windowsDefinitions(env, home);
  return linuxDefinitions(env, home);
}

function linuxDefinitions(env: Env, home: string): BrowserDefinition[] {
  const p = path.posix;
  // Chrome honours XDG_CONFIG_HOME (only when absolute, like the XDG spec says).
  const xdg = env.XDG_CONFIG_HOME;
  const config = xdg && p.isAbsolute(xdg) ? xdg : p.join(home, ".config");
  const def = (product: Product, dir: string, pathNames: string[], executables: string[]): BrowserDefinition => ({
    ...product,
    userDataDir: p.join(config, dir),
    pathNames,
    executables,
  });
  return [
    def(
      CHROME_STABLE,
      "google-chrome",
      ["google-chrome", "google-chrome-stable"],
      ["/opt/google/chrome/chrome", "/usr/bin/google-chrome", "/usr/bin/google-chrome-stable"],
    ),
    // Debian's /usr/bin/chromium execs the real binary, so the pid we spawn is still the browser's.
    def(
      CHROMIUM,
      "chromium",
      ["chromium", "chromium-browser"],
      ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/lib/chromium/chromium", "/snap/bin/chromium"],
    ),
    def(
      EDGE_STABLE,
      "microsoft-edge",
      ["microsoft-edge", "microsoft-edge-stable"],
      ["/opt/microsoft/msedge/msedge", "/usr/bin/microsoft-edge"],
    ),
    def(
      BRAVE,
      "BraveSoftware/Brave-Browser",
      ["brave-browser", "brave-browser-stable", "brave"],
      ["/opt/brave.com/brave/brave", "/usr/bin/brave-browser", "/snap/bin/brave"],
    ),
    def(
      CHROME_BETA,
      "google-chrome-beta",
      ["google-chrome-beta"],
      ["/opt/google/chrome-beta/chrome", "/usr/bin/google-chrome-beta"],
    ),
    def(
      CHROME_DEV,
      "google-chrome-unstable",
      ["google-chrome-unstable"],
      ["/opt/google/chrome-unstable/chrome", "/usr/bin/google-chrome-unstable"],
    ),
    def(
      CHROME_CANARY,
      "google-chrome-canary",
      ["google-chrome-canary"],
      ["/opt/google/chrome-canary/chrome", "/usr/bin/google-chrome-canary"],
    ),
    def(
      EDGE_BETA,
      "microsoft-edge-beta",
      ["microsoft-edge-beta"],
      ["/opt/microsoft/msedge-beta/msedge", "/usr/bin/microsoft-edge-beta"],
    ),
    def(
      EDGE_DEV,
      "microsoft-edge-dev",
      ["microsoft-edge-dev"],
      ["/opt/microsoft/msedge-dev/msedge", "/usr/bin/microsoft-edge-dev"],
    ),
  ];
}

function macDefinitions(home: string): BrowserDefinition[] {
  const p = path.posix;
  const support = p.join(home, "Library", "Application Support");
  // Users without admin rights drag apps into ~/Applications, so look there too.
  const appDirs = ["/Applications", p.join(home, "Applications")];
  const def = (product: Product, dir: string, app: string): BrowserDefinition => ({
    ...product,
    userDataDir: p.join(support, dir),
    executables: appDirs.map((d) => p.join(d, `${app}.app`, "Contents", "MacOS", app)),
    pathNames: [],
  });
  return [
    def(CHROME_STABLE, "Google/Chrome", "Google Chrome"),
    def(CHROMIUM, "Chromium", "Chromium"),
    def(EDGE_STABLE, "Microsoft Edge", "Microsoft Edge"),
    def(BRAVE, "BraveSoftware/Brave-Browser", "Brave Browser"),
    def(CHROME_BETA, "Google/Chrome Beta", "Google Chrome Beta"),
    def(CHROME_DEV, "Google/Chrome Dev", "Google Chrome Dev"),
    def(CHROME_CANARY, "Google/Chrome Canary", "Google Chrome Canary"),
    def(EDGE_BETA, "Microsoft Edge Beta", "Microsoft Edge Beta"),
    def(EDGE_DEV, "Microsoft Edge Dev", "Microsoft Edge Dev"),
  ];
}

function windowsDefinitions(env: Env, home: string): BrowserDefinition[] {
  const p = path.win32;
  const local = winEnv(env, "LOCALAPPDATA") ?? p.join(home, "AppData", "Local");
  // Per-user installs land in LOCALAPPDATA, machine-wide ones in either Program Files.
  const installRoots = [
    local,
    winEnv(env, "PROGRAMFILES"),
    winEnv(env, "PROGRAMFILES(X86)"),
    winEnv(env, "PROGRAMW6432"),
  ].filter((r): r is string => r !== undefined);
  const roots = [...new Set(installRoots)];
  const def = (product: Product, dir: string, exe: string): BrowserDefinition => ({
    ...product,
    userDataDir: p.join(local, dir, "User Data"),
    executables: roots.map((r) => p.join(r, dir, "Application", exe)),
    pathNames: [],
  });
  return [
    def(CHROME_STABLE, "Google\\Chrome", "chrome.exe"),
    def(EDGE_STABLE, "Microsoft\\Edge", "msedge.exe"),
    def(CHROMIUM, "Chromium", "chrome.exe"),
    def(BRAVE, "BraveSoftware\\Brave-Browser", "brave.exe"),
    def(CHROME_BETA, "Google\\Chrome Beta", "chrome.exe"),
    def(CHROME_DEV, "Google\\Chrome Dev", "chrome.exe"),
    // Canary's directory name is historical ("side by side").
    def(CHROME_CANARY, "Google\\Chrome SxS", "chrome.exe"),
    def(EDGE_BETA, "Microsoft\\Edge Beta", "msedge.exe"),
    def(EDGE_DEV, "Microsoft\\Edge Dev", "msedge.exe"),
  ];
}

/** Windows variable names are case-insensitive but a caller's env object is not: look names up as Windows would. */
function winEnv(env: Env, name: string): string | undefined {
  for (const [key, value] of Object.entries(env)) {
    if (key.toUpperCase() === name && value) return value;
  }
  return undefined;
}
