/**
 * What every part of the reliability suite reports: rows of "what was tried, how many times,
 * what failed", rendered as the tables of docs/reliability.md.
 */

export interface Row {
  what: string;
  target: string;
  tried: number;
  failed: number;
  /** The first few failures, verbatim enough to reproduce. */
  failures: string[];
  /** A known defect keeps this row from gating `npm test` until its fix lands. */
  pending?: string;
}

export interface PartReport {
  part: string;
  title: string;
  rows: Row[];
  wallSeconds: number;
  /** Measurements that are not pass/fail counts (RSS, latencies). */
  figures: Record<string, string | number>;
}

export type Scale = "short" | "full";

export interface PartContext {
  scale: Scale;
  seed: number;
  /** Overrides how many rounds a part repeats (`--reps N`), for a quicker or longer run. */
  reps?: number;
  /** Overrides how many calls the fuzz and soak parts make (`--count N`). */
  count?: number;
  log(message: string): void;
}

export interface Part {
  name: string;
  title: string;
  run(ctx: PartContext): Promise<PartReport>;
}

const KEEP_FAILURES = 5;

/** Counts attempts and failures of one row. */
export class Tally {
  readonly row: Row;

  constructor(what: string, target: string, pending?: string) {
    this.row = { what, target, tried: 0, failed: 0, failures: [], ...(pending ? { pending } : {}) };
  }

  /** One attempt; `problem` undefined means it met the target. */
  record(problem: string | undefined): void {
    this.row.tried++;
    if (problem === undefined) return;
    this.row.failed++;
    const text = problem.slice(0, 400);
    if (this.row.failures.length < KEEP_FAILURES && !this.row.failures.includes(text)) this.row.failures.push(text);
  }

  /** Runs one attempt; a thrown error is a failure with its message. */
  async attempt(fn: () => Promise<string | undefined>): Promise<void> {
    try {
      this.record(await fn());
    } catch (err) {
      this.record(`threw: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}

export function rerunCommand(part: string, scale: Scale, seed?: number): string {
  const flags = [
    `--part ${part}`,
    ...(scale === "short" ? ["--short"] : []),
    ...(seed !== undefined ? [`--seed ${seed}`] : []),
  ];
  return `npm run reliability -- ${flags.join(" ")}`;
}

function cell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\r?\n/g, " ");
}

export interface SavedPart {
  report: PartReport;
  scale: Scale;
  seed: number;
  /** When the part ran, "YYYY-MM-DD HH:MM UTC". */
  date: string;
  machine: string;
}

export function renderMarkdown(saved: SavedPart[], missing: string[]): string {
  const lines: string[] = [
    "# Reliability and security figures",
    "",
    "Produced by `npm run reliability` (the script in `test/reliability/run.ts`); a short,",
    "deterministic version of every part runs in `npm test` (`test/reliability/suite.test.ts`).",
    "Everything runs against loopback only (test browsers get a dead proxy and a host resolver",
    "that resolves no other name), is bounded in count and time, and stops the processes it",
    "started by pid. Every row counts attempts; a failure is any attempt that missed the row's",
    "target. The figures below are those of the last full run of each part, as measured.",
    "",
    "A row marked *pending* has a known defect behind it (named in the row): its short check",
    "does not gate `npm test` until the fix lands, and its failures are the defect's",
    "reproduction.",
    "",
  ];
  for (const { report: r, scale, seed, date, machine } of saved) {
    lines.push(
      `## ${r.title}`,
      "",
      `Ran ${date} (${scale} scale, ${machine}, ${r.wallSeconds.toFixed(0)} s wall). Rerun: \`${rerunCommand(r.part, scale, r.part === "fuzz" || r.part === "policy" ? seed : undefined)}\`.`,
      "",
    );
    lines.push("| what was tried | times | failed | target | status |", "| --- | ---: | ---: | --- | --- |");
    for (const row of r.rows) {
      const status = row.failed === 0 ? "met" : row.pending ? `pending: ${row.pending}` : "**not met**";
      lines.push(`| ${cell(row.what)} | ${row.tried} | ${row.failed} | ${cell(row.target)} | ${cell(status)} |`);
    }
    const figures = Object.entries(r.figures);
    if (figures.length > 0) {
      lines.push("", ...figures.map(([k, v]) => `- ${k}: ${v}`));
    }
    const failing = r.rows.filter((row) => row.failures.length > 0);
    if (failing.length > 0) {
      lines.push("", "First failures:", "");
      for (const row of failing)
        for (const f of row.failures) lines.push(`- ${cell(row.what)}: \`${cell(f).replace(/`/g, "'")}\``);
    }
    lines.push("");
  }
  for (const part of missing)
    lines.push(`## ${part}`, "", `No full run recorded yet: \`${rerunCommand(part, "full")}\`.`, "");
  return `${lines.join("\n").trimEnd()}\n`;
}

/** One line per row, for the console. */
export function renderSummary(reports: PartReport[]): string {
  const out: string[] = [];
  for (const r of reports) {
    out.push(`${r.title} (${r.wallSeconds.toFixed(1)} s)`);
    for (const row of r.rows)
      out.push(
        `  ${row.failed === 0 ? "ok " : row.pending ? "pend" : "FAIL"} ${row.tried - row.failed}/${row.tried}  ${row.what}${row.failures[0] ? `  — ${row.failures[0]}` : ""}`,
      );
    for (const [k, v] of Object.entries(r.figures)) out.push(`       ${k}: ${v}`);
  }
  return out.join("\n");
}
