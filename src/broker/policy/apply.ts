/**
 * Brings the browser in line with a policy that changed, before the next command runs: every
 * tracked tab's request interception follows its controller's rules again, and the tabs of
 * keys that now have origin rules are tracked (so rules hold on a tab no command opened yet).
 */
import type { BrowserConnection } from "../browser.ts";
import { coverControlledTabs } from "../net/index.ts";
import { syncAllTabs } from "../net/tracker.ts";
import { guardPopups } from "./net.ts";

export async function applyPolicy(conn: BrowserConnection | undefined, keys: string[]): Promise<void> {
  if (!conn || conn.closed) return;
  await guardPopups(conn);
  await syncAllTabs(conn);
  await Promise.all(keys.map((k) => coverControlledTabs(conn, k)));
}
