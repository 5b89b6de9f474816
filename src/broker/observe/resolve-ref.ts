import type { CdpSession } from "../../cdp/session.ts";
import type { PageStep } from "../../page/runtime.ts";
import { BpError } from "../../shared/errors.ts";
import type { Selected } from "../context/tabs.ts";
import type { FrameWorld } from "../frame-world.ts";
import type { TabObservation } from "../refs.ts";
import { callPage } from "../world.ts";
import { frameLoader } from "./frame-list.ts";

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
  binding: FrameWorld;
  session: CdpSession;
  obs: TabObservation;
  steps: readonly PageStep[];
  results: unknown[];
}

export function staleRef(ref: number, reason: StaleReason): BpError {
  return new BpError("stale_ref", `Ref ${ref} no longer points at an element (${reason.replace("_", " ")}).`, {
    retryable: true,
    context: { ref, reason },
  });
}

/**
 * Re-resolves a ref of this agent's latest observation and re-checks its generation, target, session, document and
 * node: any change is stale_ref with a reason, never a rebind; a ref this agent was never shown is unknown_ref. The
 * document check rides in the same page call as `steps` (the runtime's document token); only a differing document costs
 * a frame-tree read, to say why.
 */
export async function resolveRef(sel: Selected, ref: number, steps: PageStep[] = []): Promise<ResolvedRef> {
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
  if (binding.session.closed) throw staleRef(ref, "frame_detached");
  if (!binding.doc) await checkDocument(sel, ref, binding, obs);
  const reply = await callPage(
    binding.session,
    binding.frameId,
    [{ fn: "ref", ref }, ...steps.map((s) => ({ ...s, ref }))],
    binding.doc ? { doc: binding.doc } : {},
  ).catch(() => undefined);
  if (!reply || reply.otherDocument) {
    await checkDocument(sel, ref, binding, obs);
    throw staleRef(ref, reply ? "document_replaced" : "node_detached");
  }
  if (reply.results[0] !== null) throw staleRef(ref, "node_detached");
  return { ref, binding, session: binding.session, obs, steps, results: reply.results.slice(1) };
}

/** Asks the browser which document change made a ref stale (throws it), or returns when none did. */
async function checkDocument(sel: Selected, ref: number, binding: FrameWorld, obs: TabObservation): Promise<void> {
  const session = await sel.browser.session(sel.rec);
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
}
