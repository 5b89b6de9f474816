import { afterEach, describe, expect, test } from "bun:test";
import type { TCPSocketListener } from "bun";
import { FakeCdpServer, delay } from "../../test/support/fake-cdp.ts";
import { CdpClosedError, CdpConnectError, CdpHandshakeTimeoutError } from "./errors.ts";
import { connectWebSocket, type Transport } from "./transport.ts";

let server: FakeCdpServer | undefined;
let listener: TCPSocketListener | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
  listener?.stop(true);
  listener = undefined;
});

function nextMessage(transport: Transport): Promise<string> {
  return new Promise((resolve) => {
    transport.onMessage = resolve;
  });
}

for (const readRefusal of [false, true])
  describe(`connectWebSocket${readRefusal ? " (reading refusals: the ws module)" : ""}`, () => {
    test("opens, sends headers, exchanges frames, and reports a remote drop once", async () => {
      server = new FakeCdpServer();
      const transport = await connectWebSocket(server.url, {
        readRefusal,
        headers: { authorization: "Bearer s3cret" },
      });
      expect(server.upgrades).toBe(1);
      expect(server.upgradeHeaders[0]?.get("authorization")).toBe("Bearer s3cret");
      const reply = nextMessage(transport);
      transport.send(JSON.stringify({ id: 1, method: "Browser.getVersion" }));
      const frame: unknown = JSON.parse(await reply);
      expect(frame).toMatchObject({ id: 1, result: { product: "FakeChrome/1.0" } });

      const reasons: string[] = [];
      const closed = new Promise<void>((resolve) => {
        transport.onClose = (reason) => {
          reasons.push(reason);
          resolve();
        };
      });
      server.dropAll();
      await closed;
      await delay(20);
      expect(transport.closed).toBe(true);
      expect(reasons.length).toBe(1);
      expect(() => transport.send("{}")).toThrow(CdpClosedError);
    });

    test("frames that arrive before a handler is attached are kept", async () => {
      server = new FakeCdpServer();
      const transport = await connectWebSocket(server.url, { readRefusal });
      server.emit("Target.targetCreated", { n: 1 });
      server.emit("Target.targetCreated", { n: 2 });
      await delay(30);
      const seen: string[] = [];
      transport.onMessage = (message) => seen.push(message);
      const parsed: unknown[] = seen.map((m) => JSON.parse(m));
      expect(parsed).toMatchObject([{ params: { n: 1 } }, { params: { n: 2 } }]);
      transport.close();
    });

    test("local close reports once and stops delivery", async () => {
      server = new FakeCdpServer();
      const transport = await connectWebSocket(server.url, { readRefusal });
      const reasons: string[] = [];
      transport.onClose = (reason) => reasons.push(reason);
      transport.onMessage = () => {
        throw new Error("no frame expected after close");
      };
      transport.close();
      transport.close();
      server.emit("Target.targetCreated", {});
      await delay(50);
      expect(reasons).toEqual(["closed by client"]);
      expect(server.sockets.size).toBe(0);
    });

    test("only ws: and wss: endpoints; nothing is opened for others", async () => {
      server = new FakeCdpServer();
      const http = server.url.replace("ws:", "http:");
      await expect(connectWebSocket(http)).rejects.toBeInstanceOf(CdpConnectError);
      await expect(connectWebSocket("not a url")).rejects.toBeInstanceOf(CdpConnectError);
      expect(server.upgrades).toBe(0);
    });

    test("handshake timeout: a server that accepts TCP but never answers the upgrade", async () => {
      let serverSideClosed = false;
      let opened = 0;
      listener = Bun.listen({
        hostname: "127.0.0.1",
        port: 0,
        socket: {
          open: () => {
            opened++;
          },
          data: () => undefined,
          close: () => {
            serverSideClosed = true;
          },
        },
      });
      const started = performance.now();
      const error = await connectWebSocket(`ws://127.0.0.1:${listener.port}/devtools/browser/x?token=SECRET`, {
        readRefusal,
        handshakeTimeoutMs: 300,
      }).catch((e: unknown) => e);
      const elapsed = performance.now() - started;
      expect(error).toBeInstanceOf(CdpHandshakeTimeoutError);
      // Not before the handshake timeout; no upper bound (a loaded machine runs timers late).
      expect(elapsed).toBeGreaterThanOrEqual(290);
      expect(String(error)).not.toContain("SECRET");
      expect(opened).toBe(1);
      await delay(100);
      // The half-open socket was torn down, not left for the peer to hold.
      expect(serverSideClosed).toBe(true);
    });

    test("refused connections and non-101 answers reject fast, without leaking the token", async () => {
      const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data: () => undefined } });
      const deadPort = probe.port;
      probe.stop(true);
      const refused = await connectWebSocket(`ws://127.0.0.1:${deadPort}/x?token=SECRET`, { readRefusal }).catch(
        (e: unknown) => e,
      );
      expect(refused).toBeInstanceOf(CdpConnectError);
      expect(refused).not.toBeInstanceOf(CdpHandshakeTimeoutError);
      expect(String(refused)).not.toContain("SECRET");

      const http = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("no", { status: 404 }) });
      try {
        const rejected = await connectWebSocket(`ws://127.0.0.1:${http.port}/x?token=SECRET`, { readRefusal }).catch(
          (e: unknown) => e,
        );
        expect(rejected).toBeInstanceOf(CdpConnectError);
        expect(String(rejected)).toContain("404");
        expect(String(rejected)).not.toContain("SECRET");
      } finally {
        await http.stop(true);
      }
    });

    test("abort signal cancels a pending handshake", async () => {
      listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data: () => undefined } });
      const abort = new AbortController();
      setTimeout(() => abort.abort(), 50);
      const error = await connectWebSocket(`ws://127.0.0.1:${listener.port}/`, {
        readRefusal,
        signal: abort.signal,
      }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CdpConnectError);
      expect(error).not.toBeInstanceOf(CdpHandshakeTimeoutError);
    });

    test("a frame above maxPayload closes the transport", async () => {
      server = new FakeCdpServer();
      const transport = await connectWebSocket(server.url, { readRefusal, maxPayload: 1000 });
      const closed = new Promise<string>((resolve) => {
        transport.onClose = resolve;
      });
      server.sendRaw(JSON.stringify({ method: "x", params: { blob: "y".repeat(2000) } }));
      expect(await closed).toContain("maxPayload");
    });
  });

test("a refused upgrade's status and Retry-After, from that one handshake; the token stays out", async () => {
  let upgrades = 0;
  const refusing = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () => {
      upgrades++;
      return new Response("busy", { status: 429, headers: { "retry-after": "7" } });
    },
  });
  try {
    const url = `ws://127.0.0.1:${refusing.port}/x?token=SECRET`;
    const err = await connectWebSocket(url, { readRefusal: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CdpConnectError);
    expect(err).toMatchObject({ status: 429, retryAfterMs: 7000 });
    expect(String(err)).not.toContain("SECRET");
    expect(upgrades).toBe(1);
    // Bun's own WebSocket: the status only.
    expect(await connectWebSocket(url).catch((e: unknown) => e)).toMatchObject({
      status: 429,
      retryAfterMs: undefined,
    });
  } finally {
    await refusing.stop(true);
  }
});
