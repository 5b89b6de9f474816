import { expect, test } from "bun:test";
import { join } from "node:path";

const output = join(import.meta.dir, "output.ts");

/** Runs a script that uses output.ts in a process of its own: what it printed, as a person's terminal would get it. */
function run(body: string): { out: string; err: string } {
  const script = `import { printError, printResult } from ${JSON.stringify(output)};\n${body}`;
  const r = Bun.spawnSync([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
  expect(r.exitCode).toBe(0);
  return { out: r.stdout.toString(), err: r.stderr.toString() };
}

// The human formatters load only for a person's call: a failure's handback notices still come
// out, after the error, before the process ends.
test("a person's failure prints its handback notices after the error", () => {
  const { err } = run(
    `await printError({ ok: false, error: "Ref 9 is gone.", code: "stale_ref", retryable: true, handbacks: [{ tab: "t1", ended: "lease_ended" }] }, "human");`,
  );
  expect(err).toStartWith("✗ Ref 9 is gone. [stale_ref]\n");
  expect(err).toContain("handback: t1 (lease_ended); refs of t1 are stale, observe again");
});

test("an agent's failure and result are one JSON line each", () => {
  const { out } = run(
    `printError({ ok: false, error: "x", code: "stale_ref", retryable: true, handbacks: [{ tab: "t1", ended: "lease_ended" }] }, "json");\n` +
      `await printResult("eval", { ok: true, value: 2 }, "json");`,
  );
  const lines = out.trimEnd().split("\n");
  expect(lines).toHaveLength(2);
  expect(JSON.parse(lines[0] ?? "")).toMatchObject({ ok: false, code: "stale_ref", handbacks: [{ tab: "t1" }] });
  expect(JSON.parse(lines[1] ?? "")).toEqual({ ok: true, value: 2 });
});
