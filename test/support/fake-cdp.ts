/**
 * The fake CDP endpoint, on Bun.serve, for what a real Chromium cannot show: a delayed or
 * missing reply, a socket dropped mid-call, how many WebSocket upgrades a client makes.
 * `startFakeCdp` also puts it in a fake HOME where discovery looks for Chromium.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import type { Server, ServerWebSocket } from "bun";

export interface FakeRequest {
  id: number;
  method: string;
  params: Record<string, unknown>;
  sessionId?: string;
}

export type FakeReply =
  | { result: Record<string, unknown> }
  | { error: { code: number; message: string; data?: string } }
  | "no-reply";

export type FakeRoute = (request: FakeRequest, server: FakeCdpServer) => FakeReply | Promise<FakeReply>;

export const VERSION = {
  protocolVersion: "1.3",
  product: "FakeChrome/1.0",
  revision: "@fake",
  userAgent: "FakeChrome",
  jsVersion: "0",
};

type Socket = ServerWebSocket<undefined>;

export interface FakeCdpOptions {
  /** Holds each handshake open this long, so concurrent connects really overlap. */
  upgradeDelayMs?: number;
  /** Refuses the upgrade (401) unless this header has this value. */
  requireHeader?: [string, string];
  /** What Browser.getVersion reports as the product. */
  product?: string;
  /** Answer a method without a route with an empty result instead of "wasn't found". */
  answerAll?: boolean;
}

export class FakeCdpServer {
  upgrades = 0;
  readonly received: FakeRequest[] = [];
  readonly upgradeHeaders: Headers[] = [];
  readonly sockets = new Set<Socket>();
  readonly routes = new Map<string, FakeRoute>();
  readonly #server: Server<undefined>;
  readonly #waiters: { method: string; resolve: (request: FakeRequest) => void }[] = [];

  readonly #answerAll: boolean;

  constructor(opts: FakeCdpOptions = {}) {
    this.#answerAll = opts.answerAll === true;
    this.#server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: async (request, server) => {
        if (!new URL(request.url).pathname.startsWith("/devtools/browser/")) return new Response("no", { status: 404 });
        if (opts.upgradeDelayMs) await Bun.sleep(opts.upgradeDelayMs);
        if (opts.requireHeader && request.headers.get(opts.requireHeader[0]) !== opts.requireHeader[1])
          return new Response("unauthorized", { status: 401 });
        if (server.upgrade(request)) {
          this.upgrades++;
          this.upgradeHeaders.push(request.headers);
          return undefined;
        }
        return new Response("not a websocket", { status: 400 });
      },
      websocket: {
        open: (ws) => {
          this.sockets.add(ws);
        },
        close: (ws) => {
          this.sockets.delete(ws);
        },
        message: (ws, data) => {
          void this.#onMessage(ws, typeof data === "string" ? data : data.toString("utf8"));
        },
      },
    });
    const version = opts.product === undefined ? VERSION : { ...VERSION, product: opts.product };
    this.route("Browser.getVersion", () => ({ result: version }));
    this.route("Target.getTargets", () => ({ result: { targetInfos: [] } }));
    this.route("Target.attachToTarget", (request) => ({
      result: { sessionId: `session-${String(request.params.targetId)}` },
    }));
    this.route("Target.detachFromTarget", (request) => {
      this.emit("Target.detachedFromTarget", { sessionId: request.params.sessionId });
      return { result: {} };
    });
  }

  get port(): number {
    return this.#server.port ?? 0;
  }

  get url(): string {
    return `ws://127.0.0.1:${this.port}/devtools/browser/fake`;
  }

  route(method: string, handler: FakeRoute): void {
    this.routes.set(method, handler);
  }

  /** Sends an event to every connected client. */
  emit(method: string, params: Record<string, unknown>, sessionId?: string): void {
    const frame = JSON.stringify({ method, params, sessionId });
    for (const ws of this.sockets) ws.send(frame);
  }

  /** Sends a raw frame (replies the routes would not produce, malformed data). */
  sendRaw(frame: string): void {
    for (const ws of this.sockets) ws.send(frame);
  }

  /** Cuts every connection without a close handshake, like a crashed browser. */
  dropAll(): void {
    for (const ws of this.sockets) ws.terminate();
  }

  /** Closes every connection with a close handshake, like a browser that quit. */
  closeAll(): void {
    for (const ws of this.sockets) ws.close();
  }

  waitForRequest(method: string): Promise<FakeRequest> {
    const seen = this.received.find((request) => request.method === method);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve) => this.#waiters.push({ method, resolve }));
  }

  async stop(): Promise<void> {
    await this.#server.stop(true);
  }

  async #onMessage(ws: Socket, text: string): Promise<void> {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== "object" || parsed === null) return;
    const id = "id" in parsed && typeof parsed.id === "number" ? parsed.id : -1;
    const method = "method" in parsed && typeof parsed.method === "string" ? parsed.method : "";
    const params = "params" in parsed && isRecord(parsed.params) ? parsed.params : {};
    const request: FakeRequest = { id, method, params };
    if ("sessionId" in parsed && typeof parsed.sessionId === "string") request.sessionId = parsed.sessionId;
    this.received.push(request);
    for (const waiter of this.#waiters.filter((w) => w.method === method)) {
      this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
      waiter.resolve(request);
    }
    const route = this.routes.get(method);
    const reply: FakeReply =
      route !== undefined
        ? await route(request, this)
        : this.#answerAll
          ? { result: {} }
          : { error: { code: -32601, message: `'${method}' wasn't found` } };
    if (reply === "no-reply" || ws.readyState !== 1) return;
    ws.send(JSON.stringify({ id, ...reply, sessionId: request.sessionId }));
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export interface FakeCdp {
  home: string;
  /** The browser-level endpoint, as a remote provider would hand it out. */
  url: string;
  upgrades: () => number;
  dropAll(): void;
  stop(): void;
}

/**
 * A fake browser in a fake HOME exactly where discovery looks for Chromium (DevToolsActivePort
 * plus a SingletonLock naming this live process), answering every method.
 */
export function startFakeCdp(opts: Pick<FakeCdpOptions, "upgradeDelayMs" | "requireHeader"> = {}): FakeCdp {
  const home = mkdtempSync(join(tmpdir(), "bp-fake-cdp-"));
  const dataDir = join(home, ".config", "chromium");
  mkdirSync(dataDir, { recursive: true });
  const server = new FakeCdpServer({ ...opts, product: "Chrome/999.0.0.0", answerAll: true });
  writeFileSync(join(dataDir, "DevToolsActivePort"), `${server.port}\n/devtools/browser/fake-0000\n`);
  symlinkSync(`${hostname()}-${process.pid}`, join(dataDir, "SingletonLock"));
  return {
    home,
    url: `ws://127.0.0.1:${server.port}/devtools/browser/fake-0000?token=secret-query-token`,
    upgrades: () => server.upgrades,
    dropAll: () => server.closeAll(),
    stop() {
      void server.stop();
      rmSync(home, { recursive: true, force: true });
    },
  };
}
