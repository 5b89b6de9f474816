import { afterAll, describe, expect, test } from "bun:test";
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { endpointFor, parseDevToolsActivePort, readPortFile } from "./port-file.ts";

describe("parseDevToolsActivePort", () => {
  test("reads port and browser path", () => {
    expect(parseDevToolsActivePort("9222\n/devtools/browser/abc-123\n")).toEqual({
      port: 9222,
      path: "/devtools/browser/abc-123",
    });
  });

  test("tolerates CRLF and a missing final newline", () => {
    expect(parseDevToolsActivePort("41231\r\n/devtools/browser/x\r\n")).toEqual({
      port: 41231,
      path: "/devtools/browser/x",
    });
    expect(parseDevToolsActivePort("1\n/p")).toEqual({ port: 1, path: "/p" });
    expect(parseDevToolsActivePort("65535\n/p")?.port).toBe(65535);
  });

  test.each([
    ["empty", ""],
    ["port only", "9222\n"],
    ["port zero", "0\n/devtools/browser/x"],
    ["port too large", "65536\n/devtools/browser/x"],
    ["negative port", "-1\n/devtools/browser/x"],
    ["non-numeric port", "abc\n/devtools/browser/x"],
    ["fractional port", "92.5\n/devtools/browser/x"],
    ["hex port", "0x10\n/devtools/browser/x"],
    ["relative path", "9222\ndevtools/browser/x"],
    ["protocol-relative path", "9222\n//evil.example/x"],
    ["path with space", "9222\n/devtools/browser/a b"],
    ["swapped lines", "/devtools/browser/x\n9222"],
  ])("rejects %s", (_name, text) => {
    expect(parseDevToolsActivePort(text)).toBeUndefined();
  });

  test("endpointFor always targets loopback", () => {
    expect(endpointFor({ port: 9333, path: "/devtools/browser/u" })).toBe("ws://127.0.0.1:9333/devtools/browser/u");
  });
});

describe("readPortFile", () => {
  const dirs: string[] = [];
  const tempDir = async (): Promise<string> => {
    const dir = await fsp.mkdtemp(path.join(os.tmpdir(), "bp-portfile-"));
    dirs.push(dir);
    return dir;
  };
  afterAll(async () => {
    await Promise.all(dirs.map((d) => fsp.rm(d, { recursive: true, force: true })));
  });

  test("returns parsed content with mtime", async () => {
    const dir = await tempDir();
    await fsp.writeFile(path.join(dir, "DevToolsActivePort"), "5555\r\n/devtools/browser/q\r\n");
    const info = await readPortFile(dir);
    expect(info?.port).toBe(5555);
    expect(info?.path).toBe("/devtools/browser/q");
    expect(info?.mtimeMs).toBeGreaterThan(0);
  });

  test("missing, malformed, directory or oversized files give undefined", async () => {
    expect(await readPortFile(await tempDir())).toBeUndefined();
    const bad = await tempDir();
    await fsp.writeFile(path.join(bad, "DevToolsActivePort"), "not a port\n/x\n");
    expect(await readPortFile(bad)).toBeUndefined();
    const asDir = await tempDir();
    await fsp.mkdir(path.join(asDir, "DevToolsActivePort"));
    expect(await readPortFile(asDir)).toBeUndefined();
    const huge = await tempDir();
    await fsp.writeFile(path.join(huge, "DevToolsActivePort"), `9222\n/${"a".repeat(5000)}\n`);
    expect(await readPortFile(huge)).toBeUndefined();
  });
});
