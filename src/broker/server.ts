import type { Socket } from "bun";
import * as v from "valibot";
import type { HelloReply } from "../protocol/wire.ts";
import {
  callProtocolSchema,
  callRequestSchema,
  cancelRequestSchema,
  requestEnvelopeSchema,
} from "../protocol/wire-requests.ts";
import { BpError, toBpError } from "../shared/errors.ts";
import { jsonLine } from "../shared/json-line.ts";
import { PROTOCOL, VERSION } from "../shared/version.ts";
import { phases } from "../cdp/phases.ts";
import type { Broker } from "./broker.ts";
import { redactDeep } from "./net/redact.ts";

/** Requests are small; anything larger is hostile or broken. */
const MAX_REQUEST_BYTES = 4 * 1024 * 1024;
/** A CLI sends its whole line at once; a connection still without one after this is dropped. */
const DEFAULT_READ_DEADLINE_MS = 10_000;

interface ConnState {
  chunks: Buffer[];
  size: number;
  handled: boolean;
  timer: Timer | undefined;
  out?: Uint8Array | undefined;
  writeTimer?: Timer | undefined;
  /** The call asked to keep the connection for another line ('bp batch'): read on after the reply. */
  keep?: boolean;
  onWritten?: () => void;
}

/** A client that takes no more of its reply for this long is gone (suspended, its pipe blocked). */
const WRITE_DEADLINE_MS = 30_000;

/** One request line per connection, one reply line, then close; 'bp batch' keeps the connection for the next line. */
export function startServer(socketPath: string, token: string, broker: Broker) {
  const readDeadlineMs =
    Number(process.env.BROWSER_PILOT_READ_DEADLINE_MS) > 0
      ? Number(process.env.BROWSER_PILOT_READ_DEADLINE_MS)
      : DEFAULT_READ_DEADLINE_MS;
  const arm = (s: Socket<ConnState>) => {
    s.data.timer = setTimeout(() => {
      s.data.handled = true;
      s.data.keep = false;
      reply(
        s,
        new BpError("invalid_argument", "No complete request line in time; connection closed.", {
          context: { field: "request" },
        }).toJSON(),
      );
    }, readDeadlineMs);
  };
  const next = (s: Socket<ConnState>) => {
    const st = s.data;
    if (st.handled) return;
    if (st.size > MAX_REQUEST_BYTES) {
      st.handled = true;
      st.keep = false;
      clearTimeout(st.timer);
      reply(s, new BpError("invalid_argument", "Request too large.", { context: { field: "request" } }).toJSON());
      return;
    }
    const buf = st.chunks.length === 1 ? (st.chunks[0] as Buffer) : Buffer.concat(st.chunks);
    const nl = buf.indexOf(10);
    if (nl < 0) return;
    st.handled = true;
    clearTimeout(st.timer);
    const rest = buf.subarray(nl + 1);
    st.chunks = rest.length > 0 ? [rest] : [];
    st.size = rest.length;
    const line = buf.subarray(0, nl).toString("utf8");
    phases?.begin(line);
    handle(line, token, broker).then(
      ({ out, keep }) => {
        st.keep = keep;
        reply(s, out);
      },
      (err: unknown) => reply(s, toBpError(err).toJSON()),
    );
  };
  return Bun.listen<ConnState>({
    unix: socketPath,
    socket: {
      open(s) {
        s.data = { chunks: [], size: 0, handled: false, timer: undefined };
        phases?.connected();
        s.data.onWritten = () => {
          s.data.handled = false;
          arm(s);
          next(s);
        };
        arm(s);
      },
      data(s, data) {
        const st = s.data;
        st.chunks.push(Buffer.from(data));
        st.size += data.length;
        if (st.handled) {
          // Only a kept connection's next line may come early; anything larger is hostile.
          if (st.size > MAX_REQUEST_BYTES) s.terminate();
          return;
        }
        if (!data.includes(10) && st.size <= MAX_REQUEST_BYTES) return;
        next(s);
      },
      drain(s) {
        flush(s);
      },
      close(s) {
        clearTimeout(s.data.timer);
        clearTimeout(s.data.writeTimer);
        s.data.out = undefined;
      },
      error(s) {
        // The CLI went away; nothing to answer.
        clearTimeout(s.data.timer);
        clearTimeout(s.data.writeTimer);
      },
    },
  });
}

function reply(s: Socket<ConnState>, body: unknown): void {
  try {
    // Credentials in URLs never leave the broker, whatever command put them in a reply.
    s.data.out = Buffer.from(`${jsonLine(redactDeep(body))}\n`, "utf8");
    flush(s);
    phases?.end();
  } catch {
    // client gone
  }
}

/**
 * Writes what the socket takes now, the rest on drain; ends only once the whole line is out (large replies were cut).
 */
function flush(s: Socket<ConnState>): void {
  const out = s.data.out;
  if (!out) return;
  try {
    const n = s.write(out);
    if (n < 0) {
      s.data.out = undefined;
      return;
    }
    if (n < out.length) {
      s.data.out = out.subarray(n);
      s.data.writeTimer ??= setTimeout(() => {
        s.data.out = undefined;
        s.terminate();
      }, WRITE_DEADLINE_MS);
      return;
    }
    s.data.out = undefined;
    clearTimeout(s.data.writeTimer);
    s.data.writeTimer = undefined;
    if (s.data.keep) {
      s.data.keep = false;
      s.data.onWritten?.();
      return;
    }
    s.end();
  } catch {
    // client gone
    s.data.out = undefined;
  }
}

function malformed(message: string, field = "request"): unknown {
  return new BpError("invalid_argument", message, { context: { field } }).toJSON();
}

/** Reads nothing from the message before its shape is checked: any JSON value may arrive here. */
async function handle(line: string, token: string, broker: Broker): Promise<{ out: unknown; keep: boolean }> {
  const kept = { keep: false };
  const out = await answer(line, token, broker, kept);
  return { out, keep: kept.keep };
}

async function answer(line: string, token: string, broker: Broker, kept: { keep: boolean }): Promise<unknown> {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    return malformed("Malformed request: not JSON.");
  }
  const envelope = v.safeParse(requestEnvelopeSchema, raw);
  if (!envelope.success) return malformed("Malformed request: expected an object with a known 'op'.", "op");
  if (envelope.output.op === "hello") {
    // Unauthenticated: enough for a CLI to judge compatibility, nothing about the process.
    const hello: HelloReply = {
      ok: true,
      service: "browser-pilot",
      version: VERSION,
      protocol: { min: PROTOCOL.min, max: PROTOCOL.max },
    };
    return hello;
  }
  const presented = envelope.output.token;
  if (typeof presented !== "string" || !timingSafeEqual(presented, token)) {
    return new BpError("capability_denied", "Request not authorised.").toJSON();
  }
  if (envelope.output.op === "cancel") {
    const req = v.safeParse(cancelRequestSchema, raw);
    if (!req.success) return malformed(`Malformed cancel request (${issueField(req.issues)}).`, issueField(req.issues));
    return broker.cancel(req.output.invocation);
  }
  // Another protocol's call may have another shape: its version is judged first.
  const version = v.safeParse(callProtocolSchema, raw);
  if (!version.success) return malformed("Malformed call request (protocol).", "protocol");
  if (version.output.protocol < PROTOCOL.min || version.output.protocol > PROTOCOL.max) {
    return new BpError(
      "protocol_incompatible",
      `Broker speaks protocol ${PROTOCOL.min}-${PROTOCOL.max}; CLI sent ${version.output.protocol}.`,
    ).toJSON();
  }
  const req = v.safeParse(callRequestSchema, raw);
  if (!req.success) return malformed(`Malformed call request (${issueField(req.issues)}).`, issueField(req.issues));
  kept.keep = envelope.output.keep === true;
  try {
    return await broker.call(req.output);
  } catch (err) {
    return toBpError(err).toJSON();
  }
}

function issueField(issues: readonly v.BaseIssue<unknown>[]): string {
  const path = issues[0]?.path?.map((p) => String(p.key)).join(".");
  return path && path.length > 0 ? path.slice(0, 64) : "request";
}

function timingSafeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
