/**
 * The policy's origin rules: a restricted key's requests pass its tab's interception (net/tracker.ts), which asks
 * policyStops first; denied navigations are aborted (no error page). While any key has origin rules, new pages are held
 * at start so popups are intercepted before they run.
 */
import type { Protocol } from "devtools-protocol";
import { CdpSession } from "../../cdp/session.ts";
import { originVerdict } from "../../protocol/policy-match.ts";
import type { BrowserConnection } from "../browser.ts";
import type { TargetRecord } from "../targets.ts";
import { recordBlock } from "./blocks.ts";
import { anyIntercepts, netRules, policyIntercepts } from "./current.ts";

type Mark = (rule: { id: string; action: "blocked" }) => void;

/** Stops a paused request the key's policy denies (true), or leaves it to the agent's own rules (false). */
export async function policyStops(
  rec: TargetRecord,
  s: CdpSession,
  p: Protocol.Fetch.RequestPausedEvent,
  mark: Mark,
  key = rec.controller,
  kind?: "popup",
): Promise<boolean> {
  const rules = netRules(key);
  if (!rules || key === undefined) return false;
  const verdict = originVerdict(rules, p.request.url);
  if (!verdict) return false;
  const nav = p.resourceType === "Document";
  recordBlock(key, {
    kind: kind ?? (nav ? "navigation" : "request"),
    url: p.request.url,
    rule: verdict.rule,
    ...(verdict.entry ? { entry: verdict.entry } : {}),
  });
  mark({ id: "policy", action: "blocked" });
  // Aborted: a navigation that never commits leaves the page as it was (no error page).
  await s
    .send("Fetch.failRequest", { requestId: p.requestId, errorReason: nav ? "Aborted" : "BlockedByClient" })
    .catch(() => undefined);
  return true;
}

const guarded = new WeakSet<BrowserConnection>();
const holding = new WeakMap<BrowserConnection, boolean>();

function keyOf(
  conn: BrowserConnection,
  info: Protocol.Target.TargetInfo,
): { key: string; rec: TargetRecord } | undefined {
  const rec = conn.targets.byId.get(info.targetId);
  const opener = info.openerId ? conn.targets.byId.get(info.openerId) : undefined;
  const key = rec?.controller ?? opener?.controller;
  return key !== undefined && rec ? { key, rec } : undefined;
}

/** Holds new pages at start while any key has origin rules; called on connect and whenever the policy changes. */
export async function guardPopups(conn: BrowserConnection): Promise<void> {
  if (conn.closed) return;
  if (!guarded.has(conn)) {
    guarded.add(conn);
    conn.cdp.on("Target.attachedToTarget", (p) => {
      if (p.targetInfo.type !== "page") return;
      const session = new CdpSession(conn.cdp, p.sessionId, p.targetInfo.targetId);
      void holdPopup(conn, session, p.targetInfo, p.waitingForDebugger);
    });
  }
  const want = anyIntercepts();
  if ((holding.get(conn) ?? false) === want) return;
  holding.set(conn, want);
  await conn.cdp
    .send("Target.setAutoAttach", {
      autoAttach: want,
      waitForDebuggerOnStart: want,
      flatten: true,
      filter: [{ type: "page" }],
    })
    .catch(() => undefined);
}

async function holdPopup(
  conn: BrowserConnection,
  session: CdpSession,
  info: Protocol.Target.TargetInfo,
  waiting: boolean,
): Promise<void> {
  // Our session stays attached (detaching would read as the tab's own session going): inert unless it intercepts.
  const owner = info.openerId ? keyOf(conn, info) : undefined;
  if (owner && policyIntercepts(owner.key)) {
    session.on("Fetch.requestPaused", (p) => {
      const now = keyOf(conn, info);
      void policyStops(
        owner.rec,
        session,
        p,
        () => undefined,
        now?.key ?? owner.key,
        p.resourceType === "Document" && p.frameId === info.targetId ? "popup" : undefined,
      ).then((stopped) => {
        if (!stopped) void session.send("Fetch.continueRequest", { requestId: p.requestId }).catch(() => undefined);
      });
    });
    const on = await session.send("Fetch.enable", { patterns: [{ urlPattern: "*", requestStage: "Request" }] }).then(
      () => true,
      () => false,
    );
    // A popup of a policed tab that cannot be policed does not run.
    if (!on) {
      await conn.cdp.send("Target.closeTarget", { targetId: info.targetId }).catch(() => undefined);
      return;
    }
  }
  if (waiting) await session.send("Runtime.runIfWaitingForDebugger").catch(() => undefined);
}
