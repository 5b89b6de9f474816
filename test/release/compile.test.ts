import { expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { VERSION } from "../../src/shared/version.ts";

const root = join(import.meta.dir, "../..");

test("compile.ts --outfile=<absolute path> writes exactly there, not inside the repository", () => {
  const dir = mkdtempSync(join(tmpdir(), "bp-compile-"));
  try {
    const out = join(dir, "nested", "bp");
    const r = Bun.spawnSync(
      [process.execPath, join(root, "build/compile.ts"), `--outfile=${out}`, "--skip-references"],
      { cwd: root, stdout: "pipe", stderr: "pipe" },
    );
    expect(r.stderr.toString()).toContain(`built ${out}`);
    expect(r.exitCode).toBe(0);
    expect(existsSync(join(root, dir.slice(1)))).toBe(false);
    expect(Bun.spawnSync([out, "--version"]).stdout.toString().trim()).toStartWith(`${VERSION} (`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
