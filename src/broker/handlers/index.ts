import { ACTION_HANDLERS } from "./actions.ts";
import { CAPTURE_HANDLERS } from "./capture.ts";
import { CONNECTION_HANDLERS } from "./connection.ts";
import { HANDOFF_HANDLERS } from "./handoff.ts";
import { INSPECT_HANDLERS } from "./inspect.ts";
import { OBSERVE_HANDLERS } from "./observe.ts";
import { PAGE_HANDLERS } from "./page.ts";
import { STOP_HANDLERS } from "./stop.ts";
import { PROFILE_HANDLERS } from "./profiles.ts";
import { RELIABILITY_HANDLERS } from "./reliability.ts";
import { NET_HANDLERS } from "./net.ts";
import { TAB_HANDLERS } from "./tabs.ts";
import { DEVTOOLS_HANDLERS } from "./devtools.ts";
import { POINTER_HANDLERS } from "./pointer.ts";
import { HAR_HANDLERS } from "./har.ts";
import { TRACE_HANDLERS } from "./trace.ts";
import { handlerTable } from "../context/handler.ts";
import type { HandlerTable } from "../context/types.ts";

export type { CallContext, Handler } from "../context/types.ts";

/** Every command the broker runs, by name (each handler knows its command). */
export const HANDLERS: HandlerTable = handlerTable([
  ...CONNECTION_HANDLERS,
  ...TAB_HANDLERS,
  ...PROFILE_HANDLERS,
  ...PAGE_HANDLERS,
  ...STOP_HANDLERS,
  ...OBSERVE_HANDLERS,
  ...INSPECT_HANDLERS,
  ...CAPTURE_HANDLERS,
  ...ACTION_HANDLERS,
  ...RELIABILITY_HANDLERS,
  ...HANDOFF_HANDLERS,
  ...NET_HANDLERS,
  ...DEVTOOLS_HANDLERS,
  ...POINTER_HANDLERS,
  ...HAR_HANDLERS,
  ...TRACE_HANDLERS,
]);
