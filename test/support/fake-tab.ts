/**
 * A tab for tests of the broker's settling without a browser: the fake CDP server answers the
 * page calls by running the page runtime in happy-dom windows (one per frame session), and the
 * test emits the tab's CDP events (network, navigation, dialogs) itself.
 */
import { Window } from "happy-dom";
import { delay, FakeCdpServer } from "./fake-cdp.ts";
import { CdpConnection } from "../../src/cdp/connection.ts";
import { attachToTarget, type CdpSession } from "../../src/cdp/session.ts";
import { connectWebSocket } from "../../src/cdp/transport.ts";
import type { BrowserConnection } from "../../src/broker/browser.ts";
import type { TargetRecord } from "../../src/broker/targets.ts";

export interface FakeFrame {
  targetId: string;
  session: CdpSession;
  window: Window;
  /** Emits a CDP event on this frame's session. */
  emit(method: string, params: Record<string, unknown>): void;
  /** Resolves once every event emitted so far has reached the broker side (events and replies keep their order). */
  flush(): Promise<void>;
}

export interface FakeTab extends FakeFrame {
  server: FakeCdpServer;
  conn: CdpConnection;
  browser: BrowserConnection;
  rec: TargetRecord;
  /** A cross-origin frame: a session of its own on another window. */
  frame(targetId: string, html?: string): Promise<FakeFrame>;
  /** While set, page calls get no answer (a dialog blocks the page). */
  blocked: boolean;
  close(): Promise<void>;
}

export async function fakeTab(html = ""): Promise<FakeTab> {
  const server = new FakeCdpServer();
  const windows = new Map<string, Window>();
  let blocked = false;
  server.route("Network.enable", () => ({ result: {} }));
  server.route("Page.createIsolatedWorld", () => ({ result: { executionContextId: 1 } }));
  server.route("Runtime.callFunctionOn", async (req) => {
    const w = windows.get(req.sessionId ?? "");
    if (!w || blocked) return "no-reply";
    const args = (req.params.arguments ?? []) as { value?: unknown }[];
    const fn = new Function("window", `return (${String(req.params.functionDeclaration)});`)(w) as (
      call: unknown,
    ) => unknown;
    try {
      const value = await fn(args[0]?.value);
      return { result: { result: { type: typeof value, value } } };
    } catch (err) {
      return {
        result: {
          result: { type: "undefined" },
          exceptionDetails: { exceptionId: 1, text: String(err), lineNumber: 0, columnNumber: 0 },
        },
      };
    }
  });
  const conn = new CdpConnection(await connectWebSocket(server.url));
  const open = async (targetId: string, body: string): Promise<FakeFrame> => {
    const window = new Window({ url: `https://${targetId.toLowerCase()}.test/` });
    window.document.body.innerHTML = body;
    const session = await attachToTarget(conn, targetId);
    windows.set(session.sessionId, window);
    return {
      targetId,
      session,
      window,
      emit: (method, params) => server.emit(method, params, session.sessionId),
      flush: () => session.send("Network.enable", {}).then(() => undefined),
    };
  };
  const top = await open("T1", html);
  return {
    ...top,
    server,
    conn,
    browser: { cdp: conn } as unknown as BrowserConnection,
    rec: { targetId: "T1", controller: "agent" } as TargetRecord,
    frame: (targetId, body = "") => open(targetId, body),
    get blocked() {
      return blocked;
    },
    set blocked(b: boolean) {
      blocked = b;
    },
    async close() {
      conn.close();
      await server.stop();
      for (const w of windows.values()) await w.happyDOM.close();
    },
  };
}

export { delay };
