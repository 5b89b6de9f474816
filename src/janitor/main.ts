import * as v from "valibot";
import { readLines } from "../cdp/lines.ts";
import { CdpConnectError, CdpHandshakeTimeoutError } from "../cdp/errors.ts";
import { connectWebSocket, type Transport } from "../cdp/transport.ts";
import { endpointSecrets, rememberSecrets, scrubSecrets } from "../shared/secrets.ts";
import { OwnedTargets } from "./owned.ts";

/**
 * The janitor holds the one browser-level CDP WebSocket and relays raw CDP lines to and from the broker over stdio. It
 * outlives the broker on purpose: when stdin closes it closes exactly the targets bp created, then exits. Lines
 * starting with "!" are control messages.
 */
const OWN_ID_BASE = 1_000_000_000;
const CLEANUP_BUDGET_MS = 5_000;
const KEEPALIVE_MS = 15_000;

/** Cleanup time grows with the number of tabs to close, within a hard cap. */
const CLEANUP_PER_TARGET_MS = 50;
const CLEANUP_CAP_MS = 30_000;

/** Control lines from the broker, checked before use like every other message we read. */
const controlSchema = v.object({
  op: v.picklist(["connect", "own", "forget", "shutdown"]),
  url: v.optional(v.string()),
  headers: v.optional(v.record(v.string(), v.string())),
  handshakeTimeoutMs: v.optional(v.number()),
  targetId: v.optional(v.string()),
  closeBrowser: v.optional(v.boolean()),
  launched: v.optional(v.boolean()),
  remote: v.optional(v.boolean()),
});
type Control = v.InferOutput<typeof controlSchema>;

export async function runJanitor(): Promise<void> {
  const out = Bun.stdout.writer();
  /** The broker is gone (stdin closed or stdout broken): nothing is forwarded any more. */
  let parentGone = false;
  const emit = (line: string) => {
    if (parentGone) return;
    try {
      out.write(`${line}\n`);
      const flushed = out.flush();
      if (flushed instanceof Promise) flushed.catch(() => onParentGone());
    } catch {
      onParentGone();
    }
  };
  // Whatever happens to the pipe or in a callback, cleanup must run to its end.
  process.on("uncaughtException", (err) => {
    if (isBrokenPipe(err)) onParentGone();
    else console.error(`janitor: ${scrubSecrets(String(err)).slice(0, 300)}`);
  });
  process.on("unhandledRejection", (err) => {
    if (isBrokenPipe(err)) onParentGone();
    else console.error(`janitor: ${scrubSecrets(String(err)).slice(0, 300)}`);
  });
  const owned = new OwnedTargets();
  let ws: Transport | undefined;
  let launched = false;
  let nextId = OWN_ID_BASE;
  const pending = new Map<number, (msg: { result?: unknown; error?: unknown }) => void>();
  let exiting = false;

  const call = (method: string, params: Record<string, unknown> = {}, timeoutMs = 3000) =>
    new Promise<{ result?: unknown; error?: unknown }>((resolve) => {
      if (!ws || ws.closed) return resolve({ error: "closed" });
      const id = nextId++;
      const timer = setTimeout(() => {
        pending.delete(id);
        resolve({ error: "timeout" });
      }, timeoutMs);
      pending.set(id, (msg) => {
        clearTimeout(timer);
        resolve(msg);
      });
      ws.send(JSON.stringify({ id, method, params }));
    });

  const cleanupAndExit = async (closeBrowser: boolean, code: number) => {
    if (exiting) return;
    exiting = true;
    const order = owned.closingOrder();
    const deadline = Date.now() + Math.min(CLEANUP_CAP_MS, CLEANUP_BUDGET_MS + order.length * CLEANUP_PER_TARGET_MS);
    const closed = new Set(order);
    for (let i = 0; i < order.length && Date.now() < deadline; i += 32) {
      await Promise.all(
        order
          .slice(i, i + 32)
          .map((targetId) => call("Target.closeTarget", { targetId }, Math.max(100, deadline - Date.now()))),
      );
    }
    if (closeBrowser || launched) {
      // A browser we launched goes with us once nothing of the person's is left; without the list, ask patiently.
      let targets: { targetInfos?: { type: string; targetId: string }[] } | undefined;
      for (let i = 0; i < 3 && !targets; i++)
        targets = (await call("Target.getTargets", {}, 3000)).result as typeof targets;
      const pages = (targets?.targetInfos ?? []).filter(
        (t) => t.type === "page" && !owned.has(t.targetId) && !closed.has(t.targetId),
      );
      if (targets && (closeBrowser || pages.length === 0)) await call("Browser.close", {}, 3000);
    }
    ws?.close();
    process.exit(code);
  };
  function onParentGone(): void {
    parentGone = true;
    void cleanupAndExit(false, 0);
  }

  const onBrowserMessage = (raw: string): void => {
    if (raw.startsWith('{"id":')) {
      const idEnd = raw.indexOf(",", 6);
      const id = Number(raw.slice(6, idEnd));
      if (id >= OWN_ID_BASE) {
        const resolve = pending.get(id);
        pending.delete(id);
        resolve?.(JSON.parse(raw) as { result?: unknown; error?: unknown });
        return;
      }
    } else if (raw.includes('"Target.target')) {
      snoopTargetEvent(raw, owned, emit);
    }
    emit(raw);
  };

  const onControl = async (ctl: Control) => {
    switch (ctl.op) {
      case "connect": {
        try {
          launched = ctl.launched === true;
          rememberSecrets(endpointSecrets(ctl.url ?? "", ctl.headers));
          ws = await connectWebSocket(ctl.url ?? "", {
            handshakeTimeoutMs: ctl.handshakeTimeoutMs ?? 8000,
            readRefusal: ctl.remote === true,
            ...(ctl.headers ? { headers: ctl.headers } : {}),
          });
        } catch (err) {
          const status = err instanceof CdpConnectError ? err.status : undefined;
          const retryAfterMs = err instanceof CdpConnectError ? err.retryAfterMs : undefined;
          const timedOut = err instanceof CdpHandshakeTimeoutError;
          emit(
            `!${JSON.stringify({ ev: "error", message: scrubSecrets((err as Error).message), status, retryAfterMs, ...(timedOut ? { timedOut } : {}) })}`,
          );
          process.exit(1);
        }
        ws.onMessage = onBrowserMessage;
        ws.onClose = (reason) => {
          if (exiting) return;
          // "remote:" tells the broker the browser's side ended the socket (not our janitor).
          emit(`!${JSON.stringify({ ev: "closed", reason: `remote: ${scrubSecrets(reason)}` })}`);
          process.exit(0);
        };
        startKeepalive(call, () => ws?.close());
        emit(`!${JSON.stringify({ ev: "ready" })}`);
        return;
      }
      case "own":
        if (ctl.targetId) owned.own(ctl.targetId);
        return;
      case "forget":
        if (ctl.targetId) owned.forget(ctl.targetId);
        return;
      case "shutdown":
        await cleanupAndExit(ctl.closeBrowser === true, 0);
    }
  };

  process.on("SIGTERM", () => void cleanupAndExit(false, 0));
  process.on("SIGINT", () => void cleanupAndExit(false, 0));

  await readLines(Bun.stdin.stream(), (line) => {
    if (line.startsWith("!")) {
      const ctl = parseControl(line.slice(1));
      if (ctl) void onControl(ctl);
    } else if (ws && !ws.closed) {
      ws.send(line);
    }
  }).catch(() => undefined);
  // stdin closed: the broker is gone, however it died.
  onParentGone();
}

function parseControl(text: string): Control | undefined {
  try {
    const parsed = v.safeParse(controlSchema, JSON.parse(text));
    return parsed.success ? parsed.output : undefined;
  } catch {
    return undefined;
  }
}

function isBrokenPipe(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  return code === "EPIPE" || code === "ECONNRESET" || code === "ERR_STREAM_DESTROYED";
}

function snoopTargetEvent(raw: string, owned: OwnedTargets, emit: (line: string) => void): void {
  let msg: {
    method?: string;
    params?: { targetInfo?: { targetId: string; openerId?: string; type?: string }; targetId?: string };
  };
  try {
    msg = JSON.parse(raw) as typeof msg;
  } catch {
    return;
  }
  if (msg.method === "Target.targetCreated" || msg.method === "Target.targetInfoChanged") {
    const info = msg.params?.targetInfo;
    if (info && info.type === "page" && owned.maybeAdoptPopup(info.targetId, info.openerId)) {
      emit(`!${JSON.stringify({ ev: "owned", targetId: info.targetId, openerId: info.openerId })}`);
    }
  } else if (msg.method === "Target.targetDestroyed" && msg.params?.targetId) {
    owned.forget(msg.params.targetId);
  }
}

/** Half-open sockets otherwise wait for TCP timeouts; two missed pings close the connection. */
function startKeepalive(
  call: (m: string, p?: Record<string, unknown>, t?: number) => Promise<{ error?: unknown }>,
  close: () => void,
): void {
  let missed = 0;
  const timer = setInterval(async () => {
    const r = await call("Browser.getVersion", {}, 5000);
    missed = r.error ? missed + 1 : 0;
    if (missed >= 2) {
      clearInterval(timer);
      close();
    }
  }, KEEPALIVE_MS);
}
