import type { CdpSession } from "../../cdp/session.ts";
import { RESOLVE_SOURCE } from "../../page/resolve-script.ts";
import { BpError } from "../../shared/errors.ts";
import type { Selected } from "../context/tabs.ts";
import type { RefBinding, TabObservation } from "../refs.ts";
import { frameLoader } from "./frame-list.ts";
import { objectInWorld } from "../world.ts";

export type StaleReason =
  | "no_observation"
  | "expired"
  | "unknown_ref"
  | "navigation"
  | "document_replaced"
  | "frame_detached"
  | "target_closed"
  | "browser_reconnected"
  | "node_detached"
  | "human_control";

export interface ResolvedRef {
  ref: number;
  binding: RefBinding;
  session: CdpSession;
  /** Remote object of the element in our isolated world; released with the "bp-ref" group. */
  objectId: string;
  obs: TabObservation;
}

export function staleRef(ref: number, reason: StaleReason): BpError {
  return new BpError("stale_ref", `Ref ${ref} no longer points at an element (${reason.replace("_", " ")}).`, { retryable: true, context: { ref, reason } });
}

/**
 * Re-resolves a ref of this agent's latest observation and re-checks everything it is bound
 * to: browser generation, target, frame session, main and frame document, and the node
 * itself. Any change is stale_ref with a reason; a ref is never rebound to another element.
 * A ref this agent was never shown is unknown_ref, whoever else may have seen it.
 */
export async function resolveRef(sel: Selected, ref: number): Promise<ResolvedRef> {
  const { agent, browser, rec } = sel;
  const obs = agent.observations.get(rec.targetId);
  if (!obs) throw staleRef(ref, agent.leaseExpired ? "expired" : "no_observation");
  if (obs.generation !== browser.generation) throw staleRef(ref, "browser_reconnected");
  const binding = obs.refs.get(ref);
  if (!binding) {
    // The tab was handed to a person and back since this ref was shown: observe again.
    if (obs.humanControlBelow !== undefined && ref < obs.humanControlBelow) throw staleRef(ref, "human_control");
    // A ref from the document this agent saw before (an action's reply already observed the new one).
    const prev = obs.previous;
    if (prev && ref < obs.firstRef) throw staleRef(ref, prev.url === obs.url ? "document_replaced" : "navigation");
    throw staleRef(ref, "unknown_ref");
  }
  if (!browser.targets.byId.has(rec.targetId)) throw staleRef(ref, "target_closed");
  const session = await browser.session(rec);
  const { frameTree } = await session.send("Page.getFrameTree");
  if (frameTree.frame.loaderId !== obs.mainLoaderId) {
    throw staleRef(ref, frameTree.frame.url === obs.url ? "document_replaced" : "navigation");
  }
  if (binding.session.closed) throw staleRef(ref, "frame_detached");
  if (binding.frameId !== frameTree.frame.id) {
    const loader = await frameLoader(binding.session, binding.frameId);
    if (loader === undefined) throw staleRef(ref, "frame_detached");
    if (loader !== binding.loaderId) throw staleRef(ref, "navigation");
  }
  const objectId = await objectInWorld(binding.session, binding.frameId, `function (win, ref) { return (${RESOLVE_SOURCE})(win, ref).element; }`, ref).catch(() => undefined);
  if (!objectId) throw staleRef(ref, "node_detached");
  return { ref, binding, session: binding.session, objectId, obs };
}
