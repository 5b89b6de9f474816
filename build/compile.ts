/**
 * Builds the single `bp` executable for this machine (or --target=bun-<os>-<arch>).
 * Usage: bun build/compile.ts [--target=bun-linux-x64] [--outfile=dist/bp]
 */
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";

const root = join(import.meta.dir, "..");
const opt = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1];
const outfile = join(root, opt("outfile") ?? "dist/bp");
const target = opt("target");
mkdirSync(dirname(outfile), { recursive: true });

const args = ["build", "--compile", "--minify", "--bytecode", "--format=esm", "--splitting", "--sourcemap=none", join(root, "src/main.ts"), "--outfile", outfile];
if (target) args.push(`--target=${target}`);
const proc = Bun.spawnSync([process.execPath, ...args], { stdout: "inherit", stderr: "inherit", cwd: root });
if (proc.exitCode !== 0) process.exit(proc.exitCode ?? 1);
console.error(`built ${outfile}`);
