import type { Protocol } from "devtools-protocol";
import type { CdpSession } from "../../cdp/session.ts";
import { BpError } from "../../shared/errors.ts";
import type { FrameWorld } from "../frame-world.ts";
import type { TargetRecord } from "../targets.ts";

/** A frame of the tab's frame tree (the list 'bp frame' shows), with the session that owns it. */
export interface FrameInfo {
  id: string;
  url: string;
  name: string;
  loaderId: string;
  parent?: number;
  parentId?: string;
  session: CdpSession;
}

/** Frames of a tab in document order: the top frame's tree, then out-of-process frames under their parents. */
export async function listFrames(rec: TargetRecord, session: CdpSession): Promise<FrameInfo[]> {
  const out: FrameInfo[] = [];
  const walk = (tree: Protocol.Page.FrameTree, s: CdpSession) => {
    const f = tree.frame;
    out.push({
      id: f.id,
      url: f.url,
      name: f.name ?? "",
      loaderId: f.loaderId,
      ...(f.parentId ? { parentId: f.parentId } : {}),
      session: s,
    });
    for (const c of tree.childFrames ?? []) walk(c, s);
  };
  walk((await session.send("Page.getFrameTree")).frameTree, session);
  const seen = new Set(out.map((f) => f.id));
  for (let i = 0; i < out.length; i++) {
    for (const child of rec.frames?.children() ?? []) {
      if (seen.has(child.frameId)) continue;
      const tree = (await child.session.send("Page.getFrameTree").catch(() => undefined))?.frameTree;
      if (!tree || tree.frame.parentId !== out[i]?.id) continue;
      seen.add(child.frameId);
      const before = out.length;
      walk(tree, child.session);
      const added = out.splice(before);
      out.splice(i + 1, 0, ...added);
    }
  }
  const index = new Map(out.map((f, i) => [f.id, i]));
  for (const f of out) if (f.parentId !== undefined && index.has(f.parentId)) f.parent = index.get(f.parentId);
  return out;
}

/** Where an observation starts: the world of the agent's selected frame (or the top document). */
export async function rootForFrame(
  rec: TargetRecord,
  session: CdpSession,
  mainFrameId: string,
  mainLoaderId: string,
  selected: string | undefined,
): Promise<FrameWorld> {
  if (selected === undefined || selected === mainFrameId)
    return { session, frameId: mainFrameId, loaderId: mainLoaderId, framePath: "", offset: { x: 0, y: 0 }, top: true };
  const frames = await listFrames(rec, session);
  const f = frames.find((x) => x.id === selected);
  if (!f)
    throw new BpError("stale_ref", "The selected frame is gone. Run 'bp frame' to list frames.", {
      context: { reason: "frame_detached" },
    });
  return {
    session: f.session,
    frameId: f.id,
    loaderId: f.loaderId,
    framePath: "",
    offset: await frameOffset(frames, f),
  };
}

/** Top-left of a frame's content box in top-level viewport px, summed over its ancestors. */
async function frameOffset(frames: FrameInfo[], f: FrameInfo): Promise<{ x: number; y: number }> {
  let x = 0;
  let y = 0;
  let cur: FrameInfo | undefined = f;
  while (cur?.parentId !== undefined) {
    const parent = frames.find((p) => p.id === cur?.parentId);
    if (!parent) break;
    try {
      const { backendNodeId } = await parent.session.send("DOM.getFrameOwner", { frameId: cur.id });
      const { model } = await parent.session.send("DOM.getBoxModel", { backendNodeId });
      x += model.content[0] ?? 0;
      y += model.content[1] ?? 0;
    } catch {
      break;
    }
    // Same-process frames already report quads in the top frame's viewport.
    if (parent.session === f.session || parent.session === frames[0]?.session) break;
    cur = parent;
  }
  return { x, y };
}

/** The current loader of a frame in a session's frame tree; undefined when the frame is gone. */
export async function frameLoader(session: CdpSession, frameId: string): Promise<string | undefined> {
  try {
    const { frameTree } = await session.send("Page.getFrameTree");
    const find = (t: typeof frameTree): string | undefined => {
      if (t.frame.id === frameId) return t.frame.loaderId;
      for (const c of t.childFrames ?? []) {
        const hit = find(c);
        if (hit !== undefined) return hit;
      }
      return undefined;
    };
    return find(frameTree);
  } catch {
    return undefined;
  }
}
