import { expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { recordBytecodeOrder } from "../../build/bytecode-order.ts";

const root = join(import.meta.dir, "../..");
const exe = join(root, "dist/bp");

// Every profiled call must reach the stand-in broker: one that fails (a changed locator or call
// flow) leaves the build without its layout, silently slower, so this fails instead.
test("the build's profile covers each warm call through the stand-in broker", async () => {
  expect(existsSync(exe)).toBe(true);
  const dir = mkdtempSync(join(tmpdir(), "bp-order-test-"));
  try {
    const files = await recordBytecodeOrder(exe, dir);
    expect(files.map((f) => f.slice(dir.length + 1))).toEqual([
      "bytecode-order-click.txt",
      "bytecode-order-type.txt",
      "bytecode-order-snapshot.txt",
      "bytecode-order-eval.txt",
      "bytecode-order-status.txt",
      "bytecode-order-version.txt",
    ]);
    for (const f of files) expect(readFileSync(f, "utf8").split("\n").length).toBeGreaterThan(100);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
