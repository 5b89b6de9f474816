import type { Subprocess } from "bun";
import * as v from "valibot";
import { readLines } from "../cdp/lines.ts";
import type { Transport } from "../cdp/transport.ts";
import { BpError } from "../shared/errors.ts";
import { selfCommand } from "../shared/self.ts";

const janitorEventSchema = v.object({
  ev: v.picklist(["ready", "error", "closed", "owned"]),
  message: v.optional(v.string()),
  reason: v.optional(v.string()),
  targetId: v.optional(v.string()),
  openerId: v.optional(v.string()),
  status: v.optional(v.number()),
  retryAfterMs: v.optional(v.number()),
  timedOut: v.optional(v.boolean()),
});
type JanitorEvent = v.InferOutput<typeof janitorEventSchema>;

function parseEvent(text: string): JanitorEvent | undefined {
  try {
    const parsed = v.safeParse(janitorEventSchema, JSON.parse(text));
    return parsed.success ? parsed.output : undefined;
  } catch {
    return undefined;
  }
}

/** The browser's end refused or never finished the WebSocket handshake. */
export class HandshakeRefused extends BpError {
  constructor(
    message: string,
    readonly status: number | undefined,
    readonly timedOut: boolean,
    readonly retryAfterMs?: number,
  ) {
    super("browser_not_authorized", message, { retryable: true });
  }
}

export interface LineSink {
  write(chunk: string): unknown;
  flush(): unknown;
}

/**
 * Lines queued in one event-loop turn go out in one write: written one by one, the first wakes the janitor, which on a
 * busy machine runs instead of us until it relayed it, and the next message waits.
 */
export class LineBatcher {
  private pending = "";
  private failed: ((error: unknown) => void)[] = [];

  constructor(private readonly sink: LineSink) {}

  push(line: string, onFailed?: (error: unknown) => void): void {
    const first = this.pending === "";
    this.pending += `${line}\n`;
    if (onFailed) this.failed.push(onFailed);
    if (first) queueMicrotask(() => this.drain());
  }

  private drain(): void {
    const out = this.pending;
    const failed = this.failed;
    this.pending = "";
    this.failed = [];
    const fail = (error: unknown): void => {
      for (const f of failed.splice(0)) f(error);
    };
    try {
      // A pipe may also refuse the bytes later, when the flush settles.
      for (const r of [this.sink.write(out), this.sink.flush()]) if (r instanceof Promise) r.catch(fail);
    } catch (error) {
      // The janitor is gone: the calls this write carried fail now rather than at their deadline.
      fail(error);
    }
  }
}

/** The broker's side of the janitor, the child holding the browser WebSocket, exposed as a CDP Transport. */
export class JanitorClient implements Transport {
  onMessage: ((message: string) => void) | undefined;
  onClose: ((reason: string) => void) | undefined;
  onOwned: ((targetId: string, openerId: string | undefined) => void) | undefined;
  closed = false;
  private readonly proc: Subprocess<"pipe", "pipe", "inherit">;
  private readonly out: LineBatcher;
  private ready: { resolve: () => void; reject: (e: Error) => void } | undefined;

  private constructor() {
    const self = selfCommand();
    this.proc = Bun.spawn([...self.cmd, "--browser-pilot-internal=janitor"], {
      argv0: self.argv0,
      stdin: "pipe",
      stdout: "pipe",
      stderr: "inherit",
      env: process.env,
    });
    this.out = new LineBatcher(this.proc.stdin);
    void readLines(this.proc.stdout, (line) => this.onLine(line)).finally(() => this.markClosed("janitor_exited"));
  }

  get pid(): number {
    return this.proc.pid;
  }

  static async connect(
    url: string,
    opts: { handshakeTimeoutMs: number; launched: boolean; remote?: boolean; headers?: Record<string, string> },
  ): Promise<JanitorClient> {
    const client = new JanitorClient();
    const ready = new Promise<void>((resolve, reject) => {
      client.ready = { resolve, reject };
    });
    client.control({
      op: "connect",
      url,
      handshakeTimeoutMs: opts.handshakeTimeoutMs,
      launched: opts.launched,
      ...(opts.remote ? { remote: true } : {}),
      ...(opts.headers ? { headers: opts.headers } : {}),
    });
    await ready;
    return client;
  }

  send(message: string, onFailed?: (error: unknown) => void): void {
    if (this.closed) return;
    this.out.push(message, onFailed);
  }

  own(targetId: string): void {
    this.control({ op: "own", targetId });
  }

  forget(targetId: string): void {
    this.control({ op: "forget", targetId });
  }

  /** Graceful stop: the janitor closes our targets (and a launched browser when asked), then exits. */
  async shutdown(closeBrowser: boolean): Promise<void> {
    if (this.closed) return;
    this.control({ op: "shutdown", closeBrowser });
    const exited = this.proc.exited.then(() => true);
    const timedOut = new Promise<boolean>((r) => setTimeout(() => r(false), 7000).unref());
    if (!(await Promise.race([exited, timedOut]))) this.proc.kill("SIGKILL");
  }

  close(): void {
    if (this.closed) return;
    this.proc.kill("SIGTERM");
  }

  private control(msg: Record<string, unknown>): void {
    if (this.closed) return;
    this.out.push(`!${JSON.stringify(msg)}`);
  }

  private onLine(line: string): void {
    if (!line.startsWith("!")) {
      this.onMessage?.(line);
      return;
    }
    const ev = parseEvent(line.slice(1));
    if (!ev) return;
    if (ev.ev === "ready") {
      this.ready?.resolve();
      this.ready = undefined;
    } else if (ev.ev === "error") {
      this.ready?.reject(
        new HandshakeRefused(
          `Could not connect to the browser: ${ev.message ?? "unknown error"}`,
          ev.status,
          ev.timedOut === true,
          ev.retryAfterMs,
        ),
      );
      this.ready = undefined;
    } else if (ev.ev === "closed") {
      this.markClosed(ev.reason ?? "browser_closed");
    } else if (ev.ev === "owned" && ev.targetId) {
      this.onOwned?.(ev.targetId, ev.openerId);
    }
  }

  private markClosed(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.ready?.reject(
      new BpError("browser_disconnected", "The browser connection process exited.", { retryable: true }),
    );
    this.ready = undefined;
    this.onClose?.(reason);
  }
}
