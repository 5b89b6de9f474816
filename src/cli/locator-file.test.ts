import { expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MAX_LOCATOR_BYTES, readLocatorText, startLocatorRead } from "./locator-file.ts";

test("the early read starts for a call, from the usual home, and not for version or help", async () => {
  const dir = mkdtempSync(join(tmpdir(), "bp-early-"));
  try {
    writeFileSync(join(dir, "broker-locator.json"), '{"x":1}', { mode: 0o600 });
    const early = startLocatorRead(["status"], { BROWSER_PILOT_HOME: dir });
    expect(early?.path).toBe(join(dir, "broker-locator.json"));
    expect(await early?.text).toBe('{"x":1}');
    expect(startLocatorRead(["eval", "1"], { HOME: "/home/u" })?.path).toBe(
      "/home/u/.browser-pilot/broker-locator.json",
    );
    // An empty home is refused (issue 30): never read the shared default's locator for it.
    expect(startLocatorRead(["eval", "1"], { BROWSER_PILOT_HOME: "", HOME: "/home/u" })).toBeUndefined();
    // No home it can name as written: the CLI resolves the paths and reads then.
    expect(startLocatorRead(["status"], {})).toBeUndefined();
    expect(startLocatorRead(["status"], { BROWSER_PILOT_HOME: "relative/home" })).toBeUndefined();
    for (const argv of [[], ["--version"], ["-V"], ["--help"], ["-h"], ["help"]])
      expect(startLocatorRead(argv, { BROWSER_PILOT_HOME: dir })).toBeUndefined();
    expect(startLocatorRead(["status", "--help"], { BROWSER_PILOT_HOME: dir })).toBeDefined();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("only a small regular file is read: none, a directory, a FIFO or a huge file gives nothing", async () => {
  const dir = mkdtempSync(join(tmpdir(), "bp-early-"));
  try {
    expect(await readLocatorText(join(dir, "absent.json"))).toBeUndefined();
    mkdirSync(join(dir, "adir"));
    expect(await readLocatorText(join(dir, "adir"))).toBeUndefined();
    expect(Bun.spawnSync(["mkfifo", join(dir, "fifo")]).exitCode).toBe(0);
    expect(await readLocatorText(join(dir, "fifo"))).toBeUndefined();
    writeFileSync(join(dir, "huge.json"), "x".repeat(MAX_LOCATOR_BYTES + 1));
    expect(await readLocatorText(join(dir, "huge.json"))).toBeUndefined();
    writeFileSync(join(dir, "ok.json"), "y".repeat(MAX_LOCATOR_BYTES));
    expect((await readLocatorText(join(dir, "ok.json")))?.length).toBe(MAX_LOCATOR_BYTES);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
