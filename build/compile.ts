/**
 * Builds the single `bp` executable for this machine or another platform.
 * Usage: bun build/compile.ts [--target=linux-x64|bun-linux-x64] [--outfile=dist/bp]
 *        [--runtime=<bun executable of the target>] [--metafile=<path>] [--skip-references]
 * A relative --outfile is taken from the repository root, an absolute one as given.
 * Before compiling it checks that every version agrees and regenerates the skill's
 * command reference, so `npm run build` keeps both true. `--skip-references` (npm install's
 * and npm test's builds) leaves the committed reference alone, so the skill test can fail.
 */
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { writeReferences } from "./skill-references.ts";
import { checkVersions } from "./versions.ts";

export const PLATFORMS = ["linux-x64", "linux-arm64", "darwin-arm64", "darwin-x64", "windows-x64"] as const;
export type Platform = (typeof PLATFORMS)[number];

export function hostPlatform(): Platform {
  const os = process.platform === "win32" ? "windows" : process.platform;
  const name = `${os}-${process.arch}`;
  if (!(PLATFORMS as readonly string[]).includes(name)) throw new Error(`Unsupported build host ${name}`);
  return name as Platform;
}

export function toPlatform(target: string): Platform {
  const name = target.replace(/^bun-/, "");
  if (!(PLATFORMS as readonly string[]).includes(name))
    throw new Error(`Unknown target '${target}'; one of ${PLATFORMS.join(", ")}`);
  return name as Platform;
}

export interface CompileOptions {
  root: string;
  platform: Platform;
  outfile: string;
  /** The target's Bun runtime; without it Bun uses its own (host) or fetches one. */
  runtime?: string;
  metafile?: string;
}

/**
 * How bp is compiled (the bench builds its runtime-floor program with the same flags).
 * --bytecode and --splitting matter most for start-up: without splitting every lazy import
 * (the broker, the janitor, each command module) is parsed by every call.
 */
export const COMPILE_FLAGS = [
  "--compile",
  "--minify",
  "--bytecode",
  "--format=esm",
  "--splitting",
  "--sourcemap=none",
  // A compiled Bun program reads .env and bunfig.toml from its working directory by default:
  // a .env in the agent's project would then configure bp (BROWSER_PILOT_HOME, the client
  // key…), and looking for them lists every directory above the working directory, which
  // costs each call up to ~1.5 ms where a parent holds many entries (/tmp).
  "--no-compile-autoload-dotenv",
  "--no-compile-autoload-bunfig",
  "--no-compile-autoload-tsconfig",
  "--no-compile-autoload-package-json",
  // A CLI call runs its code once and exits: JIT-compiling it costs more than it saves (about
  // 1 ms of CPU per call). The broker and janitor, which live long, go back to the normal
  // policy as they start (src/main.ts).
  "--compile-jit-policy=10",
] as const;

/** Compiles src/main.ts. Bun embeds the outfile's base name, so keep it `bp` for reproducibility. */
export function compile(o: CompileOptions): void {
  mkdirSync(dirname(o.outfile), { recursive: true });
  const args = [
    "build",
    ...COMPILE_FLAGS,
    `--target=bun-${o.platform}`,
    `--define=BP_BUILD_TARGET=${JSON.stringify(o.platform)}`,
    ...(o.runtime ? [`--compile-executable-path=${o.runtime}`] : []),
    ...(o.metafile ? [`--metafile=${o.metafile}`] : []),
    join(o.root, "src/main.ts"),
    "--outfile",
    o.outfile,
  ];
  const proc = Bun.spawnSync([process.execPath, ...args], { stdout: "ignore", stderr: "inherit", cwd: o.root });
  if (proc.exitCode !== 0) throw new Error(`bun build failed for ${o.platform} (exit ${String(proc.exitCode)})`);
  rewrite(o.outfile);
}

/**
 * Writes the executable afresh, same bytes: on Linux (ext4) a call of the file as bun build
 * leaves it costs ~3-4.5 ms more CPU than one of the same bytes written in one go (a warm
 * `bp --version` 29.2 against 26.2 ms, `snapshot` 38.6 against 35.9; interleaved), for as long
 * as its pages stay in the page cache; the page faults are as many, each costs more
 * (docs/benchmarks.md). A one-line program shows no such difference.
 */
function rewrite(file: string): void {
  const next = `${file}.${process.pid}.tmp`;
  writeFileSync(next, readFileSync(file), { mode: statSync(file).mode & 0o777 });
  renameSync(next, file);
}

/** Version check and skill references: the parts of a build that are not the compile. */
export async function prepare(root: string, references = true): Promise<ReturnType<typeof checkVersions>> {
  const facts = checkVersions(root);
  const written = references ? await writeReferences(root) : [];
  if (written.length > 0) console.error(`updated ${written.join(", ")} (commit it)`);
  return facts;
}

if (import.meta.main) {
  const root = join(import.meta.dir, "..");
  const opt = (name: string) => {
    const a = process.argv.find((x) => x.startsWith(`--${name}=`));
    return a === undefined ? undefined : a.slice(name.length + 3);
  };
  try {
    // npm install's build leaves the committed references alone, so CI can check them after it.
    await prepare(root, !process.argv.includes("--skip-references"));
    const target = opt("target");
    const platform = target ? toPlatform(target) : hostPlatform();
    const outfile = resolve(root, opt("outfile") ?? "dist/bp");
    const runtime = opt("runtime");
    const metafile = opt("metafile");
    compile({
      root,
      platform,
      outfile,
      ...(runtime ? { runtime: resolve(runtime) } : {}),
      ...(metafile ? { metafile: resolve(metafile) } : {}),
    });
    console.error(`built ${outfile} (${platform})`);
  } catch (err) {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(1);
  }
}
