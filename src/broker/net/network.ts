import { outsideCallScope } from "../../cdp/scope.ts";
import type { CdpSession } from "../../cdp/session.ts";
import { rememberRequests } from "../settle/requests/polling.ts";
import { PageSession } from "../page-session.ts";

/** Network events of a page session, for actions and waits: switched on once and left on (off would cost a trip each time). */
export function ensureNetwork(session: CdpSession): Promise<unknown> {
  const ps = PageSession.of(session);
  if (!ps.network) {
    rememberRequests(session);
    const p = outsideCallScope(() =>
      session.send("Network.enable", { maxTotalBufferSize: 0, maxResourceBufferSize: 0 }),
    ).catch(() => {
      if (ps.network === p) ps.network = undefined;
    });
    ps.network = p;
  }
  return ps.network;
}
