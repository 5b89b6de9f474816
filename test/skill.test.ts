/**
 * The packaged skill is complete and true: its generated command reference matches the
 * command table, its recovery table covers every code bp emits, the files SKILL.md names
 * exist, and compatibility.json agrees with the version the build produces.
 */
import { describe, expect, test } from "bun:test";
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REGENERATE, renderReferences, staleReferences } from "../build/skill-references.ts";
import { release } from "../build/release.ts";
import { checkVersions, satisfies } from "../build/versions.ts";
import { renderCommandHelp } from "../src/protocol/help.ts";
import { describeArgs } from "../src/protocol/introspect.ts";
import { allCommands, findCommand, globalArgs, matchCommandName } from "../src/protocol/table.ts";
import { ERROR_CODES } from "../src/shared/errors.ts";
import { VERSION } from "../src/shared/version.ts";

const root = join(import.meta.dir, "..");
const skill = join(root, "skill");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return e.name.endsWith(".ts") && !e.name.endsWith(".test.ts") && !e.name.startsWith("_") ? [p] : [];
  });
}

describe("skill", () => {
  test("the committed command reference is what the command table generates", async () => {
    const stale = await staleReferences(root);
    if (stale.length > 0) throw new Error(`Stale: ${stale.join(", ")}. Run '${REGENERATE}' and commit the result.`);
    expect(stale).toEqual([]);
  });

  test("the reference holds every command's --help text verbatim", async () => {
    const text = (await renderReferences())["skill/references/commands.md"];
    const commands = await allCommands();
    expect(commands.length).toBeGreaterThan(20);
    for (const def of commands) expect(text).toContain(renderCommandHelp(def));
  });

  test("the recovery table has a row for every error code bp emits", () => {
    const table = readFileSync(join(skill, "references/recovery.md"), "utf8");
    const emitted = new Set<string>();
    for (const file of sourceFiles(join(root, "src"))) {
      // The list itself, and readers generated from it, name every code without emitting one.
      if (file.endsWith(join("shared", "errors.ts")) || file.endsWith(".generated.ts")) continue;
      const text = readFileSync(file, "utf8");
      for (const code of ERROR_CODES) if (text.includes(`"${code}"`)) emitted.add(code);
    }
    expect(emitted.size).toBeGreaterThan(10);
    const missing = [...emitted].filter((c) => !table.includes(`| \`${c}\` |`));
    if (missing.length > 0) throw new Error(`skill/references/recovery.md has no row for: ${missing.join(", ")}`);
  });

  test("SKILL.md names only files that ship, and teaches the essentials", () => {
    const text = readFileSync(join(skill, "SKILL.md"), "utf8");
    expect(text.startsWith("---\nname: browser-pilot\ndescription: ")).toBe(true);
    for (const ref of text.match(/(references\/[a-z-]+\.md|compatibility\.json)/g) ?? [])
      expect(existsSync(join(skill, ref))).toBe(true);
    for (const must of [
      "bp status",
      "BROWSER_PILOT_CLIENT_KEY",
      "bp launch",
      "bp connect",
      "bp snapshot",
      "stale_ref",
      "--request-id",
      "bp --version",
      "handoff",
    ])
      expect(text).toContain(must);
  });

  test("every bp command and flag the skill names exists in the command table", async () => {
    const commands = await allCommands();
    const globals = Object.keys(globalArgs().entries);
    const flagsOf = (def: (typeof commands)[number]) => [
      ...describeArgs(def).flatMap((a) => [a.name, ...(a.alias ? [a.alias] : [])]),
      ...globals,
      "help",
    ];
    const anywhere = new Set([...commands.flatMap(flagsOf), "version"]);
    const wrong: string[] = [];
    for (const file of ["SKILL.md", "references/recovery.md"]) {
      const text = readFileSync(join(skill, file), "utf8");
      for (const span of (text.match(/`[^`\n]+`/g) ?? []).map((s) => s.slice(1, -1))) {
        for (const flag of span.match(/(?<![\w-])--[a-z][a-z-]*/g) ?? [])
          if (!anywhere.has(flag.slice(2))) wrong.push(`${file}: '${flag}' in \`${span}\` is no flag of any command`);
        // A shell pipe (' | ') ends one call; '--accept|--dismiss' is one call's alternatives.
        for (const call of span.split(" | ")) {
          const at = call.search(/(?:^|[\s(])bp /);
          if (at === -1) continue;
          const words = call.slice(at).trim().split(/\s+/).slice(1);
          if (words[0] === undefined || words[0].startsWith("--") || words[0].startsWith("<")) continue;
          const match = matchCommandName(words.filter((w, i) => i < 2 && /^[a-z]+$/.test(w)));
          const def = match ? await findCommand(match.name) : undefined;
          if (!def) {
            wrong.push(`${file}: \`${call}\` names no command`);
            continue;
          }
          const known = new Set(flagsOf(def));
          for (const flag of call.match(/(?<![\w-])--[a-z][a-z-]*/g) ?? [])
            if (!known.has(flag.slice(2))) wrong.push(`${file}: \`${call}\`: ${def.name} has no ${flag}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  test("compatibility.json agrees with the version being built", () => {
    const facts = checkVersions(root);
    expect(facts.version).toBe(VERSION);
    expect(satisfies(VERSION, facts.compatibility.browserPilotCli.supportedVersionRange)).toBe(true);
  });

  test("the version check refuses a skill whose range excludes the build", () => {
    const dir = mkdtempSync(join(tmpdir(), "bp-versions-"));
    try {
      for (const f of ["package.json", "package-lock.json"]) cpSync(join(root, f), join(dir, f));
      const compat = JSON.parse(readFileSync(join(skill, "compatibility.json"), "utf8")) as {
        browserPilotCli: Record<string, string>;
      };
      compat.browserPilotCli = {
        ...compat.browserPilotCli,
        minimumVersion: "9.0.0",
        maximumVersionExclusive: "10.0.0",
        supportedVersionRange: ">=9.0.0 <10.0.0",
      };
      cpSync(skill, join(dir, "skill"), { recursive: true });
      writeFileSync(join(dir, "skill/compatibility.json"), JSON.stringify(compat));
      expect(() => checkVersions(dir)).toThrow(
        `version ${VERSION} is outside the skill's supportedVersionRange '>=9.0.0 <10.0.0'`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a release refuses stale references instead of rewriting them", async () => {
    const dir = mkdtempSync(join(tmpdir(), "bp-stale-"));
    try {
      for (const f of ["package.json", "package-lock.json"]) cpSync(join(root, f), join(dir, f));
      cpSync(skill, join(dir, "skill"), { recursive: true });
      const ref = join(dir, "skill/references/commands.md");
      writeFileSync(ref, `${readFileSync(ref, "utf8")}\nan edit by hand\n`);
      const before = readFileSync(ref, "utf8");
      const run = release({
        root: dir,
        out: join(dir, "out"),
        platforms: ["linux-x64"],
        smoke: false,
        log: () => undefined,
      });
      await expect(run).rejects.toThrow(
        `Stale skill references: skill/references/commands.md. Run '${REGENERATE}' and commit the result before releasing.`,
      );
      expect(readFileSync(ref, "utf8")).toBe(before);
      expect(existsSync(join(dir, "out"))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("version ranges", () => {
    expect(satisfies("0.1.0", ">=0.1.0 <1.0.0")).toBe(true);
    expect(satisfies("0.10.0", ">=0.9.0 <1.0.0")).toBe(true);
    expect(satisfies("1.0.0", ">=0.1.0 <1.0.0")).toBe(false);
    expect(satisfies("0.0.9", ">=0.1.0 <1.0.0")).toBe(false);
    expect(() => satisfies("0.1.0", "^0.1.0")).toThrow("unsupported comparator");
  });
});
