import { afterAll, expect, test } from "bun:test";
import { alive, waitFor } from "./bp.ts";

const started: Bun.Subprocess[] = [];
afterAll(() => {
  for (const p of started) p.kill("SIGKILL");
});

test("a zombie is not alive: cleanups stop waiting once a process has exited, reaped or not", async () => {
  // `sleep 0.05` exits at once and is never reaped: its parent becomes `sleep 30`, which waits for no child.
  const parent = Bun.spawn(["sh", "-c", "sleep 0.05 & echo $!; exec sleep 30"], { stdout: "pipe" });
  started.push(parent);
  const reader = parent.stdout.getReader();
  const zombie = Number(new TextDecoder().decode((await reader.read()).value).trim());
  expect(zombie).toBeGreaterThan(0);
  await waitFor(() => !alive(zombie), 5_000, "the child to exit");
  // Still there as a zombie: signal 0 reaches it, which is what the old check asked.
  expect(() => process.kill(zombie, 0)).not.toThrow();
  expect(alive(parent.pid)).toBe(true);
});
