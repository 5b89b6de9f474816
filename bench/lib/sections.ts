/** Marks where docs/benchmarks.md's batch section (written by bench/batch.ts) starts; `npm run bench` keeps it. */
export const BATCH_SECTION = "<!-- bench/batch.ts -->";
