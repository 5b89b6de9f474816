import { describe, expect, test } from "bun:test";
import { browserDefinitions, resolveHome } from "./definitions.ts";

const byKey = (platform: NodeJS.Platform, env: Record<string, string>) =>
  new Map(browserDefinitions({ platform, env }).map((d) => [d.key, d]));

describe("browserDefinitions", () => {
  test("every OS knows the same products, with unique keys", () => {
    const keys = (p: NodeJS.Platform) =>
      browserDefinitions({ platform: p, env: { HOME: "/h", USERPROFILE: "C:\\Users\\u" } })
        .map((d) => d.key)
        .sort();
    const linux = keys("linux");
    expect(new Set(linux).size).toBe(linux.length);
    expect(linux).toEqual([
      "brave-stable",
      "chrome-beta",
      "chrome-canary",
      "chrome-dev",
      "chrome-stable",
      "chromium-stable",
      "edge-beta",
      "edge-dev",
      "edge-stable",
    ]);
    expect(keys("darwin")).toEqual(linux);
    expect(keys("win32")).toEqual(linux);
  });

  test("linux: ~/.config data dirs, PATH names and /opt installs", () => {
    const defs = byKey("linux", { HOME: "/home/u" });
    expect(defs.get("chrome-stable")?.userDataDir).toBe("/home/u/.config/google-chrome");
    expect(defs.get("chrome-stable")?.pathNames).toContain("google-chrome-stable");
    expect(defs.get("chrome-stable")?.executables).toContain("/opt/google/chrome/chrome");
    expect(defs.get("chrome-dev")?.userDataDir).toBe("/home/u/.config/google-chrome-unstable");
    expect(defs.get("chromium-stable")?.executables[0]).toBe("/usr/bin/chromium");
    expect(defs.get("chromium-stable")?.pathNames).toEqual(["chromium", "chromium-browser"]);
    expect(defs.get("edge-beta")?.userDataDir).toBe("/home/u/.config/microsoft-edge-beta");
    expect(defs.get("brave-stable")?.userDataDir).toBe("/home/u/.config/BraveSoftware/Brave-Browser");
  });

  test("linux: a relative XDG_CONFIG_HOME is ignored", () => {
    const defs = byKey("linux", { HOME: "/home/u", XDG_CONFIG_HOME: "rel/cfg" });
    expect(defs.get("chromium-stable")?.userDataDir).toBe("/home/u/.config/chromium");
  });

  test("macOS: Application Support and .app bundles in both Applications folders", () => {
    const defs = byKey("darwin", { HOME: "/Users/u" });
    const chrome = defs.get("chrome-stable");
    expect(chrome?.userDataDir).toBe("/Users/u/Library/Application Support/Google/Chrome");
    expect(chrome?.executables).toEqual([
      "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
      "/Users/u/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
    ]);
    expect(defs.get("chrome-canary")?.userDataDir).toBe("/Users/u/Library/Application Support/Google/Chrome Canary");
    expect(defs.get("brave-stable")?.executables[0]).toBe(
      "/Applications/Brave Browser.app/Contents/MacOS/Brave Browser",
    );
  });

  test("windows: LOCALAPPDATA user data, per-user and Program Files installs", () => {
    const defs = byKey("win32", {
      USERPROFILE: "C:\\Users\\u",
      LOCALAPPDATA: "C:\\Users\\u\\AppData\\Local",
      ProgramFiles: "C:\\Program Files",
      "ProgramFiles(x86)": "C:\\Program Files (x86)",
    });
    const chrome = defs.get("chrome-stable");
    expect(chrome?.userDataDir).toBe("C:\\Users\\u\\AppData\\Local\\Google\\Chrome\\User Data");
    expect(chrome?.executables).toEqual([
      "C:\\Users\\u\\AppData\\Local\\Google\\Chrome\\Application\\chrome.exe",
      "C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe",
      "C:\\Program Files (x86)\\Google\\Chrome\\Application\\chrome.exe",
    ]);
    expect(defs.get("chrome-canary")?.userDataDir).toBe("C:\\Users\\u\\AppData\\Local\\Google\\Chrome SxS\\User Data");
    expect(defs.get("edge-stable")?.executables[1]).toBe("C:\\Program Files\\Microsoft\\Edge\\Application\\msedge.exe");
    expect(defs.get("brave-stable")?.userDataDir).toBe(
      "C:\\Users\\u\\AppData\\Local\\BraveSoftware\\Brave-Browser\\User Data",
    );
  });

  test("windows without LOCALAPPDATA falls back under the profile", () => {
    const defs = byKey("win32", { USERPROFILE: "C:\\Users\\u" });
    expect(defs.get("edge-stable")?.userDataDir).toBe("C:\\Users\\u\\AppData\\Local\\Microsoft\\Edge\\User Data");
  });
});

describe("resolveHome", () => {
  test("explicit home, then env HOME (USERPROFILE on Windows)", () => {
    expect(resolveHome({ home: "/x", env: { HOME: "/y" } })).toBe("/x");
    expect(resolveHome({ env: { HOME: "/y" }, platform: "linux" })).toBe("/y");
    expect(resolveHome({ env: { USERPROFILE: "C:\\u" }, platform: "win32" })).toBe("C:\\u");
    expect(resolveHome({ env: {}, platform: "linux" }).length).toBeGreaterThan(0);
  });
});
