/**
 * A fake browser-level CDP endpoint, for what a real Chromium cannot show: how many
 * WebSocket upgrades Browser Pilot makes, and what it does when the socket drops. It sits
 * in a fake HOME exactly where discovery looks for Chromium (DevToolsActivePort plus a
 * SingletonLock naming this live process).
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import type { ServerWebSocket } from "bun";

export interface FakeCdp {
  home: string;
  /** The browser-level endpoint, as a remote provider would hand it out. */
  url: string;
  upgrades: () => number;
  dropAll(): void;
  stop(): void;
}

export function startFakeCdp(opts: { upgradeDelayMs?: number; requireHeader?: [string, string] } = {}): FakeCdp {
  const home = mkdtempSync(join(tmpdir(), "bp-fake-cdp-"));
  const dataDir = join(home, ".config", "chromium");
  mkdirSync(dataDir, { recursive: true });
  let upgrades = 0;
  const sockets = new Set<ServerWebSocket<unknown>>();
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req, srv) {
      if (!new URL(req.url).pathname.startsWith("/devtools/browser/")) return new Response("no", { status: 404 });
      // Hold the handshake open so concurrent connects really overlap.
      if (opts.upgradeDelayMs) await Bun.sleep(opts.upgradeDelayMs);
      if (opts.requireHeader && req.headers.get(opts.requireHeader[0]) !== opts.requireHeader[1]) return new Response("unauthorized", { status: 401 });
      upgrades++;
      return srv.upgrade(req) ? undefined : new Response("upgrade failed", { status: 400 });
    },
    websocket: {
      open(ws) {
        sockets.add(ws);
      },
      close(ws) {
        sockets.delete(ws);
      },
      message(ws, raw) {
        const msg = JSON.parse(String(raw)) as { id: number; method: string; sessionId?: string };
        const result: Record<string, unknown> =
          msg.method === "Browser.getVersion"
            ? { protocolVersion: "1.3", product: "Chrome/999.0.0.0", revision: "fake", userAgent: "fake", jsVersion: "0" }
            : msg.method === "Target.getTargets"
              ? { targetInfos: [] }
              : {};
        ws.send(JSON.stringify({ id: msg.id, result, ...(msg.sessionId ? { sessionId: msg.sessionId } : {}) }));
      },
    },
  });
  writeFileSync(join(dataDir, "DevToolsActivePort"), `${server.port}\n/devtools/browser/fake-0000\n`);
  symlinkSync(`${hostname()}-${process.pid}`, join(dataDir, "SingletonLock"));
  return {
    home,
    url: `ws://127.0.0.1:${server.port}/devtools/browser/fake-0000?token=secret-query-token`,
    upgrades: () => upgrades,
    dropAll() {
      for (const ws of sockets) ws.close();
    },
    stop() {
      server.stop(true);
      rmSync(home, { recursive: true, force: true });
    },
  };
}
