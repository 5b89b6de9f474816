/**
 * The capability corpus (DESIGN.md §14): real dist/bp runs against real Chromium on local pages,
 * scored for target recall, false interactables, action-failure and stale-ref detection and
 * output bytes, then held to the committed baseline.json by a directional gate. Prints a table.
 * BP_UPDATE_BASELINE=1 rewrites the baseline from this run (docs/capabilities.md).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { requireChromium } from "../support/chromium.ts";
import { makeBpEnv } from "../support/bp.ts";
import { startFixtureServer, type Fixture } from "../support/fixture-server.ts";
import { CASES, corpusPages } from "./corpus.ts";
import { compare, formatTable, makeBaseline, UPDATE_ENV, type Baseline } from "./gate.ts";
import { Harness, type CaseResult, type ProbeResult } from "./harness.ts";
import { OBSERVATION_PROBES, PROBES, runProbe } from "./probes.ts";

requireChromium();

const BASELINE_PATH = join(import.meta.dir, "baseline.json");
const site: Fixture = startFixtureServer(corpusPages(() => site));
const env = makeBpEnv();
const harness = new Harness(env, site);

afterAll(async () => {
  await env.cleanup();
  site.stop();
});

function readBaseline(): Baseline | undefined {
  if (!existsSync(BASELINE_PATH)) return undefined;
  return JSON.parse(readFileSync(BASELINE_PATH, "utf8")) as Baseline;
}

interface Run {
  browser: string;
  cases: CaseResult[];
  probes: ProbeResult[];
}

let run: Run | undefined;

describe("capability corpus", () => {
  test("every case and probe runs through dist/bp against real Chromium", async () => {
    const launched = await env.run(["launch", "--headless"]);
    expect(launched.json.ok).toBe(true);
    const browser = String((launched.json.browser as { version?: string } | undefined)?.version ?? "unknown browser");
    const cases: CaseResult[] = [];
    for (const c of CASES) cases.push(await harness.runCase(c));
    const probes: ProbeResult[] = [];
    for (const p of [...PROBES, ...OBSERVATION_PROBES]) probes.push(await runProbe(harness, p));
    run = { browser, cases, probes };

    const base = readBaseline();
    console.log(`\n${formatTable(browser, cases, probes, base)}\n`);
    if (process.env[UPDATE_ENV] === "1") {
      if (base) for (const v of compare(base, cases, probes).violations) console.log(`  [baseline update] was: ${v}`);
      writeFileSync(BASELINE_PATH, `${JSON.stringify(makeBaseline(browser, cases, probes), null, 2)}\n`);
      console.log(`  baseline written to ${BASELINE_PATH}`);
    }
    expect(cases.length).toBe(CASES.length);
    expect(probes.length).toBe(PROBES.length + OBSERVATION_PROBES.length);
  }, 90_000);

  test("the directional gate holds against baseline.json", () => {
    if (!run) throw new Error("the corpus did not run (see the previous test)");
    const base = readBaseline();
    if (!base) throw new Error(`${BASELINE_PATH} is missing: run the corpus once with ${UPDATE_ENV}=1 and commit it`);
    const { violations, improvements } = compare(base, run.cases, run.probes);
    for (const i of improvements)
      console.log(`  improved: ${i} (rewrite the baseline with ${UPDATE_ENV}=1 to lock it in)`);
    expect(violations).toEqual([]);
  });
});
