/**
 * What one native archive holds, and its manifest: the executable, its `browser-pilot` alias,
 * LICENSE, the licenses of everything compiled in (the Bun runtime and the npm packages the
 * bundle's metafile names), README.md, the skill, manifest.json and SHA256SUMS.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Entry } from "./archive.ts";
import type { Platform } from "./compile.ts";
import type { ExeFormat } from "./exe-format.ts";
import type { Runtime } from "./runtimes.ts";

const enc = new TextEncoder();

export function sha256(data: Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

export interface ManifestFile {
  path: string;
  size: number;
  sha256: string;
  mode: string;
}

export interface Manifest {
  schemaVersion: 1;
  product: "browser-pilot";
  version: string;
  platform: Platform;
  executable: { path: string; format: ExeFormat["format"]; arch: ExeFormat["arch"] };
  runtime: { kind: "bun"; version: string; package: string };
  protocol: { min: number; max: number };
  skill: { path: "skill"; compatibleCliRange: string };
  /** What the executable really carries, read from its header: "none", or for Mach-O "adhoc"/"signed". */
  signature: { kind: ExeFormat["signature"] };
  files: ManifestFile[];
  links?: { path: string; target: string }[];
}

interface Compiled {
  name: string;
  version: string;
  license: string;
  licenseFile?: string;
  bundles: string[];
}

/** npm packages compiled into the executable, from `bun build --metafile`. */
export function compiledPackages(root: string, metafile: string): Compiled[] {
  const meta = JSON.parse(readFileSync(metafile, "utf8")) as { inputs: Record<string, unknown> };
  const found = new Map<string, Set<string>>();
  for (const input of Object.keys(meta.inputs)) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(.*)$/.exec(input);
    if (!m?.[1]) continue;
    const bundles = found.get(m[1]) ?? new Set<string>();
    // Packages that vendor others under dist/_chunks/libs/<name>.mjs name them in their notice.
    const vendored = /_chunks\/libs\/([^/]+)\.m?js$/.exec(m[2] ?? "")?.[1];
    if (vendored) bundles.add(vendored);
    found.set(m[1], bundles);
  }
  return [...found.keys()].sort().map((name) => {
    const dir = join(root, "node_modules", name);
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version: string; license?: string };
    const licenseFile = readdirSync(dir).find((f) => /^(license|licence|copying)(\.md|\.txt)?$/i.test(f));
    return {
      name,
      version: pkg.version,
      license: pkg.license ?? "UNKNOWN",
      ...(licenseFile ? { licenseFile: join(dir, licenseFile) } : {}),
      bundles: [...(found.get(name) ?? [])].sort(),
    };
  });
}

function walk(dir: string, rel = ""): string[] {
  return readdirSync(join(dir, rel), { withFileTypes: true }).flatMap((e) => {
    const p = rel ? `${rel}/${e.name}` : e.name;
    return e.isDirectory() ? walk(dir, p) : e.isFile() ? [p] : [];
  });
}

export interface PayloadInput {
  root: string;
  version: string;
  platform: Platform;
  protocol: { min: number; max: number };
  compatibleCliRange: string;
  exe: Uint8Array;
  format: ExeFormat;
  runtime: Runtime;
  metafile: string;
}

/** Entries of one native archive under its top directory, plus the manifest written into it. */
export function nativePayload(o: PayloadInput): { top: string; entries: Entry[]; manifest: Manifest } {
  const top = `browser-pilot-${o.version}-${o.platform}`;
  const windows = o.platform.startsWith("windows");
  const exeName = windows ? "bp.exe" : "bp";
  const files: { path: string; mode: number; data: Uint8Array }[] = [{ path: exeName, mode: 0o755, data: o.exe }];
  // Windows has no symlinks in zip: a two-line shim keeps `browser-pilot` working without a second 100 MB copy.
  if (windows)
    files.push({ path: "browser-pilot.cmd", mode: 0o644, data: enc.encode('@echo off\r\n"%~dp0bp.exe" %*\r\n') });
  files.push({ path: "LICENSE", mode: 0o644, data: readFileSync(join(o.root, "LICENSE")) });
  files.push({ path: "README.md", mode: 0o644, data: readFileSync(join(o.root, "README.md")) });

  const packages = compiledPackages(o.root, o.metafile);
  const bunNote = readFileSync(join(o.root, "build/licenses/bun-runtime.md"), "utf8").replaceAll(
    "{{BUN_VERSION}}",
    o.runtime.version,
  );
  files.push({ path: "licenses/bun-runtime.md", mode: 0o644, data: enc.encode(bunNote) });
  const index = [
    "# Third-party licenses",
    "",
    "Compiled into this executable:",
    "",
    `- Bun runtime ${o.runtime.version} (${o.runtime.package}): MIT, with the components in bun-runtime.md`,
  ];
  for (const p of packages) {
    const file = `${p.name.replace("/", "+")}-LICENSE${p.licenseFile?.endsWith(".md") ? ".md" : ""}`;
    if (!p.licenseFile) throw new Error(`${p.name} is compiled in but ships no license file`);
    files.push({ path: `licenses/${file}`, mode: 0o644, data: readFileSync(p.licenseFile) });
    index.push(
      `- ${p.name} ${p.version}: ${p.license} (${file})${p.bundles.length > 0 ? `; its dist bundles ${p.bundles.join(", ")}` : ""}`,
    );
  }
  files.push({ path: "licenses/README.md", mode: 0o644, data: enc.encode(`${index.join("\n")}\n`) });

  const skillDir = join(o.root, "skill");
  for (const rel of walk(skillDir))
    files.push({ path: `skill/${rel}`, mode: 0o644, data: readFileSync(join(skillDir, rel)) });
  files.sort((a, b) => (a.path < b.path ? -1 : 1));

  const manifest: Manifest = {
    schemaVersion: 1,
    product: "browser-pilot",
    version: o.version,
    platform: o.platform,
    executable: { path: exeName, format: o.format.format, arch: o.format.arch },
    runtime: { kind: "bun", version: o.runtime.version, package: o.runtime.package },
    protocol: o.protocol,
    skill: { path: "skill", compatibleCliRange: o.compatibleCliRange },
    signature: { kind: o.format.signature },
    files: files.map((f) => ({
      path: f.path,
      size: f.data.length,
      sha256: sha256(f.data),
      mode: `0${(f.mode & 0o777).toString(8)}`,
    })),
    ...(windows ? {} : { links: [{ path: "browser-pilot", target: "bp" }] }),
  };
  const manifestBytes = enc.encode(`${JSON.stringify(manifest, null, 2)}\n`);
  const sums = [
    ...manifest.files.map((f) => ({ path: f.path, sha256: f.sha256 })),
    { path: "manifest.json", sha256: sha256(manifestBytes) },
  ]
    .sort((a, b) => (a.path < b.path ? -1 : 1))
    .map((f) => `${f.sha256}  ${f.path}\n`)
    .join("");

  const entries: Entry[] = [{ path: top, kind: "dir", mode: 0o755 }];
  const dirs = new Set<string>();
  for (const f of files) {
    const parts = f.path.split("/");
    for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join("/"));
    entries.push({ path: `${top}/${f.path}`, kind: "file", mode: f.mode, data: f.data });
  }
  for (const d of dirs) entries.push({ path: `${top}/${d}`, kind: "dir", mode: 0o755 });
  if (!windows) entries.push({ path: `${top}/browser-pilot`, kind: "symlink", mode: 0o777, target: "bp" });
  entries.push({ path: `${top}/manifest.json`, kind: "file", mode: 0o644, data: manifestBytes });
  entries.push({ path: `${top}/SHA256SUMS`, kind: "file", mode: 0o644, data: enc.encode(sums) });
  return { top, entries, manifest };
}

/** The skill archive: `browser-pilot/` (the skill's name) with SKILL.md, compatibility.json, references. */
export function skillEntries(root: string): Entry[] {
  const skillDir = join(root, "skill");
  if (!existsSync(join(skillDir, "SKILL.md"))) throw new Error("skill/SKILL.md is missing");
  const entries: Entry[] = [{ path: "browser-pilot", kind: "dir", mode: 0o755 }];
  const dirs = new Set<string>();
  for (const rel of walk(skillDir)) {
    const parts = rel.split("/");
    for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join("/"));
    entries.push({ path: `browser-pilot/${rel}`, kind: "file", mode: 0o644, data: readFileSync(join(skillDir, rel)) });
  }
  for (const d of dirs) entries.push({ path: `browser-pilot/${d}`, kind: "dir", mode: 0o755 });
  return entries;
}
