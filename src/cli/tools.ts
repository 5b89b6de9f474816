import type { Globals } from "../protocol/cli-spec.ts";
import type { Locator } from "../protocol/wire.ts";
import type { BpPaths } from "../shared/paths.ts";
import { printResult, type Mode } from "./output.ts";

export interface ToolEnv {
  paths: BpPaths;
  locator: Promise<Locator | undefined>;
  mode: Mode;
  globals: Globals;
  clientKey: string;
  requestId: string | undefined;
  tabAccess: "all" | "own";
}

/** The commands the CLI answers itself beyond runLocal's: batch, doctor, skill. */
export async function runTool(name: string, args: Record<string, unknown>, env: ToolEnv): Promise<void> {
  if (name === "batch") {
    const { runBatch } = await import("./batch.ts");
    await runBatch(args.continue === true, { ...env, outputDir: process.env.BROWSER_PILOT_OUTPUT_DIR || undefined });
    return;
  }
  if (name === "skill") {
    const { bundledSkill } = await import("./skill.ts");
    const skill = bundledSkill(typeof args.reference === "string" ? args.reference : undefined);
    // On a terminal the Markdown itself; piped, the one JSON line every command gives.
    if (env.mode === "human") console.log(skill.content);
    else printResult(name, skill, "json");
    return;
  }
  const { runDoctor } = await import("./doctor.ts");
  const report = await runDoctor(env.paths);
  if (env.mode === "human") {
    const mark = { ok: "✓", warn: "!", fail: "✗" } as const;
    console.log(report.checks.map((c) => `${mark[c.status]} ${c.name}: ${c.detail}${c.fix ? `\n    fix: ${c.fix}` : ""}`).join("\n"));
  } else printResult(name, report, "json");
  if (!report.ok) process.exitCode = 1;
}
