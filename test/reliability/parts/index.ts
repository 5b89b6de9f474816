import { startCpuMeter } from "../lib/cpu.ts";
import { strayErrors } from "../lib/lab.ts";
import { Tally, type Part, type PartContext, type PartReport } from "../lib/report.ts";
import { coldStartsPart } from "./cold-starts.ts";
import { crossAgentPart } from "./cross-agent.ts";
import { frozenPart } from "./frozen.ts";
import { fuzzPart } from "./fuzz.ts";
import { hostilePart } from "./hostile.ts";
import { killsPart } from "./kills.ts";
import { localFilesPart } from "./local-files.ts";
import { policyPart } from "./policy.ts";
import { loadingPart } from "./loading.ts";
import { soakPart } from "./soak.ts";
import { secretsPart } from "./secrets.ts";
import { socketPart } from "./socket.ts";
import { stateFaultsPart } from "./state-faults.ts";

/** In run order: cheap parts first, the soak last. */
export const PARTS: Part[] = [
  coldStartsPart,
  socketPart,
  crossAgentPart,
  localFilesPart,
  fuzzPart,
  policyPart,
  hostilePart,
  killsPart,
  frozenPart,
  loadingPart,
  secretsPart,
  stateFaultsPart,
  soakPart,
];

/** Runs a part and adds the CPU it cost (harness, every bp, broker, janitor, Chromium). */
export async function runPart(part: Part, ctx: PartContext): Promise<PartReport> {
  const meter = startCpuMeter();
  const before = strayErrors.length;
  const report = await part.run(ctx);
  // A broker that survives a stray rejection still has a bug behind it; count them.
  const stray = new Tally("broker log: unhandled rejections and uncaught exceptions during the part", "0");
  stray.record(
    strayErrors.length > before ? `${strayErrors.length - before} logged, first: ${strayErrors[before]}` : undefined,
  );
  report.rows.push(stray.row);
  report.figures["CPU seconds (harness, bp calls, brokers, janitors, Chromium)"] = meter.stop().toFixed(1);
  return report;
}
