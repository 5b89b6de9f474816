import type { Handler } from "../context/types.ts";
import { CONSOLE_HANDLERS } from "./console.ts";
import { EMULATE_HANDLERS } from "./emulate.ts";
import { STATE_HANDLERS } from "./state.ts";
import { STORAGE_HANDLERS } from "./storage.ts";

/** The commands agents know from DevTools: console, storage, saved state, emulation. */
export const DEVTOOLS_HANDLERS: Handler[] = [
  ...CONSOLE_HANDLERS,
  ...STORAGE_HANDLERS,
  ...STATE_HANDLERS,
  ...EMULATE_HANDLERS,
];
