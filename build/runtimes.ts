/**
 * The Bun runtime each target's executable is built on. It always comes from the npm
 * registry's `@oven/bun-*` package of exactly the bun version in package-lock.json: the host's
 * is the one `npm ci` installed; another platform's is fetched with `npm pack` (npm refuses to
 * install a package for another os/cpu) into .cache/bun-runtimes/ and checked against the
 * lockfile's integrity hash before use. Nothing is downloaded from anywhere else.
 */
import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { untar } from "./archive.ts";
import { hostPlatform, type Platform } from "./compile.ts";

export const RUNTIME_PACKAGE: Readonly<Record<Platform, string>> = {
  "linux-x64": "@oven/bun-linux-x64",
  "linux-arm64": "@oven/bun-linux-aarch64",
  "darwin-arm64": "@oven/bun-darwin-aarch64",
  "darwin-x64": "@oven/bun-darwin-x64",
  "windows-x64": "@oven/bun-windows-x64",
};

export interface Runtime {
  path: string;
  package: string;
  version: string;
  /** "installed": the host runtime npm installed; "npm-pack": fetched from the registry. */
  source: "installed" | "npm-pack";
}

interface LockEntry {
  version?: string;
  integrity?: string;
}

function lockEntry(root: string, name: string): LockEntry {
  const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8")) as {
    packages?: Record<string, LockEntry>;
  };
  const entry = lock.packages?.[`node_modules/${name}`];
  if (!entry?.version) throw new Error(`package-lock.json has no entry for ${name}`);
  return entry;
}

export function bunVersion(root: string): string {
  return lockEntry(root, "bun").version ?? "";
}

export function runtimeFor(root: string, platform: Platform): Runtime {
  const version = bunVersion(root);
  const pkg = RUNTIME_PACKAGE[platform];
  if (platform === hostPlatform()) {
    if (Bun.version !== version)
      throw new Error(
        `This Bun is ${Bun.version}, package-lock.json pins ${version}: run the release with node_modules/.bin/bun after 'npm ci'.`,
      );
    return { path: process.execPath, package: pkg, version, source: "installed" };
  }
  const entry = lockEntry(root, pkg);
  if (entry.version !== version || !entry.integrity?.startsWith("sha512-"))
    throw new Error(`package-lock.json does not pin ${pkg}@${version} with a sha512 integrity`);
  const cache = join(root, ".cache", "bun-runtimes");
  const exe = join(
    cache,
    `${pkg.replace("@oven/", "")}-${version}`,
    platform.startsWith("windows") ? "bun.exe" : "bun",
  );
  const tgz = join(cache, `${pkg.replace("@", "").replace("/", "-")}-${version}.tgz`);
  mkdirSync(cache, { recursive: true });
  if (!existsSync(tgz)) {
    const r = Bun.spawnSync(["npm", "pack", `${pkg}@${version}`, "--pack-destination", cache, "--silent"], {
      cwd: cache,
      stdout: "pipe",
      stderr: "pipe",
    });
    if (r.exitCode !== 0 || !existsSync(tgz))
      throw new Error(`npm pack ${pkg}@${version} failed: ${r.stderr.toString().trim() || `expected ${tgz}`}`);
  }
  const bytes = readFileSync(tgz);
  const integrity = `sha512-${createHash("sha512").update(bytes).digest("base64")}`;
  if (integrity !== entry.integrity)
    throw new Error(
      `${tgz} does not match package-lock.json's integrity for ${pkg}@${version}; delete it and run again`,
    );
  // Extracted from the verified package on every run, so a changed file in the cache is never used.
  const files = untar(new Uint8Array(gunzipSync(bytes)));
  const bin = files.get(platform.startsWith("windows") ? "package/bin/bun.exe" : "package/bin/bun");
  if (!bin) throw new Error(`${pkg}@${version} holds no bin/bun`);
  mkdirSync(join(exe, ".."), { recursive: true });
  writeFileSync(exe, bin.data);
  chmodSync(exe, 0o755);
  return { path: exe, package: pkg, version, source: "npm-pack" };
}
