import type { BatchEnv } from "./batch.ts";
import { printResult } from "./output.ts";

/** What the CLI hands its own tools: a batch's environment but the output directory, read here. */
export type ToolEnv = Omit<BatchEnv, "outputDir">;

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
    else await printResult(name, skill, "json");
    return;
  }
  const { runDoctor } = await import("./doctor.ts");
  const report = await runDoctor(env.paths);
  if (env.mode === "human") {
    const mark = { ok: "✓", warn: "!", fail: "✗" } as const;
    console.log(
      report.checks
        .map((c) => `${mark[c.status]} ${c.name}: ${c.detail}${c.fix ? `\n    fix: ${c.fix}` : ""}`)
        .join("\n"),
    );
  } else await printResult(name, report, "json");
  if (!report.ok) process.exitCode = 1;
}
