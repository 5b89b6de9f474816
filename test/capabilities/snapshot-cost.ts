/**
 * What `bp snapshot` costs as pages grow: a table page at ~1,000, ~10,000 and ~50,000 elements,
 * timed three ways (median of 5 after a warm-up):
 *   cli     the whole `dist/bp snapshot` process, as an agent's shell pays it;
 *   broker  the same call sent straight to the broker's socket (no process start, no parsing);
 *   page    the page-side walk alone (pageSnapshot's own stats.ms, run through `bp eval`);
 * plus output bytes at the default limit and at --limit 10000.
 *
 *   node_modules/.bin/bun build/compile.ts
 *   node_modules/.bin/bun test/capabilities/snapshot-cost.ts [--write]
 *
 * --write replaces the results section of docs/capabilities.md. Not a test: numbers depend on
 * the machine, and nothing here asserts them.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { request } from "../../src/cli/client.ts";
import { readLocator } from "../../src/cli/locate.ts";
import { validateArgs } from "../../src/cli/parse.ts";
import { PAGE_LIBRARY } from "../../src/page/bundle.ts";
import { findCommand } from "../../src/protocol/table.ts";
import { readReply } from "../../src/protocol/wire.ts";
import { resolvePaths } from "../../src/shared/paths.ts";
import { PROTOCOL } from "../../src/shared/version.ts";
import { makeBpEnv, type BpEnv } from "../support/bp.ts";
import { requireChromium } from "../support/chromium.ts";
import { startFixtureServer } from "../support/fixture-server.ts";

const SIZES = [1_000, 10_000, 50_000] as const;
const RUNS = 5;
const WARMUP = 1;
const DOC = join(import.meta.dir, "../../docs/capabilities.md");
const BEGIN = "<!-- snapshot-cost:begin -->";
const END = "<!-- snapshot-cost:end -->";

/** Elements per table row: tr, 4 td, a link; a button every 10th row. */
const PER_ROW = 6.1;
const HEAD = `<h1>Orders</h1><form><input type=search aria-label="Filter orders"> <select aria-label=Status><option>All<option>Open</select> <button>Apply</button></form>`;

function tablePage(elements: number): string {
  const rows = Math.max(1, Math.round((elements - 20) / PER_ROW));
  const parts: string[] = [];
  for (let i = 1; i <= rows; i++) {
    const action = i % 10 === 0 ? `<button>Edit ${i}</button>` : "-";
    parts.push(
      `<tr><td>${i}</td><td><a href="#row${i}">Order ${i}</a></td><td>${["open", "paid", "shipped"][i % 3]}</td><td>${action}</td></tr>`,
    );
  }
  return `<!doctype html><title>Orders ${elements}</title>${HEAD}<table><tbody>${parts.join("")}</tbody></table>`;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
};

/**
 * Runs the measured functions in turn (a, b, c, a, b, c, …) so drift on the machine hits them
 * alike; the first WARMUP rounds are thrown away. Returns the median of each.
 */
async function interleaved(fns: readonly (() => Promise<number | undefined>)[]): Promise<number[]> {
  const samples: number[][] = fns.map(() => []);
  for (let round = 0; round < WARMUP + RUNS; round++) {
    for (const [i, fn] of fns.entries()) {
      const t = performance.now();
      const reported = await fn();
      if (round >= WARMUP) samples[i]?.push(reported ?? performance.now() - t);
    }
  }
  return samples.map(median);
}

/** `bp snapshot` sent straight to the broker socket, exactly as the CLI would send it. */
async function brokerSnapshot(env: BpEnv, input: Record<string, unknown>): Promise<undefined> {
  const def = await findCommand("snapshot");
  const locator = await readLocator(resolvePaths(env.env));
  if (!def || !locator) throw new Error("no snapshot command or no broker locator");
  const reply = await request(
    locator.endpoint,
    {
      op: "call",
      token: locator.token,
      protocol: PROTOCOL.version,
      clientKey: "browser-pilot-cli",
      command: "snapshot",
      args: validateArgs(def, input),
      invocation: crypto.randomUUID(),
      timeoutMs: 60_000,
      tabAccess: "all",
      mode: "json",
      executable: { version: locator.executable.version, identity: locator.executable.identity },
    },
    65_000,
    readReply,
  );
  if (!reply.ok) throw new Error(`broker snapshot failed: ${JSON.stringify(reply)}`);
  return undefined;
}

interface Row {
  target: number;
  elements: number;
  cli: number;
  broker: number;
  page: number;
  defaultBytes: number;
  defaultEntries: number;
  fullBytes: number;
  fullEntries: number;
  total: number;
}

async function measure(env: BpEnv, origin: string, size: number): Promise<Row> {
  const open = await env.run(["open", `${origin}/table?n=${size}`]);
  if (!open.json.ok) throw new Error(`open failed: ${open.stdout}`);
  const count = await env.run(["eval", "document.getElementsByTagName('*').length"]);
  const snap = async (args: string[]): Promise<{ bytes: number; entries: number; total: number }> => {
    const r = await env.run(["snapshot", ...args]);
    if (!r.json.ok) throw new Error(`snapshot failed: ${r.stdout}`);
    const elements = Array.isArray(r.json.elements) ? r.json.elements.length : 0;
    return {
      bytes: Buffer.byteLength(r.stdout.trim(), "utf8"),
      entries: elements,
      total: Number(r.json.total ?? elements),
    };
  };
  const pageExpr = `${PAGE_LIBRARY}.snapshot(window, { limit: 50, layout: true }).stats.ms`;
  const [cli = NaN, broker = NaN, page = NaN] = await interleaved([
    async () => void (await snap([])),
    () => brokerSnapshot(env, {}),
    async () => {
      // The page reports its own walk time; process and eval overhead are not part of it.
      const r = await env.run(["eval"], { stdin: pageExpr });
      if (!r.json.ok) throw new Error(`page walk failed: ${r.stdout}`);
      return Number(r.json.value);
    },
  ]);
  const def = await snap([]);
  const full = await snap(["--limit", "10000"]);
  return {
    target: size,
    elements: Number(count.json.value),
    cli,
    broker,
    page,
    defaultBytes: def.bytes,
    defaultEntries: def.entries,
    fullBytes: full.bytes,
    fullEntries: full.entries,
    total: def.total,
  };
}

const ms = (x: number): string => `${Math.round(x)} ms`;
const num = (x: number): string => x.toLocaleString("en");
const exponent = (a: Row, b: Row, key: "cli" | "broker" | "page"): string =>
  (Math.log(b[key] / a[key]) / Math.log(b.elements / a.elements)).toFixed(2);

function report(rows: Row[], browser: string, load: number): string {
  const cpu = `${cpus().length} CPUs (${cpus()[0]?.model.trim() ?? "unknown CPU"}, load average ${load.toFixed(1)} at start)`;
  const lines = [
    `Measured ${new Date().toISOString().slice(0, 10)} on ${cpu}, ${browser} headless, median of ${RUNS} after ${WARMUP} warm-up.`,
    "",
    "| elements | cli (whole process) | broker (socket) | page walk | candidates | default: entries / bytes | --limit 10000: entries / bytes |",
    "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...rows.map((r) => {
      const cells = [
        num(r.elements),
        ms(r.cli),
        ms(r.broker),
        ms(r.page),
        num(r.total),
        `${r.defaultEntries} / ${num(r.defaultBytes)}`,
        `${r.fullEntries} / ${num(r.fullBytes)}`,
      ];
      return `| ${cells.join(" | ")} |`;
    }),
    "",
  ];
  const [small, mid, big] = rows;
  if (small && mid && big) {
    lines.push(
      `Growth exponent k in time ∝ elements^k (1.0 = linear; below 1 means fixed costs still dominate): ` +
        `1k→10k cli ${exponent(small, mid, "cli")}, broker ${exponent(small, mid, "broker")}, page ${exponent(small, mid, "page")}; ` +
        `10k→50k cli ${exponent(mid, big, "cli")}, broker ${exponent(mid, big, "broker")}, page ${exponent(mid, big, "page")}.`,
    );
  }
  return lines.join("\n");
}

async function main(): Promise<void> {
  requireChromium();
  const site = startFixtureServer({ "/table": (url) => tablePage(Number(url.searchParams.get("n") ?? "1000")) });
  const env = makeBpEnv();
  const load = loadavg()[0] ?? 0;
  try {
    const launched = await env.run(["launch", "--headless"]);
    if (!launched.json.ok) throw new Error(`launch failed: ${launched.stdout}`);
    const info = launched.json.browser as { version?: string } | undefined;
    await env.run(["open", `${site.a}/table?n=10`, "--new"]);
    const rows: Row[] = [];
    for (const size of SIZES) {
      rows.push(await measure(env, site.a, size));
      console.error(`measured ${size}`);
    }
    const text = report(rows, info?.version ?? "Chromium", load);
    console.log(text);
    if (process.argv.includes("--write")) {
      const doc = readFileSync(DOC, "utf8");
      const start = doc.indexOf(BEGIN);
      const end = doc.indexOf(END);
      if (start < 0 || end < start) throw new Error(`${DOC} has no ${BEGIN} … ${END} section`);
      writeFileSync(DOC, `${doc.slice(0, start + BEGIN.length)}\n${text}\n${doc.slice(end)}`);
      console.error(`wrote ${DOC}`);
    }
  } finally {
    await env.cleanup();
    site.stop();
  }
}

await main();
