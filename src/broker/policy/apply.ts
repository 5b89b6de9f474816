/**
 * Brings the browser in line with a policy that changed, before the next command runs: every
 * tracked tab's request interception follows its controller's rules again, and the tabs of
 * keys that now have origin rules are tracked (so rules hold on a tab no command opened yet).
 */
import type { BrowserConnection } from "../browser.ts";
import { coverControlledTabs } from "../net/index.ts";
import { syncAllTabs } from "../net/tracker.ts";
import { refreshPolicy } from "./current.ts";
import { guardPopups } from "./net.ts";

export async function applyPolicy(conn: BrowserConnection | undefined, keys: string[]): Promise<void> {
  if (!conn || conn.closed) return;
  await guardPopups(conn);
  await syncAllTabs(conn);
  await Promise.all(keys.map((k) => coverControlledTabs(conn, k)));
}

/** Longest a command waits for the tabs to follow a changed policy (a browser that stopped answering must not hold every command). */
const APPLY_MS = 5_000;
let queue: Promise<void> = Promise.resolve();

/**
 * Before every command: the file is read again if it changed, and then the browser brought in
 * line. One at a time, so a command that arrives while another applies a change waits for it
 * rather than running under the old interception.
 */
export function followPolicy(conn: () => BrowserConnection | undefined, keys: () => string[]): Promise<void> {
  const step = async () => {
    if (!(await refreshPolicy())) return;
    await Promise.race([applyPolicy(conn(), keys()), Bun.sleep(APPLY_MS)]);
  };
  queue = queue.then(step, step);
  return queue;
}
