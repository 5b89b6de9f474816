/** Raw access to the broker's Unix socket, as a hostile local process would have it. */
import { readFileSync } from "node:fs";
import { join } from "node:path";

export interface Locator {
  pid: number;
  endpoint: string;
  token: string;
}

export function readLocator(home: string): Locator {
  return JSON.parse(readFileSync(join(home, "broker-locator.json"), "utf8")) as Locator;
}

export interface RawOutcome {
  /** The first line the broker sent, if any. */
  line?: string;
  /** The broker closed the connection. */
  closed: boolean;
  ms: number;
}

/** Sends bytes (in one write, or in the given pieces) and waits for a line, a close or `waitMs`. */
export function rawExchange(
  endpoint: string,
  payload: string | Uint8Array | (string | Uint8Array)[],
  waitMs: number,
): Promise<RawOutcome> {
  const started = performance.now();
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let done = false;
    let sock: { end(): void } | undefined;
    const finish = (closed: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString("utf8");
      const nl = text.indexOf("\n");
      try {
        sock?.end();
      } catch {
        // closed
      }
      resolve({
        ...(text.length > 0 ? { line: nl >= 0 ? text.slice(0, nl) : text } : {}),
        closed,
        ms: performance.now() - started,
      });
    };
    const timer = setTimeout(() => finish(false), waitMs);
    // Bun writes what the socket takes at once; the rest goes out on drain.
    let pending = Buffer.concat(
      (Array.isArray(payload) ? payload : [payload]).map((p) =>
        typeof p === "string" ? Buffer.from(p) : Buffer.from(p),
      ),
    );
    const flush = (s: { write(b: Uint8Array): number }) => {
      while (pending.length > 0) {
        const n = s.write(pending);
        if (n <= 0) return;
        pending = pending.subarray(n);
      }
    };
    Bun.connect({
      unix: endpoint,
      socket: {
        open(s) {
          sock = s;
          flush(s);
        },
        drain(s) {
          flush(s);
        },
        data(_s, data) {
          chunks.push(Buffer.from(data));
          if (data.includes(10)) finish(false);
        },
        close() {
          finish(true);
        },
        error() {
          finish(true);
        },
      },
    }).catch(() => finish(true));
  });
}

export interface Held {
  /** Connections the broker has closed so far. */
  closedCount(): number;
  /** Connections that got any bytes back. */
  answeredCount(): number;
  end(): void;
}

/** Opens `n` connections that send `prefix` (possibly nothing) and then stay silent. */
export async function holdConnections(endpoint: string, n: number, prefix = ""): Promise<Held> {
  const socks: { end(): void }[] = [];
  let closed = 0;
  let answered = 0;
  const opening: Promise<unknown>[] = [];
  for (let i = 0; i < n; i++) {
    opening.push(
      Bun.connect({
        unix: endpoint,
        socket: {
          open(s) {
            socks.push(s);
            if (prefix) s.write(prefix);
          },
          data() {
            answered++;
          },
          close() {
            closed++;
          },
          error() {
            // counted by close
          },
        },
      }).catch(() => {
        closed++;
      }),
    );
    // Do not flood the accept queue all at once.
    if (i % 100 === 99) await Promise.all(opening.splice(0));
  }
  await Promise.all(opening);
  return {
    closedCount: () => closed,
    answeredCount: () => answered,
    end() {
      for (const s of socks) {
        try {
          s.end();
        } catch {
          // closed
        }
      }
    },
  };
}
