import type { Socket } from "bun";
import type { CallRequest } from "../protocol/wire.ts";
import { BpError } from "../shared/errors.ts";

interface Waiting {
  resolve(line: string): void;
  reject(err: BpError): void;
  timer: Timer;
}

/**
 * One connection to the broker for many calls ('bp batch'): each call asks the broker to keep
 * the connection (`keep`), and the next is sent once its reply line is in. Errors carry the
 * reasons src/cli/client.ts gives: broker_unreachable (nothing read), broker_closed, broker_timeout.
 */
export class KeptConnection {
  private text = "";
  private waiting: Waiting | undefined;
  private gone: BpError | undefined;
  private unsent: Uint8Array | undefined;
  private decoder = new TextDecoder();

  private constructor(private readonly sock: Socket<undefined>) {}

  static open(socketPath: string, timeoutMs: number): Promise<KeptConnection> {
    return new Promise((resolve, reject) => {
      let conn: KeptConnection | undefined;
      const timer = setTimeout(() => reject(unreachable("connect timed out")), timeoutMs);
      Bun.connect({
        unix: socketPath,
        socket: {
          open(s) {
            clearTimeout(timer);
            conn = new KeptConnection(s);
            resolve(conn);
          },
          data(_s, data) {
            conn?.onData(data);
          },
          drain() {
            conn?.flush();
          },
          close(_s, err) {
            conn?.onGone(err);
          },
          error(_s, err) {
            if (!conn) {
              clearTimeout(timer);
              reject(unreachable((err as Error).message));
            } else conn.onGone(err);
          },
        },
      }).catch((err: unknown) => {
        clearTimeout(timer);
        reject(unreachable((err as Error).message));
      });
    });
  }

  /** Sends one call and waits for its reply line (parsed JSON). */
  call(message: CallRequest, timeoutMs: number): Promise<unknown> {
    // Closed between calls: this one was never sent.
    if (this.gone)
      return Promise.reject(
        new BpError("browser_disconnected", "The broker connection closed before this step; it was not sent.", {
          retryable: true,
          context: { reason: "broker_unreachable" },
        }),
      );
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting = undefined;
        this.gone = new BpError("browser_disconnected", "Broker did not answer in time.", {
          retryable: true,
          context: { reason: "broker_timeout" },
        });
        reject(this.gone);
        this.close();
      }, timeoutMs);
      this.waiting = { resolve, reject, timer };
      this.unsent = new TextEncoder().encode(`${JSON.stringify({ ...message, keep: true })}\n`);
      this.flush();
    }).then((line) => {
      try {
        return JSON.parse(line) as unknown;
      } catch {
        throw new BpError("internal_error", "Broker sent an unreadable reply.", { context: { reason: "bad_reply" } });
      }
    });
  }

  close(): void {
    try {
      this.sock.end();
    } catch {
      // already closed
    }
  }

  private flush(): void {
    if (!this.unsent) return;
    const n = this.sock.write(this.unsent);
    if (n >= 0) this.unsent = n < this.unsent.length ? this.unsent.subarray(n) : undefined;
  }

  private onData(data: Uint8Array): void {
    this.text += this.decoder.decode(data, { stream: true });
    const at = this.text.indexOf("\n");
    if (at < 0) return;
    const line = this.text.slice(0, at);
    this.text = this.text.slice(at + 1);
    const w = this.waiting;
    this.waiting = undefined;
    if (w) {
      clearTimeout(w.timer);
      w.resolve(line);
    }
  }

  private onGone(err: unknown): void {
    // A request not yet all written, or reset unread, was read by no broker.
    const unread = this.unsent !== undefined || (err as NodeJS.ErrnoException | undefined)?.code === "ECONNRESET";
    this.gone ??= unread
      ? new BpError("browser_disconnected", "The broker went away before reading the request.", {
          retryable: true,
          context: { reason: "broker_unreachable" },
        })
      : new BpError("browser_disconnected", "Broker closed the connection before replying.", {
          retryable: true,
          context: { reason: "broker_closed" },
        });
    const w = this.waiting;
    this.waiting = undefined;
    if (w) {
      clearTimeout(w.timer);
      w.reject(this.gone);
    }
  }
}

function unreachable(message: string): BpError {
  return new BpError("browser_disconnected", `Broker socket unreachable: ${message}`, {
    retryable: true,
    context: { reason: "broker_unreachable" },
  });
}
