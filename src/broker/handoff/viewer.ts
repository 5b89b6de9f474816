/**
 * The live viewer: a loopback-only web server in the broker, started on the first 'bp view'. Each link's one-time token
 * is spent on opening and yields a session id admitting one WebSocket (screencast out, input in). Input counts only
 * while the tab is under human control; the end of control revokes the tab's links and sessions.
 */
import type { Server, ServerWebSocket } from "bun";
import * as v from "valibot";
import type { CdpSession } from "../../cdp/session.ts";
import type { AgentRegistry } from "../agents.ts";
import type { BrowserConnection } from "../browser.ts";
import type { HandoffControl } from "./control.ts";
import { dispatchInput, viewerMessage, viewportOf, type Viewport } from "./input.ts";
import { viewerHeaders, viewerHtml } from "./viewer-page.ts";

/** An unopened link expires after this long. */
export const VIEW_LINK_TTL_MS = 10 * 60_000;
/** A page must open its socket this soon after it was served. */
const CONNECT_WITHIN_MS = 60_000;
const STATE_EVERY_MS = 2_000;
const MAX_TABS_LISTED = 20;

export interface ViewerHost {
  readonly browser: BrowserConnection | undefined;
  readonly agents: AgentRegistry;
  readonly handoff: HandoffControl;
}

interface Grant {
  targetId: string;
  generation: number;
  expiresAt: number;
}

interface Session {
  id: string;
  targetId: string;
  generation: number;
  servedAt: number;
  ws?: ServerWebSocket<SocketData>;
  vp?: Viewport;
  chain: Promise<void>;
}

interface SocketData {
  session: string;
}

interface Cast {
  session: CdpSession;
  viewers: Set<Session>;
  off: () => void;
}

function secret(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
}

export class ViewerServer {
  private server: Server<SocketData> | undefined;
  private readonly grants = new Map<string, Grant>();
  private readonly sessions = new Map<string, Session>();
  private readonly casts = new Map<string, Cast>();
  private ticker: Timer | undefined;

  constructor(private readonly host: ViewerHost) {}

  grant(targetId: string, generation: number): { url: string; expiresAt: string } {
    const server = this.start();
    const token = secret();
    const ttl = Number(process.env.BROWSER_PILOT_VIEW_LINK_MS);
    const expiresAt = Date.now() + (ttl > 0 ? Math.min(ttl, VIEW_LINK_TTL_MS) : VIEW_LINK_TTL_MS);
    this.grants.set(token, { targetId, generation, expiresAt });
    return { url: `${this.origin(server)}/v/${token}`, expiresAt: new Date(expiresAt).toISOString() };
  }

  /** Control of the tab ended: its links stop working and its viewers lose input at once. */
  revokeTab(targetId: string, reason: string): void {
    for (const [token, g] of this.grants) if (g.targetId === targetId) this.grants.delete(token);
    for (const s of [...this.sessions.values()]) if (s.targetId === targetId) this.close(s, reason);
  }

  changed(targetId: string): void {
    for (const s of this.sessions.values()) if (s.targetId === targetId && s.ws) this.sendState(s);
  }

  stop(): void {
    for (const s of [...this.sessions.values()]) this.close(s, "broker_stopped");
    this.grants.clear();
    clearInterval(this.ticker);
    this.ticker = undefined;
    this.server?.stop(true);
    this.server = undefined;
  }

  private origin(server: Server<SocketData>): string {
    return `http://127.0.0.1:${server.port}`;
  }

  private start(): Server<SocketData> {
    if (this.server) return this.server;
    const server = Bun.serve<SocketData>({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (req, srv) => this.fetch(req, srv),
      websocket: {
        open: (ws) => void this.opened(ws),
        message: (ws, data) => this.message(ws, data),
        close: (ws) => {
          const s = this.sessions.get(ws.data.session);
          if (s && s.ws === ws) this.close(s, "closed");
        },
      },
    });
    this.server = server;
    this.ticker = setInterval(() => {
      for (const s of this.sessions.values()) if (s.ws) this.sendState(s);
      const now = Date.now();
      for (const [t, g] of this.grants) if (g.expiresAt <= now) this.grants.delete(t);
      for (const s of [...this.sessions.values()])
        if (!s.ws && now - s.servedAt > CONNECT_WITHIN_MS) this.sessions.delete(s.id);
    }, STATE_EVERY_MS);
    return server;
  }

  private fetch(req: Request, srv: Server<SocketData>): Response | undefined {
    const origin = this.origin(srv);
    const url = new URL(req.url);
    // Only our own loopback name: a rebinding DNS name pointing here is refused.
    if (req.headers.get("host") !== `127.0.0.1:${srv.port}`) return refuse(origin, 421, "Wrong host.");
    const page = /^\/v\/([A-Za-z0-9_-]{43})$/.exec(url.pathname);
    if (page && req.method === "GET") {
      const token = page[1] ?? "";
      const grant = this.grants.get(token);
      // One use only: the token is spent whether or not the page then connects.
      this.grants.delete(token);
      if (!grant || grant.expiresAt <= Date.now() || !this.live(grant.targetId, grant.generation)) {
        return refuse(
          origin,
          403,
          "This viewer link is not valid: it was used already, has expired or was revoked. Run 'bp view' for a new one.",
        );
      }
      const session: Session = {
        id: secret(),
        targetId: grant.targetId,
        generation: grant.generation,
        servedAt: Date.now(),
        chain: Promise.resolve(),
      };
      this.sessions.set(session.id, session);
      const nonce = secret();
      return new Response(viewerHtml(session.id, nonce), {
        headers: { ...viewerHeaders(origin, nonce), "content-type": "text/html; charset=utf-8" },
      });
    }
    const socket = /^\/ws\/([A-Za-z0-9_-]{43})$/.exec(url.pathname);
    if (socket && req.method === "GET") {
      const s = this.sessions.get(socket[1] ?? "");
      if (!s || s.ws || req.headers.get("origin") !== origin || Date.now() - s.servedAt > CONNECT_WITHIN_MS)
        return refuse(origin, 403, "Not allowed.");
      if (srv.upgrade(req, { data: { session: s.id }, headers: { "cache-control": "no-store" } })) return undefined;
      return refuse(origin, 400, "WebSocket expected.");
    }
    return refuse(origin, 404, "Not found.");
  }

  private live(targetId: string, generation: number): BrowserConnection | undefined {
    const b = this.host.browser;
    return b && !b.closed && b.generation === generation && b.targets.byId.has(targetId) ? b : undefined;
  }

  private async opened(ws: ServerWebSocket<SocketData>): Promise<void> {
    const s = this.sessions.get(ws.data.session);
    const browser = s ? this.live(s.targetId, s.generation) : undefined;
    const rec = browser && s ? browser.targets.byId.get(s.targetId) : undefined;
    if (!s || s.ws || !browser || !rec) {
      ws.close(1008, "not allowed");
      return;
    }
    s.ws = ws;
    this.sendState(s);
    try {
      const session = await browser.session(rec);
      s.vp = await viewportOf(session);
      // A first frame at once: a page that does not repaint sends no screencast frame.
      const shot = await session.send("Page.captureScreenshot", { format: "jpeg", quality: 70 }, { timeoutMs: 5_000 });
      if (s.ws === ws) ws.send(JSON.stringify({ type: "frame", data: shot.data }));
      if (s.ws === ws) await this.join(s, session);
    } catch {
      this.close(s, "tab_unavailable");
    }
  }

  private async join(s: Session, session: CdpSession): Promise<void> {
    let cast = this.casts.get(s.targetId);
    if (!cast || cast.session !== session) {
      const viewers = new Set<Session>();
      const off = session.on("Page.screencastFrame", (f) => {
        void session.send("Page.screencastFrameAck", { sessionId: f.sessionId }).catch(() => undefined);
        const frame = JSON.stringify({ type: "frame", data: f.data });
        for (const v of viewers) {
          v.vp = { width: f.metadata.deviceWidth, height: f.metadata.deviceHeight };
          v.ws?.send(frame);
        }
      });
      cast = { session, viewers, off };
      this.casts.set(s.targetId, cast);
      await session.send("Page.startScreencast", { format: "jpeg", quality: 70, maxWidth: 1600, maxHeight: 1200 });
    }
    cast.viewers.add(s);
  }

  private message(ws: ServerWebSocket<SocketData>, data: string | Buffer): void {
    const s = this.sessions.get(ws.data.session);
    if (!s || s.ws !== ws) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(typeof data === "string" ? data : data.toString("utf8"));
    } catch {
      return;
    }
    const m = v.safeParse(viewerMessage, parsed);
    if (!m.success) return;
    const ep = this.host.handoff.get(s.targetId);
    // Input and handback only while a person has control of this tab in this generation.
    if (!ep || ep.phase !== "human" || ep.generation !== s.generation) {
      ws.send(JSON.stringify({ type: "refused", reason: "Input is off: the tab is not under human control." }));
      return;
    }
    const msg = m.output;
    if (msg.type === "handback") {
      void this.host.handoff.end(s.targetId, "handback");
      return;
    }
    const browser = this.live(s.targetId, s.generation);
    const rec = browser?.targets.byId.get(s.targetId);
    if (!browser || !rec) return;
    s.chain = s.chain
      .then(async () => {
        // Checked again in order: a handback between two events closes input for the rest.
        const now = this.host.handoff.get(s.targetId);
        if (!now || now.phase !== "human" || !this.sessions.has(s.id)) return;
        const session = await browser.session(rec);
        s.vp ??= await viewportOf(session);
        await dispatchInput(session, s.vp, msg);
      })
      .catch(() => undefined);
  }

  private sendState(s: Session): void {
    const browser = this.live(s.targetId, s.generation);
    const ep = this.host.handoff.get(s.targetId);
    const tabs = browser
      ? browser.targets
          .eligible()
          .slice(0, MAX_TABS_LISTED)
          .map((t) => {
            const human = this.host.handoff.get(t.targetId);
            const agent = t.controller !== undefined && this.host.agents.get(t.controller) ? t.controller : undefined;
            return {
              title: t.title,
              url: t.url,
              ...(agent ? { agent } : {}),
              ...(human ? { human: new Date(human.endsAt).toISOString() } : {}),
              ...(t.targetId === s.targetId ? { viewed: true } : {}),
            };
          })
      : [];
    const state = ep
      ? {
          control: ep.phase === "returning" ? "human" : ep.phase,
          until: new Date(ep.endsAt).toISOString(),
          message: ep.message ?? "",
        }
      : { control: "automation" };
    s.ws?.send(JSON.stringify({ type: "state", ...state, tabs }));
  }

  private close(s: Session, reason: string): void {
    this.sessions.delete(s.id);
    const cast = this.casts.get(s.targetId);
    if (cast) {
      cast.viewers.delete(s);
      if (cast.viewers.size === 0) {
        cast.off();
        this.casts.delete(s.targetId);
        void cast.session.send("Page.stopScreencast").catch(() => undefined);
      }
    }
    const ws = s.ws;
    s.ws = undefined;
    if (ws) {
      try {
        ws.send(JSON.stringify({ type: "ended", reason }));
        ws.close(1000, reason);
      } catch {
        // already gone
      }
    }
  }
}

function refuse(origin: string, status: number, text: string): Response {
  return new Response(text, {
    status,
    headers: { ...viewerHeaders(origin, undefined), "content-type": "text/plain; charset=utf-8" },
  });
}
