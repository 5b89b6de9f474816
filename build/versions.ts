/**
 * One synchronized root version (spec §19): package.json, package-lock.json, the executable's
 * VERSION and the skill's compatibility.json must agree, and the skill's supported range
 * must contain the version being built. The build refuses to produce a bp that disagrees.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PROTOCOL, VERSION } from "../src/shared/version.ts";

export interface Compatibility {
  schemaVersion: number;
  skillVersion: string;
  browserPilotCli: {
    testedVersion: string;
    minimumVersion: string;
    maximumVersionExclusive: string;
    supportedVersionRange: string;
  };
  protocol: { min: number; max: number };
}

type Triple = [number, number, number];

export function parseVersion(text: string): Triple {
  const m = /^(\d+)\.(\d+)\.(\d+)$/.exec(text.trim());
  if (!m) throw new Error(`'${text}' is not a plain x.y.z version`);
  return [Number(m[1]), Number(m[2]), Number(m[3])];
}

export function compareVersions(a: string, b: string): number {
  const x = parseVersion(a);
  const y = parseVersion(b);
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return (x[i] ?? 0) - (y[i] ?? 0);
  return 0;
}

/** `>=0.1.0 <1.0.0` style ranges: space-separated comparators that must all hold. */
export function satisfies(version: string, range: string): boolean {
  const parts = range.trim().split(/\s+/);
  if (parts.length === 0 || parts[0] === "") throw new Error("empty version range");
  return parts.every((part) => {
    const m = /^(>=|<=|>|<|=)?(\d+\.\d+\.\d+)$/.exec(part);
    if (!m) throw new Error(`unsupported comparator '${part}' in range '${range}'`);
    const c = compareVersions(version, m[2] ?? "");
    switch (m[1]) {
      case ">=":
        return c >= 0;
      case "<=":
        return c <= 0;
      case ">":
        return c > 0;
      case "<":
        return c < 0;
      default:
        return c === 0;
    }
  });
}

export interface VersionFacts {
  version: string;
  protocol: { min: number; max: number; version: number };
  compatibility: Compatibility;
}

/** Returns the facts, or throws one error listing every disagreement. */
export function checkVersions(root: string): VersionFacts {
  const read = (p: string) => JSON.parse(readFileSync(join(root, p), "utf8")) as Record<string, unknown>;
  const pkg = read("package.json");
  const lock = read("package-lock.json");
  const compat = read("skill/compatibility.json") as unknown as Compatibility;
  const cli = compat.browserPilotCli;
  const problems: string[] = [];
  if (pkg.version !== VERSION)
    problems.push(`package.json version ${String(pkg.version)} differs from src/shared/version.ts ${VERSION}`);
  if (lock.version !== VERSION)
    problems.push(`package-lock.json version ${String(lock.version)} differs from ${VERSION}`);
  if (compat.skillVersion !== VERSION)
    problems.push(`skill/compatibility.json skillVersion ${compat.skillVersion} differs from ${VERSION}`);
  if (cli.testedVersion !== VERSION)
    problems.push(`skill/compatibility.json testedVersion ${cli.testedVersion} differs from ${VERSION}`);
  const expectedRange = `>=${cli.minimumVersion} <${cli.maximumVersionExclusive}`;
  if (cli.supportedVersionRange !== expectedRange)
    problems.push(
      `skill/compatibility.json supportedVersionRange '${cli.supportedVersionRange}' should be '${expectedRange}' (its minimum and maximum fields)`,
    );
  else if (!satisfies(VERSION, cli.supportedVersionRange))
    problems.push(`version ${VERSION} is outside the skill's supportedVersionRange '${cli.supportedVersionRange}'`);
  if (compat.protocol.min !== PROTOCOL.min || compat.protocol.max !== PROTOCOL.max) {
    problems.push(
      `skill/compatibility.json protocol ${compat.protocol.min}-${compat.protocol.max} differs from the executable's ${PROTOCOL.min}-${PROTOCOL.max}`,
    );
  }
  if (problems.length > 0) throw new Error(`Version check failed:\n  ${problems.join("\n  ")}`);
  return {
    version: VERSION,
    protocol: { min: PROTOCOL.min, max: PROTOCOL.max, version: PROTOCOL.version },
    compatibility: compat,
  };
}
