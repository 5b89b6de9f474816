import type { Part } from "../lib/report.ts";
import { coldStartsPart } from "./cold-starts.ts";
import { crossAgentPart } from "./cross-agent.ts";
import { hostilePart } from "./hostile.ts";
import { killsPart } from "./kills.ts";
import { socketPart } from "./socket.ts";

/** In run order: cheap parts first, the soak last. */
export const PARTS: Part[] = [coldStartsPart, socketPart, crossAgentPart, hostilePart, killsPart];
