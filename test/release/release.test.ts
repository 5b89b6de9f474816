/**
 * A real release of this machine's platform: checksums, manifest and index agree with the
 * bytes; the archive unpacks with the system tar into an empty directory and its bp runs
 * (version, help, launch + open + snapshot against real Chromium) with no node, npm or bun
 * on PATH; a second run gives the same bytes; install.sh installs it and refuses damage.
 * Cross-built platforms are built and checked by `npm run release` (docs/release.md).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  copyFileSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
  existsSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tarGz, type Entry } from "../../build/archive.ts";
import { compile, hostPlatform } from "../../build/compile.ts";
import { runtimeFor } from "../../build/runtimes.ts";
import { readExeFormat } from "../../build/exe-format.ts";
import type { Manifest } from "../../build/payload.ts";
import { release, type ReleaseIndex } from "../../build/release.ts";
import { pathWithoutRuntimes, processesUnder, runBp, stopAll, unpack } from "../../build/smoke.ts";
import { PROTOCOL, VERSION } from "../../src/shared/version.ts";
import { requireChromium } from "../support/chromium.ts";

const root = join(import.meta.dir, "../..");
const platform = hostPlatform();
const work = mkdtempSync(join(tmpdir(), "bp-release-test-"));
const out = join(work, "dist-native");
const archiveName = `browser-pilot-${VERSION}-${platform}.tar.gz`;
const top = `browser-pilot-${VERSION}-${platform}`;
let index: ReleaseIndex;

const sha256 = (p: string) => new Bun.CryptoHasher("sha256").update(readFileSync(p)).digest("hex");

beforeAll(async () => {
  index = await release({ root, out, platforms: [platform], smoke: false, log: () => undefined });
}, 180_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe(`release of ${platform}`, () => {
  test("every checksum and the release index match the bytes written", () => {
    const files = readdirSync(out).sort();
    expect(files).toEqual(
      [
        archiveName,
        `${archiveName}.sha256`,
        `browser-pilot-skill-${VERSION}.tar.gz`,
        `browser-pilot-skill-${VERSION}.tar.gz.sha256`,
        "install.sh",
        "install.sh.sha256",
        "release-index.json",
        "release-index.json.sha256",
        "SHA256SUMS",
      ].sort(),
    );
    for (const f of files.filter((x) => x.endsWith(".sha256"))) {
      const asset = f.slice(0, -".sha256".length);
      expect(readFileSync(join(out, f), "utf8")).toBe(`${sha256(join(out, asset))}  ${asset}\n`);
    }
    const sums = readFileSync(join(out, "SHA256SUMS"), "utf8").trim().split("\n");
    expect(sums.map((l) => l.split("  ")[1]).sort()).toEqual(
      [archiveName, `browser-pilot-skill-${VERSION}.tar.gz`, "install.sh", "release-index.json"].sort(),
    );
    for (const line of sums) {
      const [hash, file] = line.split("  ");
      expect(sha256(join(out, file ?? ""))).toBe(hash ?? "");
    }
    const written = JSON.parse(readFileSync(join(out, "release-index.json"), "utf8")) as ReleaseIndex;
    expect(written).toEqual(index);
    const compat = JSON.parse(readFileSync(join(root, "skill/compatibility.json"), "utf8")) as {
      browserPilotCli: { supportedVersionRange: string };
    };
    expect(written).toMatchObject({
      version: VERSION,
      protocol: { min: PROTOCOL.min, max: PROTOCOL.max },
      platforms: [platform],
      skill: { compatibleCliRange: compat.browserPilotCli.supportedVersionRange },
    });
    for (const a of [...written.native, written.skill, written.installer]) {
      expect(a.bytes).toBe(statSync(join(out, a.file)).size);
      expect(a.sha256).toBe(sha256(join(out, a.file)));
    }
  }, 60_000);

  test("unpacked into an empty directory, the manifest lists every file with its size, hash and mode", () => {
    const dir = join(work, "unpacked");
    unpack(join(out, archiveName), dir);
    expect(readdirSync(dir)).toEqual([top]);
    const pkg = join(dir, top);
    const manifest = JSON.parse(readFileSync(join(pkg, "manifest.json"), "utf8")) as Manifest;
    expect(manifest).toMatchObject({
      version: VERSION,
      platform,
      protocol: { min: PROTOCOL.min, max: PROTOCOL.max },
      signature: { kind: "none" },
      executable: { path: "bp", format: platform.startsWith("darwin") ? "Mach-O" : "ELF" },
    });
    for (const f of manifest.files) {
      const st = statSync(join(pkg, f.path));
      expect({
        path: f.path,
        size: st.size,
        sha256: sha256(join(pkg, f.path)),
        mode: `0${(st.mode & 0o777).toString(8)}`,
      }).toEqual(f);
    }
    const onDisk = (rel: string): string[] =>
      readdirSync(join(pkg, rel), { withFileTypes: true }).flatMap((e) => {
        const p = rel ? `${rel}/${e.name}` : e.name;
        return e.isDirectory() ? onDisk(p) : [p];
      });
    const listed = [
      ...manifest.files.map((f) => f.path),
      ...(manifest.links ?? []).map((l) => l.path),
      "manifest.json",
      "SHA256SUMS",
    ].sort();
    expect(onDisk("").sort()).toEqual(listed);
    for (const must of [
      "bp",
      "LICENSE",
      "README.md",
      "skill/SKILL.md",
      "skill/compatibility.json",
      "skill/references/commands.md",
      "skill/references/recovery.md",
      "licenses/bun-runtime.md",
      "licenses/valibot-LICENSE.md",
    ]) {
      expect(listed).toContain(must);
    }
    expect(lstatSync(join(pkg, "browser-pilot")).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(pkg, "browser-pilot"))).toBe("bp");
    for (const line of readFileSync(join(pkg, "SHA256SUMS"), "utf8").trim().split("\n")) {
      const [hash, file] = line.split("  ");
      expect(sha256(join(pkg, file ?? ""))).toBe(hash ?? "");
    }
    expect(readExeFormat(new Uint8Array(readFileSync(join(pkg, "bp"))))).toMatchObject({
      format: manifest.executable.format,
      arch: process.arch,
    });
  }, 120_000);

  test("the unpacked bp runs with no node, npm or bun on PATH: version, help, launch, open, snapshot", async () => {
    const chromium = requireChromium();
    const pkg = join(work, "unpacked", top);
    const home = join(work, "bp-home");
    const env = {
      PATH: pathWithoutRuntimes(join(work, "path")),
      HOME: work,
      BROWSER_PILOT_HOME: home,
      BROWSER_PILOT_CHROME: chromium,
      BROWSER_PILOT_CLIENT_KEY: "release-test",
      BROWSER_PILOT_IDLE_MS: "30000",
    };
    const probe = Bun.spawnSync(["/bin/sh", "-c", "command -v node || command -v npm || command -v bun || echo none"], {
      env,
    });
    expect(probe.stdout.toString().trim()).toBe("none");
    try {
      expect(runBp(join(pkg, "bp"), ["--version"], env).stdout.trim()).toBe(`${VERSION} (${platform})`);
      expect(runBp(join(pkg, "browser-pilot"), ["--version"], env).stdout.trim()).toBe(`${VERSION} (${platform})`);
      const help = runBp(join(pkg, "bp"), ["--help"], env);
      expect(help.code).toBe(0);
      for (const cmd of ["launch", "open <url>", "snapshot"]) expect(help.stdout).toContain(cmd);
      const launch = runBp(join(pkg, "bp"), ["launch", "--headless"], env);
      expect(launch.json).toMatchObject({ ok: true, browser: { source: "launched" } });
      const open = runBp(
        join(pkg, "bp"),
        ["open", "data:text/html,<title>release</title><button>Ship it</button>", "--new"],
        env,
      );
      expect(open.json).toMatchObject({ ok: true, tab: "t1" });
      const snap = runBp(join(pkg, "bp"), ["snapshot"], env);
      expect(snap.json.ok).toBe(true);
      expect(snap.stdout).toContain("Ship it");
      const status = runBp(join(pkg, "bp"), ["status"], env);
      expect(status.json.service).toEqual({ state: "running", version: VERSION, target: platform });
    } finally {
      const pids = processesUnder(home);
      await stopAll(pids);
      expect(
        pids.filter((p) => existsSync(`/proc/${p}`) && !readFileSync(`/proc/${p}/stat`, "utf8").includes(") Z ")),
      ).toEqual([]);
    }
  }, 120_000);

  test("a second compile of the same checkout gives the same executable bytes", () => {
    // The compile is the only step with hidden state (Bun embeds the output's name); the
    // payload, tar and gzip steps are pure functions of their inputs and the commit time.
    const again = join(work, "again", "bp");
    compile({ root, platform, outfile: again, runtime: runtimeFor(root, platform).path });
    expect(sha256(again)).toBe(sha256(join(work, "unpacked", top, "bp")));
  }, 120_000);
});

describe("install.sh", () => {
  const install = (archive: string, prefix: string, o: { cwd?: string; force?: boolean } = {}) => {
    const args = [
      "/bin/sh",
      join(root, "build/install.sh"),
      "--prefix",
      prefix,
      ...(o.force ? ["--force"] : []),
      archive,
    ];
    const r = Bun.spawnSync(args, {
      stdout: "pipe",
      stderr: "pipe",
      cwd: o.cwd ?? work,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: work },
    });
    return { code: r.exitCode, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
  };

  test("installs a verified archive into the prefix; bp and browser-pilot run from there", () => {
    const from = join(work, "inst-good");
    const prefix = join(work, "prefix-good");
    mkdirSync(from, { recursive: true });
    copyFileSync(join(out, archiveName), join(from, archiveName));
    copyFileSync(join(out, "SHA256SUMS"), join(from, "SHA256SUMS"));
    const r = install(join(from, archiveName), prefix);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`installed bp ${VERSION} (${platform}) at ${prefix}/bin/bp`);
    for (const cmd of ["bp", "browser-pilot"])
      expect(
        Bun.spawnSync([join(prefix, "bin", cmd), "--version"])
          .stdout.toString()
          .trim(),
      ).toBe(`${VERSION} (${platform})`);
    expect(readdirSync(join(prefix, "lib/browser-pilot"))).toEqual([`${VERSION}-${platform}`]);
  }, 120_000);

  test("a relative prefix is taken from the current directory; the links work from anywhere", () => {
    const from = join(work, "inst-rel");
    mkdirSync(join(from, "here"), { recursive: true });
    copyFileSync(join(out, archiveName), join(from, archiveName));
    copyFileSync(join(out, `${archiveName}.sha256`), join(from, `${archiveName}.sha256`));
    const r = install(join("..", archiveName), "rel/prefix", { cwd: join(from, "here") });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const prefix = join(from, "here", "rel", "prefix");
    expect(r.stdout).toContain(`at ${prefix}/bin/bp`);
    expect(readlinkSync(join(prefix, "bin", "bp"))).toBe(
      join(prefix, "lib/browser-pilot", `${VERSION}-${platform}`, "bp"),
    );
    expect(
      Bun.spawnSync([join(prefix, "bin", "browser-pilot"), "--version"], { cwd: "/" })
        .stdout.toString()
        .trim(),
    ).toBe(`${VERSION} (${platform})`);
  }, 120_000);

  test("leaves a bp it did not install alone (a file or another tool's link) unless --force", () => {
    const from = join(work, "inst-foreign");
    const prefix = join(work, "prefix-foreign");
    mkdirSync(join(prefix, "bin"), { recursive: true });
    mkdirSync(from, { recursive: true });
    copyFileSync(join(out, archiveName), join(from, archiveName));
    copyFileSync(join(out, "SHA256SUMS"), join(from, "SHA256SUMS"));
    const other = join(work, "other-bp");
    writeFileSync(other, "#!/bin/sh\necho other\n", { mode: 0o755 });
    symlinkSync(other, join(prefix, "bin", "bp"));
    const refused = install(join(from, archiveName), prefix);
    expect(refused.code).toBe(7);
    expect(refused.stderr).toContain(
      `${prefix}/bin/bp exists and was not installed by this script; use --force to replace it`,
    );
    expect(readlinkSync(join(prefix, "bin", "bp"))).toBe(other);
    const forced = install(join(from, archiveName), prefix, { force: true });
    expect(forced.code).toBe(0);
    // Its own link from the previous install is replaced without --force.
    const again = install(join(from, archiveName), prefix);
    expect(again.stderr).toBe("");
    expect(again.code).toBe(0);
    expect(
      Bun.spawnSync([join(prefix, "bin", "bp"), "--version"])
        .stdout.toString()
        .trim(),
    ).toBe(`${VERSION} (${platform})`);
  }, 120_000);

  test("refuses a corrupted archive with a clear message and installs nothing", () => {
    const from = join(work, "inst-bad");
    const prefix = join(work, "prefix-bad");
    mkdirSync(from, { recursive: true });
    const bytes = new Uint8Array(readFileSync(join(out, archiveName)));
    bytes[Math.floor(bytes.length / 2)] = (bytes[Math.floor(bytes.length / 2)] ?? 0) ^ 0xff;
    writeFileSync(join(from, archiveName), bytes);
    copyFileSync(join(out, `${archiveName}.sha256`), join(from, `${archiveName}.sha256`));
    const r = install(join(from, archiveName), prefix);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain(`install.sh: checksum mismatch for ${archiveName}`);
    expect(r.stderr).toContain("nothing was installed");
    expect(existsSync(prefix)).toBe(false);
  }, 60_000);

  test("refuses an archive without a checksum", () => {
    const from = join(work, "inst-none");
    mkdirSync(from, { recursive: true });
    copyFileSync(join(out, archiveName), join(from, archiveName));
    const r = install(join(from, archiveName), join(work, "prefix-none"));
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`no checksum for ${archiveName}`);
  });

  test("refuses an archive whose outer checksum matches but a file inside does not match its SHA256SUMS", () => {
    const from = join(work, "inst-inner");
    const prefix = join(work, "prefix-inner");
    mkdirSync(from, { recursive: true });
    const enc = new TextEncoder();
    const sum = new Bun.CryptoHasher("sha256").update("original\n").digest("hex");
    const entries: Entry[] = [
      { path: top, kind: "dir", mode: 0o755 },
      { path: `${top}/README.md`, kind: "file", mode: 0o644, data: enc.encode("changed\n") },
      {
        path: `${top}/manifest.json`,
        kind: "file",
        mode: 0o644,
        data: enc.encode(`{\n  "version": "${VERSION}",\n  "platform": "${platform}",\n}\n`),
      },
      { path: `${top}/SHA256SUMS`, kind: "file", mode: 0o644, data: enc.encode(`${sum}  README.md\n`) },
    ];
    writeFileSync(join(from, archiveName), tarGz(entries, 0));
    writeFileSync(join(from, `${archiveName}.sha256`), `${sha256(join(from, archiveName))}  ${archiveName}\n`);
    const r = install(join(from, archiveName), prefix);
    expect(r.code).toBe(5);
    expect(r.stderr).toContain("README.md does not match the archive's SHA256SUMS");
    expect(existsSync(join(prefix, "bin", "bp"))).toBe(false);
    expect(readdirSync(join(prefix, "lib/browser-pilot"))).toEqual([]);
  });
});
