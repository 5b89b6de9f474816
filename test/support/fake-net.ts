/**
 * A page session's network events, for tests of what an action makes of them (polling.ts,
 * settle/requests/requests.ts): the real code reads nothing but these events, and their timing on two
 * clocks (the page's and ours) is what is under test, which a real page cannot set exactly.
 */
import type { Protocol } from "devtools-protocol";
import type { EventHandler, EventMethod, EventParams } from "../../src/cdp/types.ts";
import type { NetEvents } from "../../src/broker/settle/requests/polling.ts";

/** How late each event reaches us (ms). */
const LAG = 1;

export class FakeNet implements NetEvents {
  private readonly handlers: { method: string; fn: (p: never, sessionId: string | undefined) => void }[] = [];
  /** Our clock (ms); set to a page time plus LAG as each event is emitted. One for the sessions of one browser (`sameClockAs`). */
  private readonly clock: { t: number };
  readonly now = (): number => this.clock.t;
  private n = 0;

  /** `sameClockAs`: another session of the same browser (an out-of-process frame's beside the tab's): one clock, and the page's. */
  constructor(sameClockAs?: FakeNet) {
    this.clock = sameClockAs?.clock ?? { t: 0 };
  }

  on<E extends EventMethod>(method: E, handler: EventHandler<E>): () => void {
    const h = { method, fn: handler };
    this.handlers.push(h);
    return () => void this.handlers.splice(this.handlers.indexOf(h), 1);
  }

  private emit<E extends EventMethod>(method: E, p: EventParams<E>): void {
    for (const h of this.handlers.filter((x) => x.method === method)) (h.fn as EventHandler<E>)(p, undefined);
  }

  /** Our clock at page time `ms`. */
  at(ms: number): void {
    this.clock.t = ms + LAG;
  }

  /**
   * A GET of `path` started at page time `ms` from line `line` of the page's script (`type`
   * "Document": a frame's navigation, made by no script); its event, emitted.
   */
  sent(
    ms: number,
    o: { path?: string; line?: number; id?: string; redirect?: boolean; type?: "Fetch" | "Document" } = {},
  ): Protocol.Network.RequestWillBeSentEvent {
    this.at(ms);
    const url = `http://a.test${o.path ?? "/api/items"}?t=${ms}`;
    const p: Protocol.Network.RequestWillBeSentEvent = {
      requestId: o.id ?? `r${++this.n}`,
      loaderId: "L",
      documentURL: "http://a.test/",
      request: { url, method: "GET", headers: {}, initialPriority: "High", referrerPolicy: "no-referrer" },
      timestamp: ms / 1000,
      wallTime: ms / 1000,
      initiator:
        o.type === "Document"
          ? { type: "parser" }
          : {
              type: "script",
              stack: {
                callFrames: [
                  {
                    functionName: "load",
                    scriptId: "1",
                    url: "http://a.test/",
                    lineNumber: o.line ?? 1,
                    columnNumber: 0,
                  },
                ],
              },
            },
      redirectHasExtraInfo: false,
      type: o.type ?? "Fetch",
      ...(o.redirect
        ? {
            redirectResponse: {
              url,
              status: 302,
              statusText: "Found",
              headers: {},
              mimeType: "",
              charset: "",
              connectionReused: false,
              connectionId: 0,
              encodedDataLength: 0,
              securityState: "neutral",
            },
          }
        : {}),
    };
    this.emit("Network.requestWillBeSent", p);
    return p;
  }

  /** The response of `id` ended at page time `ms`. */
  finished(id: string, ms: number): { requestId: string; timestamp: number } {
    this.at(ms);
    const p = { requestId: id, timestamp: ms / 1000, encodedDataLength: 0 };
    this.emit("Network.loadingFinished", p);
    return p;
  }

  /** The answer of `id` came at page time `ms` (status, headers, protocol: HTTP/1.1), its body in `chunks` (decoded bytes each), each 1 ms later. */
  answered(
    id: string,
    ms: number,
    o: { status?: number; headers?: Record<string, string>; chunks?: number[]; protocol?: string } = {},
  ): void {
    this.at(ms);
    const response = {
      url: "http://a.test/api",
      status: o.status ?? 200,
      statusText: "",
      headers: o.headers ?? {},
      mimeType: "text/plain",
      charset: "",
      connectionReused: false,
      connectionId: 0,
      encodedDataLength: 100,
      securityState: "neutral",
      protocol: o.protocol ?? "http/1.1",
    } as Protocol.Network.Response;
    this.emit("Network.responseReceived", {
      requestId: id,
      loaderId: "L",
      timestamp: ms / 1000,
      type: "Fetch",
      response,
      hasExtraInfo: false,
    });
    let t = ms;
    for (const n of o.chunks ?? []) this.data(id, ++t, n);
  }

  /** `n` bytes of the body of `id` came at page time `ms`. */
  data(id: string, ms: number, n: number): void {
    this.at(ms);
    this.emit("Network.dataReceived", { requestId: id, timestamp: ms / 1000, dataLength: n, encodedDataLength: n });
  }

  /** A poll of `path` from `line` (default: /api/items, line 1): `n` starts `period` ms apart from page time `from`, each answered 5 ms later. */
  poll(from: number, n: number, period: number, o: { path?: string; line?: number } = {}): string[] {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const p = this.sent(from + i * period, o);
      this.finished(p.requestId, from + i * period + 5);
      ids.push(p.requestId);
    }
    return ids;
  }
}
