import type { Socket } from "bun";
import type { BrokerRequest } from "../protocol/wire.ts";
import { BpError } from "../shared/errors.ts";

/**
 * One request, one reply line, over the broker's Unix socket. The deadline covers connect,
 * send and reply, so a wedged broker can never hang a CLI call. `read` is the reply's check
 * (src/protocol/wire.ts): its value, or undefined for a line the protocol does not allow.
 */
export function request<T>(
  socketPath: string,
  message: BrokerRequest,
  timeoutMs: number,
  read: (value: unknown) => T | undefined,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const decoder = new TextDecoder();
    let text = "";
    let settled = false;
    let sock: { end(): void } | undefined;
    let opened = false;
    let answered = false;
    /** The request's bytes the socket has not taken yet: a long one (text to type, a script) takes several writes. */
    let unsent: Uint8Array | undefined = new TextEncoder().encode(`${JSON.stringify(message)}\n`);
    const send = (s: Socket<undefined>) => {
      if (!unsent) return;
      const n = s.write(unsent);
      // Below zero the socket is closed: its close handler reports it, with the rest still unsent.
      if (n >= 0) unsent = n < unsent.length ? unsent.subarray(n) : undefined;
    };
    // The broker acts on a whole line only, its newline last: a connection that ends before the
    // CLI wrote all of it, or is reset before any byte of a reply, was read by no broker.
    const unread = (err: unknown) => !answered && (unsent !== undefined || isReset(err));
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      try {
        sock?.end();
      } catch {
        // already closed
      }
      fn();
    };
    const timer = setTimeout(() => {
      const written = unsent === undefined;
      finish(() =>
        reject(
          new BpError("browser_disconnected", "Broker did not answer in time.", {
            retryable: true,
            context: { reason: "broker_timeout", written },
          }),
        ),
      );
    }, timeoutMs);
    Bun.connect({
      unix: socketPath,
      socket: {
        open(s) {
          sock = s;
          opened = true;
          send(s);
        },
        drain(s) {
          send(s);
        },
        data(_s, data) {
          answered = true;
          // Decoded as it comes (a character may span two chunks): no copies of the buffers.
          const piece = decoder.decode(data, { stream: true });
          const at = piece.indexOf("\n");
          text += piece;
          if (at >= 0) {
            const line = text.slice(0, text.length - piece.length + at);
            finish(() => {
              let value: T | undefined;
              try {
                value = read(JSON.parse(line));
              } catch {
                // not JSON
              }
              if (value !== undefined) resolve(value);
              else
                reject(
                  new BpError("internal_error", "Broker sent an unreadable reply.", {
                    context: { reason: "bad_reply" },
                  }),
                );
            });
          }
        },
        close(_s, err) {
          // Linux resets a connection closed with its data unread, or still queued at a listener
          // that went away (a killed broker's socket outlives it until the kernel has torn the
          // process down): only a clean close before the reply means a broker read the call.
          if (unread(err)) finish(() => reject(notRead()));
          else
            finish(() =>
              reject(
                new BpError("browser_disconnected", "Broker closed the connection before replying.", {
                  retryable: true,
                  context: { reason: "broker_closed" },
                }),
              ),
            );
        },
        error(_s, err) {
          finish(() => reject(!opened ? unreachable(err) : unread(err) ? notRead() : err));
        },
      },
    }).catch((err: unknown) => finish(() => reject(unreachable(err))));
  });
}

/** No broker read the request: safe to start a broker and send the request there. */
export function isUnreachable(err: unknown): boolean {
  return err instanceof BpError && err.context?.reason === "broker_unreachable";
}

function unreachable(err: unknown): BpError {
  return new BpError("browser_disconnected", `Broker socket unreachable: ${(err as Error).message}`, {
    retryable: true,
    context: { reason: "broker_unreachable" },
  });
}

function notRead(): BpError {
  return new BpError("browser_disconnected", "The broker went away before reading the request.", {
    retryable: true,
    context: { reason: "broker_unreachable" },
  });
}

function isReset(err: unknown): boolean {
  return (err as NodeJS.ErrnoException | undefined)?.code === "ECONNRESET";
}

export function isTimeout(err: unknown): boolean {
  return err instanceof BpError && err.context?.reason === "broker_timeout";
}

/** A timeout after the whole request went to the socket: a broker may read it yet. */
export function wasWritten(err: unknown): boolean {
  return err instanceof BpError && err.context?.written === true;
}
