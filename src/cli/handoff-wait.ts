import type { CallRequest, Reply } from "../protocol/wire.ts";
import { BpError } from "../shared/errors.ts";
import { isTerminal } from "./output.ts";

type Call = Omit<CallRequest, "token">;

const PROGRESS_MS = 10_000;
/** A round shorter than this could not see a handback anyway. */
const MIN_ROUND_MS = 200;

/**
 * `bp handoff --wait`: each call waits broker-side up to its deadline; while the tab is still
 * with the person the CLI asks again (a join, not a new handoff) until handback or lease end.
 * Progress goes to stderr on a terminal only; Ctrl-C stops waiting, the handoff stays.
 * An explicit --timeout bounds the whole wait (a script must never hang): past it the answer
 * is wait_timeout, retryable, with the handoff still in force.
 */
export async function waitForHandback(
  call: Call,
  send: (call: Call) => Promise<Reply>,
  timeoutMs?: number,
): Promise<Reply> {
  const started = Date.now();
  const progress = isTerminal(2);
  if (progress)
    console.error("bp: waiting for the person to hand the tab back (Ctrl-C stops waiting; the handoff stays)…");
  const timer = progress
    ? setInterval(
        () => console.error(`bp: still with the person (${Math.round((Date.now() - started) / 1000)} s)…`),
        PROGRESS_MS,
      )
    : undefined;
  try {
    let reply = await send(call);
    // Later rounds join the same handoff: no request id (its replay would repeat round one).
    const { requestId: _once, ...again } = call;
    while (reply.ok === true && reply.control !== "automation") {
      const left = timeoutMs === undefined ? call.timeoutMs : started + timeoutMs - Date.now();
      if (left < MIN_ROUND_MS) return stillWithPerson(reply, timeoutMs ?? call.timeoutMs);
      reply = await send({
        ...again,
        timeoutMs: left,
        invocation: crypto.randomUUID(),
        args: { ...call.args, renew: false },
      });
    }
    return reply;
  } finally {
    clearInterval(timer);
  }
}

function stillWithPerson(reply: Extract<Reply, { ok: true }>, timeoutMs: number): Reply {
  const context: Record<string, unknown> = { tab: reply.tab, control: reply.control };
  if (reply.until !== undefined) context.until = reply.until;
  const err = new BpError(
    "wait_timeout",
    `The person still has tab ${String(reply.tab)} after ${timeoutMs} ms (--timeout); the handoff stays in force${reply.until !== undefined ? ` until ${String(reply.until)}` : ""}.`,
    {
      retryable: true,
      context,
      hint: "Wait again with 'bp handoff --wait', or end it with 'bp handback'.",
    },
  );
  return { ...err.toJSON() };
}
