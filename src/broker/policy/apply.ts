/** Brings the browser in line with a changed policy before the next command runs. */
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

/** A browser that stopped answering must not hold every command. */
const APPLY_MS = 5_000;
let queue: Promise<void> = Promise.resolve();

/** Before every command, one at a time: no command runs under the old interception. */
export function followPolicy(conn: () => BrowserConnection | undefined, keys: () => string[]): Promise<void> {
  const step = async () => {
    if (!(await refreshPolicy())) return;
    await Promise.race([applyPolicy(conn(), keys()), Bun.sleep(APPLY_MS)]);
  };
  queue = queue.then(step, step);
  return queue;
}
