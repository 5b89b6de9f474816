import { afterAll, expect, test } from "bun:test";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { makeBpEnv, waitFor } from "../support/bp.ts";

const env = makeBpEnv();
afterAll(() => env.cleanup());

/**
 * The broker writes its own log lines (no logging library: consola's modules cost the idle broker
 * megabytes): a warning reaches broker.log with its time, the broker's pid and its level, and the
 * broker goes on answering.
 */
test("a warning of the broker reaches broker.log, one line with time, pid and level", async () => {
  expect((await env.run(["commands"])).json.ok).toBe(true);
  const pid = env.brokerPid();
  const locator = join(env.home, "broker-locator.json");
  rmSync(locator);
  // The broker's once-a-second check writes a missing locator again and says so.
  const log = await waitFor(
    () => {
      const text = readFileSync(join(env.home, "broker.log"), "utf8");
      return text.includes("rewrote") ? text : "";
    },
    10_000,
    "the broker's warning",
  );
  const line = log.split("\n").find((l) => l.includes("rewrote")) ?? "";
  expect(line).toMatch(
    new RegExp(
      `^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z \\[broker ${pid}\\] warn: rewrote a broken or missing locator$`,
    ),
  );
  expect(JSON.parse(readFileSync(locator, "utf8"))).toMatchObject({ pid });
  expect((await env.run(["commands"])).json.ok).toBe(true);
  expect(env.brokerPid()).toBe(pid);
});
