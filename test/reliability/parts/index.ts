import type { Part } from "../lib/report.ts";
import { crossAgentPart } from "./cross-agent.ts";
import { killsPart } from "./kills.ts";
import { socketPart } from "./socket.ts";

/** In run order: cheap parts first, the soak last. */
export const PARTS: Part[] = [socketPart, crossAgentPart, killsPart];
