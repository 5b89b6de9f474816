/**
 * Test-only fake CDP endpoint: it can delay replies, drop sockets mid-call and count upgrades, which a browser cannot.
 */
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

export class FakeCdpServer {
  upgrades = 0;
  readonly received: FakeRequest[] = [];
  readonly upgradeHeaders: Headers[] = [];
  readonly sockets = new Set<Socket>();
  readonly routes = new Map<string, FakeRoute>();
  readonly #server: Server<undefined>;
  readonly #waiters: { method: string; resolve: (request: FakeRequest) => void }[] = [];

  constructor() {
    this.#server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (request, server) => {
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
    this.route("Browser.getVersion", () => ({ result: VERSION }));
    this.route("Target.attachToTarget", (request) => ({
      result: { sessionId: `session-${String(request.params.targetId)}` },
    }));
    this.route("Target.detachFromTarget", (request) => {
      this.emit("Target.detachedFromTarget", { sessionId: request.params.sessionId });
      return { result: {} };
    });
  }

  get url(): string {
    return `ws://127.0.0.1:${this.#server.port}/devtools/browser/fake`;
  }

  route(method: string, handler: FakeRoute): void {
    this.routes.set(method, handler);
  }

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
      route === undefined ? { error: { code: -32601, message: `'${method}' wasn't found` } } : await route(request, this);
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
