/**
 * `npm run reliability`: the reliability and security suite at full scale. Each part's
 * figures are kept (`--results DIR`, default in the temp dir) and docs/reliability.md is
 * rendered from the last full run of every part, so parts can run separately.
 * `--short` runs the small version `npm test` runs (never written to the docs); `--part a,b`
 * runs some parts; `--seed N` reruns a fuzz run exactly; `--reps N` changes how many rounds a
 * part repeats and `--count N` how many calls fuzz and soak make; `--no-write` only prints.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { PARTS, runPart } from "./parts/index.ts";
import { renderMarkdown, renderSummary, type PartReport, type SavedPart, type Scale } from "./lib/report.ts";

function option(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const scale: Scale = process.argv.includes("--short") ? "short" : "full";
const seed = Number(option("--seed") ?? Math.floor(Math.random() * 1e9));
const wanted = option("--part")?.split(",");
const reps = option("--reps") !== undefined ? Number(option("--reps")) : undefined;
const count = option("--count") !== undefined ? Number(option("--count")) : undefined;
const results = option("--results") ?? join(tmpdir(), "bp-reliability-results");
const unknown = wanted?.filter((w) => !PARTS.some((p) => p.name === w)) ?? [];
if (unknown.length > 0) {
  console.error(`Unknown part(s): ${unknown.join(", ")}. Parts: ${PARTS.map((p) => p.name).join(", ")}`);
  process.exit(2);
}
const commit =
  Bun.spawnSync(["git", "rev-parse", "--short", "HEAD"], { cwd: import.meta.dir })
    .stdout.toString()
    .trim() || "unknown";
const machine = `build of ${commit}, ${cpus().length} cores shared with other work, ${process.platform}, Bun ${Bun.version}`;
const parts = PARTS.filter((p) => !wanted || wanted.includes(p.name));
const reports: PartReport[] = [];
mkdirSync(results, { recursive: true });
for (const part of parts) {
  console.error(`== ${part.title} (${scale})`);
  const report = await runPart(part, {
    scale,
    seed,
    ...(reps !== undefined ? { reps } : {}),
    ...(count !== undefined ? { count } : {}),
    log: (m) => console.error(`   ${m}`),
  });
  reports.push(report);
  if (scale === "full") {
    const saved: SavedPart = {
      report,
      scale,
      seed,
      date: `${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC`,
      machine,
    };
    writeFileSync(join(results, `${part.name}.json`), JSON.stringify(saved, null, 1));
  }
}
console.log(renderSummary(reports));
if (scale === "full" && !process.argv.includes("--no-write")) {
  const saved = PARTS.map((p) => join(results, `${p.name}.json`))
    .filter((f) => existsSync(f))
    .map((f) => JSON.parse(readFileSync(f, "utf8")) as SavedPart);
  const missing = PARTS.filter((p) => !saved.some((s) => s.report.part === p.name)).map((p) => p.name);
  const out = join(import.meta.dir, "../../docs/reliability.md");
  writeFileSync(out, renderMarkdown(saved, missing));
  console.log(`wrote ${out} (parts from ${results})`);
}
const failed = reports.flatMap((r) => r.rows).filter((row) => row.failed > 0 && !row.pending);
process.exit(failed.length > 0 ? 1 : 0);
