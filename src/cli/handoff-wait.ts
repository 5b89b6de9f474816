import type { CallRequest } from "../protocol/wire.ts";
import { isTerminal } from "./output.ts";

type Call = Omit<CallRequest, "token">;
type Reply = Record<string, unknown>;

const PROGRESS_MS = 10_000;

/**
 * `bp handoff --wait`: each call waits broker-side up to its deadline; while the tab is still
 * with the person the CLI asks again (a join, not a new handoff) until handback or lease end.
 * Progress goes to stderr on a terminal only; Ctrl-C stops waiting, the handoff stays.
 */
export async function waitForHandback(call: Call, send: (call: Call) => Promise<Reply>): Promise<Reply> {
  const started = Date.now();
  const progress = isTerminal(2);
  if (progress) console.error("bp: waiting for the person to hand the tab back (Ctrl-C stops waiting; the handoff stays)…");
  const timer = progress
    ? setInterval(() => console.error(`bp: still with the person (${Math.round((Date.now() - started) / 1000)} s)…`), PROGRESS_MS)
    : undefined;
  try {
    let reply = await send(call);
    // Later rounds join the same handoff: no request id (its replay would repeat round one).
    const { requestId: _once, ...again } = call;
    while (reply.ok === true && reply.control !== "automation") {
      reply = await send({ ...again, invocation: crypto.randomUUID(), args: { ...call.args, renew: false } });
    }
    return reply;
  } finally {
    clearInterval(timer);
  }
}
