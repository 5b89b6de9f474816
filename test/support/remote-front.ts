/**
 * A remote browser service in front of a real Chromium, on loopback: it checks a token in
 * the query as hosted services do, can refuse the WebSocket handshake with a chosen HTTP
 * status (401, 404, 429…) or never answer it, counts every handshake it sees, and can end
 * live sessions the way a service does (a Close frame whose reason quotes the session's URL,
 * token included, or a dropped connection). Everything else is passed through byte for byte.
 */
import { type Socket, createConnection, createServer } from "node:net";

export interface RemoteFront {
  /** Browser-level endpoint with the token in its query. */
  url: string;
  token: string;
  /** Handshakes received so far, refused ones included. */
  upgrades(): number;
  /** Answers the next handshakes with this status instead (undefined: pass through again). */
  refuse(status: number | "hang" | undefined, retryAfter?: string): void;
  /** Ends every live session: a Close frame quoting the URL, or a dropped connection. */
  kill(how: "close_frame" | "drop"): void;
  stop(): void;
}

export async function startRemoteFront(
  upstreamPort: number,
  upstreamPath: string,
  token: string,
): Promise<RemoteFront> {
  let refusal: { status: number | "hang"; retryAfter?: string } | undefined;
  let upgrades = 0;
  const live = new Map<Socket, { client: Socket; up: Socket; path: string }>();
  const server = createServer((client) => {
    client.on("error", () => undefined);
    client.once("data", (first) => {
      upgrades++;
      const head = first.toString("latin1");
      const path = /^GET (\S+) HTTP/.exec(head)?.[1] ?? "/";
      if (refusal?.status === "hang") return;
      const status =
        refusal?.status ?? (new URL(path, "http://x").searchParams.get("token") === token ? undefined : 401);
      if (status !== undefined) {
        const extra = refusal?.retryAfter !== undefined ? `Retry-After: ${refusal.retryAfter}\r\n` : "";
        client.end(`HTTP/1.1 ${status} Refused\r\n${extra}Content-Length: 0\r\nConnection: close\r\n\r\n`);
        return;
      }
      const up = createConnection(upstreamPort, "127.0.0.1");
      up.on("error", () => client.destroy());
      // Chromium serves its path only: the query is the service's.
      up.write(Buffer.from(head.replace(/^GET \S+ HTTP/, `GET ${upstreamPath} HTTP`), "latin1"));
      client.on("data", (d) => up.write(d));
      up.on("data", (d) => client.write(d));
      const end = () => {
        live.delete(client);
        up.destroy();
        client.destroy();
      };
      client.on("close", end);
      up.on("close", end);
      live.set(client, { client, up, path });
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const port = (server.address() as { port: number }).port;
  const base = `ws://127.0.0.1:${port}`;
  return {
    url: `${base}${upstreamPath}?token=${token}`,
    token,
    upgrades: () => upgrades,
    refuse(status, retryAfter) {
      refusal = status === undefined ? undefined : { status, ...(retryAfter !== undefined ? { retryAfter } : {}) };
    },
    kill(how) {
      for (const { client, up, path } of [...live.values()]) {
        live.delete(client);
        up.destroy();
        if (how === "close_frame") {
          // Services quote the session's URL, token and all, in their close reasons.
          const reason = Buffer.from(`session ${base}${path} ended`.slice(0, 120));
          const frame = Buffer.alloc(4 + reason.length);
          frame[0] = 0x88;
          frame[1] = 2 + reason.length;
          frame.writeUInt16BE(1011, 2);
          reason.copy(frame, 4);
          client.end(frame);
        } else {
          client.destroy();
        }
      }
    },
    stop() {
      for (const { client, up } of live.values()) {
        client.destroy();
        up.destroy();
      }
      server.close();
    },
  };
}
