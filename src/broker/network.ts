import { outsideCallScope } from "../cdp/scope.ts";
import type { CdpSession } from "../cdp/session.ts";
import { rememberRequests } from "./settle/requests/polling.ts";

const enabled = new WeakMap<CdpSession, Promise<unknown>>();

/**
 * Network events of a page session, switched on once and left on: actions watch the
 * requests they start and `wait --network-idle` counts requests in flight. Turning them off
 * after use would cost a round trip each time and blind whoever else listens. No bodies are
 * buffered. The page's own polling is remembered from then on (net/polling.ts).
 */
export function ensureNetwork(session: CdpSession): Promise<unknown> {
  let p = enabled.get(session);
  if (!p) {
    rememberRequests(session);
    p = outsideCallScope(() => session.send("Network.enable", { maxTotalBufferSize: 0, maxResourceBufferSize: 0 })).catch(() => {
      enabled.delete(session);
    });
    enabled.set(session, p);
  }
  return p;
}
