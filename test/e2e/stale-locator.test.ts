import { afterAll, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BP, alive, killAndWait, makeBpEnv, waitFor } from "../support/bp.ts";

const env = makeBpEnv();
afterAll(() => env.cleanup());

/**
 * Found by the reliability suite (50 concurrent cold starts after a kill -9): a CLI that read
 * the crashed broker's locator reached the new broker on the same socket path with the old
 * token and printed capability_denied. The new broker refused before doing anything, so the
 * CLI must find the live broker and ask again.
 */
test("a call sent with a crashed broker's locator reaches the new broker instead of failing capability_denied", async () => {
  const locator = join(env.home, "broker-locator.json");
  expect((await env.run(["commands"])).json.ok).toBe(true);
  const crashed = readFileSync(locator, "utf8");
  const first = env.brokerPid() ?? 0;
  await killAndWait(first, "SIGKILL");
  await waitFor(() => !alive(first), 10_000, "first broker gone");
  expect((await env.run(["commands"])).json.ok).toBe(true);
  const current = readFileSync(locator, "utf8");
  expect(current).not.toBe(crashed);

  // The window of the race, held open: the file still names the crashed broker while the new
  // one already listens. It is put right again once the CLI goes looking for a live broker.
  writeFileSync(locator, crashed, { mode: 0o600 });
  const proc = Bun.spawn([BP, "commands"], { env: env.env, stdout: "pipe", stderr: "pipe" });
  let exited = false;
  void proc.exited.then(() => {
    exited = true;
  });
  await waitFor(
    () => exited || existsSync(join(env.home, "startup.lock")),
    20_000,
    "the CLI to answer or look for a live broker",
  );
  writeFileSync(locator, current, { mode: 0o600 });
  const out = await new Response(proc.stdout).text();
  expect(JSON.parse(out)).toMatchObject({ ok: true });

  // status (passive) does not print the refusal either.
  writeFileSync(locator, crashed, { mode: 0o600 });
  const status = await env.run(["status"]);
  writeFileSync(locator, current, { mode: 0o600 });
  expect(status.json.ok).toBe(true);
});
