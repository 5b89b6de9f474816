import { afterEach, describe, expect, test } from "bun:test";
import fsp from "node:fs/promises";
import path from "node:path";
import { findChromiumExecutable, installHint } from "./executable.ts";
import { tempRoot } from "../../test/support/fake-profiles.ts";

let cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanups.map((c) => c()));
  cleanups = [];
});

async function binDir(names: Record<string, number>): Promise<{ home: string; bin: string }> {
  const root = await tempRoot("exe");
  cleanups.push(root.cleanup);
  const bin = path.join(root.dir, "bin");
  await fsp.mkdir(bin);
  for (const [name, mode] of Object.entries(names)) {
    await fsp.writeFile(path.join(bin, name), "#!/bin/sh\n", { mode });
  }
  return { home: root.dir, bin };
}

describe("findChromiumExecutable", () => {
  test("BROWSER_PILOT_CHROME wins when executable", async () => {
    const { home, bin } = await binDir({ "my-chrome": 0o755, chromium: 0o755 });
    const override = path.join(bin, "my-chrome");
    const env = { HOME: home, PATH: bin, BROWSER_PILOT_CHROME: override };
    expect(findChromiumExecutable(env, "linux")).toBe(override);
  });

  test("a non-executable override falls through to PATH", async () => {
    const { home, bin } = await binDir({ "not-exec": 0o644, "brave-browser": 0o755 });
    const env = { HOME: home, PATH: bin, BROWSER_PILOT_CHROME: path.join(bin, "not-exec") };
    // The host's own Chrome/Chromium may rank above the fake Brave, so only the fall-through
    // itself is asserted.
    const found = findChromiumExecutable(env, "linux");
    expect(found).toBeDefined();
    expect(found).not.toBe(env.BROWSER_PILOT_CHROME);
  });

  test("PATH lookups precede fixed locations within a browser", async () => {
    const { home, bin } = await binDir({ "google-chrome": 0o755 });
    expect(findChromiumExecutable({ HOME: home, PATH: bin }, "linux")).toBe(path.join(bin, "google-chrome"));
  });

  test("macOS apps in ~/Applications are found", async () => {
    const { home } = await binDir({});
    const app = path.join(home, "Applications/Chromium.app/Contents/MacOS");
    await fsp.mkdir(app, { recursive: true });
    await fsp.writeFile(path.join(app, "Chromium"), "", { mode: 0o755 });
    expect(findChromiumExecutable({ HOME: home, PATH: "" }, "darwin")).toBe(path.join(app, "Chromium"));
  });

  test("nothing installed: undefined", async () => {
    const { home } = await binDir({});
    expect(findChromiumExecutable({ HOME: home, PATH: "" }, "darwin")).toBeUndefined();
  });
});

describe("installHint", () => {
  test("names something concrete to install on each OS", () => {
    expect(installHint("linux")).toContain("apt-get install chromium");
    expect(installHint("darwin")).toContain("Google Chrome");
    expect(installHint("win32")).toContain("Microsoft Edge");
    for (const p of ["linux", "darwin", "win32"] as const) {
      expect(installHint(p)).toContain("BROWSER_PILOT_CHROME");
    }
  });
});
