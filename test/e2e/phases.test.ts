/**
 * BROWSER_PILOT_PHASES (src/cdp/phases.ts, off by default): the broker writes one line per
 * request with its timings, for bench/phases.ts. It names commands, CDP methods and page steps,
 * and never what was typed.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { requireChromium } from "../support/chromium.ts";
import { makeBpEnv } from "../support/bp.ts";
import { startFixtureServer } from "../support/fixture-server.ts";

requireChromium();

const site = startFixtureServer({
  "/": `<!doctype html><title>Phases</title><input aria-label="Secret" type=password><button onclick="this.textContent='Done'">Go</button>`,
});
const traced = makeBpEnv();
const file = join(traced.home, "..", "phases.jsonl");
traced.env.BROWSER_PILOT_PHASES = file;
const KEY = "agent-phases";
const SECRET = "hunter2-typed-text";

type Entry = [number, string, unknown?];
type El = { r: number; n?: string };

beforeAll(async () => {
  expect((await traced.run(["launch", "--headless"])).json.ok).toBe(true);
  expect((await traced.run(["open", `${site.a}/`, "--new"], { key: KEY })).json.ok).toBe(true);
});
afterAll(async () => {
  await traced.cleanup();
  site.stop();
});

test("a traced broker records each request's steps and page timings, never the typed text", async () => {
  const els = (await traced.run(["snapshot"], { key: KEY })).json.elements as El[];
  const ref = (n: string) => String(els.find((e) => e.n === n)?.r);
  expect((await traced.run(["type", ref("Secret"), SECRET], { key: KEY })).json.ok).toBe(true);
  expect((await traced.run(["click", ref("Go")], { key: KEY })).json.ok).toBe(true);
  // The broker appends after writing the reply.
  for (let i = 0; i < 50 && !readFileSync(file, "utf8").includes('"click"'); i++) await Bun.sleep(20);
  const text = readFileSync(file, "utf8");
  expect(text).not.toContain(SECRET);
  const click = text
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Entry[])
    .find((l) => l.some((e) => e[1] === "request" && e[2] === "click"));
  expect(click).toBeDefined();
  const labels = (click ?? []).map((e) => e[1]);
  expect(labels[0]).toBe("connected");
  expect(labels.at(-1)).toBe("written");
  expect(labels).toContain("send");
  // The settle call answers its time per step and the settle's counts.
  const settle = (click ?? []).find(
    (e) => e[1] === "reply" && (e[2] as { page?: { settle?: unknown } }).page?.settle !== undefined,
  );
  const page = (settle?.[2] as { page?: { tm: number[]; settle: { settled: boolean } } } | undefined)?.page;
  expect(page?.settle.settled).toBe(true);
  expect(page?.tm.length).toBeGreaterThan(0);
});
