/**
 * `npm run reliability`: the reliability and security suite at full scale, writing its figures
 * to docs/reliability.md. `--short` runs the small version `npm test` runs; `--part a,b` runs
 * some parts; `--seed N` reruns a fuzz run exactly; `--no-write` only prints.
 */
import { writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import { PARTS, runPart } from "./parts/index.ts";
import { renderMarkdown, renderSummary, type PartReport, type Scale } from "./lib/report.ts";

function option(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const scale: Scale = process.argv.includes("--short") ? "short" : "full";
const seed = Number(option("--seed") ?? Math.floor(Math.random() * 1e9));
const wanted = option("--part")?.split(",");
const unknown = wanted?.filter((w) => !PARTS.some((p) => p.name === w)) ?? [];
if (unknown.length > 0) {
  console.error(`Unknown part(s): ${unknown.join(", ")}. Parts: ${PARTS.map((p) => p.name).join(", ")}`);
  process.exit(2);
}
const parts = PARTS.filter((p) => !wanted || wanted.includes(p.name));
const reports: PartReport[] = [];
for (const part of parts) {
  console.error(`== ${part.title} (${scale})`);
  reports.push(await runPart(part, { scale, seed, log: (m) => console.error(`   ${m}`) }));
}
console.log(renderSummary(reports));
// Only a full run of every part replaces the published figures.
if (scale === "full" && !wanted && !process.argv.includes("--no-write")) {
  const machine = `${cpus().length} cores, ${process.platform}, Bun ${Bun.version}`;
  const out = join(import.meta.dir, "../../docs/reliability.md");
  writeFileSync(out, renderMarkdown(reports, { scale, seed, date: new Date().toISOString().slice(0, 16).replace("T", " ") + " UTC", machine }));
  console.log(`wrote ${out}`);
}
const failed = reports.flatMap((r) => r.rows).filter((row) => row.failed > 0 && !row.pending);
process.exit(failed.length > 0 ? 1 : 0);
