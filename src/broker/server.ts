import type { Socket } from "bun";
import type { BrokerRequest, HelloReply } from "../protocol/wire.ts";
import { BpError, toBpError } from "../shared/errors.ts";
import { PROTOCOL, VERSION } from "../shared/version.ts";
import type { Broker } from "./broker.ts";

/** Requests are small; anything larger is hostile or broken. */
const MAX_REQUEST_BYTES = 4 * 1024 * 1024;

interface ConnState {
  chunks: Buffer[];
  size: number;
  handled: boolean;
}

/** One request line per connection, one reply line, then close. */
export function startServer(socketPath: string, token: string, broker: Broker) {
  return Bun.listen<ConnState>({
    unix: socketPath,
    socket: {
      open(s) {
        s.data = { chunks: [], size: 0, handled: false };
      },
      data(s, data) {
        const st = s.data;
        if (st.handled) return;
        st.chunks.push(Buffer.from(data));
        st.size += data.length;
        if (st.size > MAX_REQUEST_BYTES) {
          st.handled = true;
          reply(s, new BpError("invalid_argument", "Request too large.", { context: { field: "request" } }).toJSON());
          return;
        }
        if (!data.includes(10)) return;
        st.handled = true;
        const text = Buffer.concat(st.chunks).toString("utf8");
        void handle(text.slice(0, text.indexOf("\n")), token, broker).then((out) => reply(s, out));
      },
      error() {
        // The CLI went away; nothing to answer.
      },
    },
  });
}

function reply(s: Socket<ConnState>, body: unknown): void {
  try {
    s.write(`${JSON.stringify(body)}\n`);
    s.end();
  } catch {
    // client gone
  }
}

async function handle(line: string, token: string, broker: Broker): Promise<unknown> {
  let req: BrokerRequest;
  try {
    req = JSON.parse(line) as BrokerRequest;
  } catch {
    return new BpError("invalid_argument", "Malformed request.", { context: { field: "request" } }).toJSON();
  }
  if (req.op === "hello") {
    const hello: HelloReply = { ok: true, service: "browser-pilot", version: VERSION, protocol: { min: PROTOCOL.min, max: PROTOCOL.max }, pid: process.pid };
    return hello;
  }
  if (typeof req.token !== "string" || !timingSafeEqual(req.token, token)) {
    return new BpError("capability_denied", "Request not authorised.").toJSON();
  }
  try {
    if (req.op === "cancel") return broker.cancel(req.invocation);
    if (req.op === "call") {
      if (req.protocol < PROTOCOL.min || req.protocol > PROTOCOL.max) {
        return new BpError("protocol_incompatible", `Broker speaks protocol ${PROTOCOL.min}-${PROTOCOL.max}; CLI sent ${req.protocol}.`).toJSON();
      }
      return await broker.call(req);
    }
    return new BpError("invalid_argument", "Unknown request.", { context: { field: "op" } }).toJSON();
  } catch (err) {
    return toBpError(err).toJSON();
  }
}

function timingSafeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
