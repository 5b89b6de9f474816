import { BpError } from "../../shared/errors.ts";
import { selectedTab } from "../context/tabs.ts";
import { frame as frameCommand, snapshot as snapshotCommand } from "../../protocol/commands-observe.ts";
import { defineHandler } from "../context/handler.ts";
import type { Handler } from "../context/types.ts";
import { frameSessions } from "../observe/collect.ts";
import { listFrames } from "../observe/frame-list.ts";
import { observe } from "../observe/snapshot.ts";

const snapshotHandler = defineHandler(snapshotCommand)({ run: (ctx, args) => observe(ctx, args) });

const frameHandler = defineHandler(frameCommand)({
  async run(ctx, { index }) {
    const { browser, agent, rec } = selectedTab(ctx);
    const session = await browser.session(rec);
    await frameSessions(rec, session).ensure();
    const frames = await listFrames(rec, session);
    const selectedId = agent.frames.get(rec.targetId);
    if (index === undefined) {
      // Lean: a frame's name only when it has one, crossOrigin and selected only when true.
      return {
        frames: frames.map((f, i) => ({
          index: i,
          url: f.url,
          ...(f.name ? { name: f.name } : {}),
          ...(f.parent !== undefined ? { parent: f.parent } : {}),
          ...(f.session !== session ? { crossOrigin: true as const } : {}),
          ...((selectedId === undefined ? i === 0 : f.id === selectedId) ? { selected: true as const } : {}),
        })),
      };
    }
    const chosen = frames[index];
    if (!chosen)
      throw new BpError("invalid_argument", `Frame index out of range (0-${frames.length - 1}).`, {
        context: { field: "index" },
      });
    if (index === 0) agent.frames.delete(rec.targetId);
    else agent.frames.set(rec.targetId, chosen.id);
    // Refs belong to the frame they were observed in; a new scope starts a new set of refs,
    // numbered on from the old ones so none of them can ever name an element of the new scope.
    const obs = agent.observations.get(rec.targetId);
    if (obs) {
      obs.refs.clear();
      obs.last = undefined;
      obs.firstRef = obs.nextRef;
    }
    // Lean: not the index given; the frame's URL says what it is.
    return { url: chosen.url };
  },
});

export const OBSERVE_HANDLERS: Handler[] = [snapshotHandler, frameHandler];
