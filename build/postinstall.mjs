// Builds dist/bp after `npm install` in a checkout, so the README's first line is enough.
// Installed from a package (no src/), the shipped executable is used as is.
import { existsSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const bun = join(root, "node_modules", ".bin", process.platform === "win32" ? "bun.exe" : "bun");
if (!existsSync(join(root, "src", "main.ts"))) process.exit(0);
if (!existsSync(bun)) {
  console.warn("browser-pilot: Bun is not installed yet; run 'npm run build' after installing.");
  process.exit(0);
}
const r = spawnSync(bun, [join(root, "build", "compile.ts"), "--skip-references"], { stdio: "inherit", cwd: root });
process.exit(r.status ?? 1);
