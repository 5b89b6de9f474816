/**
 * Writes skill/references/commands.md from the command table, so the skill never drifts from
 * `bp --help`: every section is exactly what the executable prints. `npm run build` runs this;
 * `bun build/skill-references.ts --check` only reports. The builds of npm install and npm test
 * skip it and the release refuses stale references, so test/skill.test.ts sees the committed copy.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CommandGroup } from "../src/protocol/define.ts";
import { renderCommandHelp, renderTopHelp } from "../src/protocol/help.ts";
import { allCommands } from "../src/protocol/table.ts";
import { VERSION } from "../src/shared/version.ts";

export const REGENERATE = "npm run build";
export const GENERATED = ["skill/references/commands.md"] as const;

export async function renderReferences(): Promise<Record<(typeof GENERATED)[number], string>> {
  const commands = await allCommands();
  const out = [
    "# bp command reference",
    "",
    `Generated from the command table by \`${REGENERATE}\`; do not edit by hand. Each block is`,
    "exactly what `bp --help` or `bp <command> --help` prints. `bp schema <command>` gives the",
    "JSON Schemas of a command's arguments and result.",
    "",
    "## Overview",
    "",
    "```text",
    await renderTopHelp(VERSION),
    "```",
  ];
  let group: CommandGroup | undefined;
  // Help order, grouped as in `bp --help`.
  const order = [...new Set(commands.map((c) => c.group))];
  for (const g of order) {
    for (const def of commands.filter((c) => c.group === g)) {
      if (group !== g) {
        out.push("", `## ${g}`);
        group = g;
      }
      out.push("", `### ${def.name}`, "", "```text", renderCommandHelp(def), "```");
    }
  }
  return { "skill/references/commands.md": `${out.join("\n")}\n` };
}

/** Paths whose committed text differs from what the command table generates. */
export async function staleReferences(root: string): Promise<string[]> {
  const files = await renderReferences();
  return Object.entries(files)
    .filter(([path, text]) => !existsSync(join(root, path)) || readFileSync(join(root, path), "utf8") !== text)
    .map(([path]) => path);
}

/** Rewrites what changed; returns the rewritten paths. */
export async function writeReferences(root: string): Promise<string[]> {
  const files = await renderReferences();
  const stale = await staleReferences(root);
  for (const path of stale) writeFileSync(join(root, path), files[path as keyof typeof files]);
  return stale;
}

if (import.meta.main) {
  const root = join(import.meta.dir, "..");
  if (process.argv.includes("--check")) {
    const stale = await staleReferences(root);
    if (stale.length > 0) {
      console.error(`Stale skill references: ${stale.join(", ")}. Run '${REGENERATE}' and commit the result.`);
      process.exit(1);
    }
    console.error("skill references are current");
  } else {
    const written = await writeReferences(root);
    console.error(written.length > 0 ? `wrote ${written.join(", ")}` : "skill references are current");
  }
}
