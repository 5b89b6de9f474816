/** The handback notice as one agent reads it: its own tab ids, tabs it may address, only what changed. */
import type { Agent } from "../agents.ts";
import type { BrowserConnection } from "../browser.ts";
import type { TargetRecord } from "../targets.ts";
import type { PendingNotice } from "./control.ts";

export function renderNotice(
  n: PendingNotice,
  agent: Agent,
  browser: BrowserConnection | undefined,
  visible: (rec: TargetRecord) => boolean,
): Record<string, unknown> {
  const id = agent.existingId(n.targetId) ?? agent.idFor(n.targetId, n.generation);
  const out: Record<string, unknown> = { tab: id, ended: n.ended };
  if (n.url !== undefined) out.url = n.url;
  if (n.title !== undefined) out.title = n.title;
  if (n.authentication_surface !== undefined) out.authentication_surface = n.authentication_surface;
  const current = browser && !browser.closed && browser.generation === n.generation ? browser : undefined;
  const newTabs = current
    ? n.newTargets.flatMap((t) => {
        const rec = current.targets.byId.get(t);
        return rec && visible(rec)
          ? [{ id: agent.idFor(t, n.generation), url: rec.url, title: rec.title, origin: rec.origin }]
          : [];
      })
    : [];
  if (newTabs.length > 0) out.newTabs = newTabs;
  if (n.closed) out.closed = true;
  out.hint = n.closed
    ? `Tab ${id} was closed while a person had it.`
    : `Tab ${id} is back under automation; its refs are stale (human_control): observe it again (bp snapshot) before acting.`;
  return out;
}
