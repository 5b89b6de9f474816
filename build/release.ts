/**
 * `npm run release`: native archives for every platform from this one checkout, with
 * checksums, a skill archive and the release index, in dist-native/ (see docs/release.md).
 * Usage: bun build/release.ts [--platforms=linux-x64,…] [--out=<dir>] [--skip-smoke]
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { findChromiumExecutable } from "../src/discovery/index.ts";
import { tarGz, zip } from "./archive.ts";
import { compile, hostPlatform, PLATFORMS, prepare, toPlatform, type Platform } from "./compile.ts";
import { readExeFormat } from "./exe-format.ts";
import { nativePayload, sha256, skillEntries, type Manifest } from "./payload.ts";
import { runtimeFor } from "./runtimes.ts";
import { REGENERATE, staleReferences } from "./skill-references.ts";
import { smoke, unpack } from "./smoke.ts";

export interface Asset {
  file: string;
  bytes: number;
  sha256: string;
  checksumFile: string;
}

export interface ReleaseIndex {
  schemaVersion: 1;
  product: "browser-pilot";
  version: string;
  protocol: { min: number; max: number };
  runtime: { kind: "bun"; version: string };
  skill: Asset & { version: string; compatibleCliRange: string };
  /** build/install.sh: verifies a native archive, then installs it into a prefix. */
  installer: Asset;
  /** The Chromium the host archive was smoke-tested against; null when the smoke was skipped. */
  testedChromium: string | null;
  platforms: Platform[];
  native: (Asset & {
    platform: Platform;
    format: "tar.gz" | "zip";
    executable: Manifest["executable"];
    signature: Manifest["signature"];
  })[];
}

/** Archive timestamps: SOURCE_DATE_EPOCH, else the commit time of HEAD, so the checkout decides them. */
export function sourceDateEpoch(root: string): number {
  const fromEnv = Number(process.env.SOURCE_DATE_EPOCH);
  if (Number.isInteger(fromEnv) && fromEnv > 0) return fromEnv;
  const r = Bun.spawnSync(["git", "log", "-1", "--format=%ct", "HEAD"], {
    cwd: root,
    stdout: "pipe",
    stderr: "ignore",
  });
  const t = Number(r.stdout.toString().trim());
  // Not a git checkout: a fixed time (1980-01-01, the earliest zip can say) keeps runs equal.
  return r.exitCode === 0 && Number.isInteger(t) && t > 0 ? t : 315532800;
}

const EXPECTED: Readonly<Record<Platform, { format: string; arch: string }>> = {
  "linux-x64": { format: "ELF", arch: "x64" },
  "linux-arm64": { format: "ELF", arch: "arm64" },
  "darwin-arm64": { format: "Mach-O", arch: "arm64" },
  "darwin-x64": { format: "Mach-O", arch: "x64" },
  "windows-x64": { format: "PE", arch: "x64" },
};

function writeAsset(out: string, file: string, data: Uint8Array): Asset {
  const hash = sha256(data);
  writeFileSync(join(out, file), data);
  writeFileSync(join(out, `${file}.sha256`), `${hash}  ${file}\n`);
  return { file, bytes: data.length, sha256: hash, checksumFile: `${file}.sha256` };
}

/** A second, independent reader of build/archive.ts's zip output, when the machine has one. */
function checkZip(path: string, log: (line: string) => void): void {
  if (Bun.which("unzip") === null) {
    log(`unzip not found: ${basename(path)} was not checked by a second zip reader`);
    return;
  }
  const r = Bun.spawnSync(["unzip", "-tq", path], { stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`unzip -t rejects ${path}: ${r.stdout.toString()}${r.stderr.toString()}`);
}

export interface ReleaseOptions {
  root: string;
  out: string;
  platforms: Platform[];
  smoke: boolean;
  log?: (line: string) => void;
}

export async function release(o: ReleaseOptions): Promise<ReleaseIndex> {
  const log = o.log ?? ((line: string) => console.error(line));
  // A release ships the checkout as committed: stale references are refused, not rewritten
  // (rewriting would also hide them from the skill test that runs after this in npm test).
  const facts = await prepare(o.root, false);
  const stale = await staleReferences(o.root);
  if (stale.length > 0)
    throw new Error(
      `Stale skill references: ${stale.join(", ")}. Run '${REGENERATE}' and commit the result before releasing.`,
    );
  const { version } = facts;
  const protocol = { min: facts.protocol.min, max: facts.protocol.max };
  const range = facts.compatibility.browserPilotCli.supportedVersionRange;
  const mtime = sourceDateEpoch(o.root);
  mkdirSync(o.out, { recursive: true });
  const work = mkdtempSync(join(tmpdir(), "bp-release-"));
  try {
    const native: ReleaseIndex["native"] = [];
    let testedChromium: string | null = null;
    let bunVersion = "";
    for (const platform of o.platforms) {
      const runtime = runtimeFor(o.root, platform);
      bunVersion = runtime.version;
      const dir = join(work, platform);
      const exeName = platform.startsWith("windows") ? "bp.exe" : "bp";
      const metafile = join(dir, "meta.json");
      compile({ root: o.root, platform, outfile: join(dir, exeName), runtime: runtime.path, metafile });
      const exe = new Uint8Array(readFileSync(join(dir, exeName)));
      const format = readExeFormat(exe);
      const want = EXPECTED[platform];
      if (format.format !== want.format || format.arch !== want.arch)
        throw new Error(
          `${platform}: built a ${format.format} ${format.arch} executable, expected ${want.format} ${want.arch}`,
        );
      if (format.signature === "invalid") {
        // Apple Silicon runs nothing without a valid signature; an Intel Mac can be re-signed on install.
        if (format.arch === "arm64")
          throw new Error(
            `${platform}: the executable's code signature does not match it; macOS would refuse to run it`,
          );
        log(
          `warning: ${platform} carries the Bun runtime's stale signature (it does not cover the bundle); install.sh re-signs it ad hoc on macOS`,
        );
      }
      const { entries, manifest } = nativePayload({
        root: o.root,
        version,
        platform,
        protocol,
        compatibleCliRange: range,
        exe,
        format,
        runtime,
        metafile,
      });
      const kind = platform.startsWith("windows") ? "zip" : "tar.gz";
      const file = `browser-pilot-${version}-${platform}.${kind}`;
      const asset = writeAsset(o.out, file, kind === "zip" ? zip(entries, mtime) : tarGz(entries, mtime));
      if (kind === "zip") checkZip(join(o.out, file), log);
      native.push({ platform, format: kind, ...asset, executable: manifest.executable, signature: manifest.signature });
      log(
        `${file}  ${asset.bytes} bytes  ${format.format} ${format.arch}  signature ${format.signature}  runtime ${runtime.package}@${runtime.version} (${runtime.source})`,
      );
      if (o.smoke && platform === hostPlatform()) {
        const chromium = findChromiumExecutable();
        if (!chromium)
          throw new Error(
            "The smoke test needs Chromium (or BROWSER_PILOT_CHROME); pass --skip-smoke to release untested",
          );
        const unpacked = join(work, `${platform}-smoke`);
        unpack(join(o.out, file), unpacked);
        testedChromium = (
          await smoke(join(unpacked, `browser-pilot-${version}-${platform}`, exeName), {
            version,
            platform,
            work: unpacked,
            chromium,
          })
        ).chromium;
        log(`smoke test passed against ${testedChromium}`);
      }
    }
    const skillFile = `browser-pilot-skill-${version}.tar.gz`;
    const skill = {
      ...writeAsset(o.out, skillFile, tarGz(skillEntries(o.root), mtime)),
      version: facts.compatibility.skillVersion,
      compatibleCliRange: range,
    };
    const installer = writeAsset(o.out, "install.sh", new Uint8Array(readFileSync(join(o.root, "build/install.sh"))));
    const index: ReleaseIndex = {
      schemaVersion: 1,
      product: "browser-pilot",
      version,
      protocol,
      runtime: { kind: "bun", version: bunVersion },
      skill,
      installer,
      testedChromium,
      platforms: [...o.platforms],
      native,
    };
    const indexBytes = new TextEncoder().encode(`${JSON.stringify(index, null, 2)}\n`);
    writeAsset(o.out, "release-index.json", indexBytes);
    const sums = [
      ...native.map((a) => [a.sha256, a.file]),
      [skill.sha256, skill.file],
      [installer.sha256, installer.file],
      [sha256(indexBytes), "release-index.json"],
    ]
      .sort((a, b) => ((a[1] ?? "") < (b[1] ?? "") ? -1 : 1))
      .map(([h, f]) => `${h}  ${f}\n`)
      .join("");
    writeFileSync(join(o.out, "SHA256SUMS"), sums);
    log(`wrote ${o.out}: ${native.length} archive(s), ${skillFile}, install.sh, release-index.json, SHA256SUMS`);
    return index;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const root = join(import.meta.dir, "..");
  const opt = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  try {
    const platforms = opt("platforms")?.split(",").map(toPlatform) ?? [...PLATFORMS];
    const out = resolve(root, opt("out") ?? "dist-native");
    await release({ root, out, platforms, smoke: !process.argv.includes("--skip-smoke") });
    console.error(`release ${basename(out)} done`);
  } catch (err) {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(1);
  }
}
