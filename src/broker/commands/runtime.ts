/**
 * The command runtime: every browser command gets a record, a deadline, cancellation and
 * (with --request-id) an idempotency key. Outcomes after dispatch of a mutating command that
 * the broker cannot vouch for become unknown_outcome; nothing is ever replayed.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { isCdpError, protocolErrorCause } from "../../cdp/errors.ts";
import { withCallScope } from "../../cdp/scope.ts";
import { commandNamed } from "../../protocol/registry.ts";
import type { CallRequest } from "../../protocol/wire.ts";
import { BpError, invalidArgument, toBpError } from "../../shared/errors.ts";
import type { BrowserConnection } from "../browser.ts";
import type { BrokerState, CallContext, Invocation } from "../context/types.ts";
import { canonicalJson, fingerprint, idempotencyKey } from "./canonical.ts";
import { REMOTE_ENDED, remoteSessionEnded } from "../remote.ts";
import {
  CommandStore,
  isTerminal,
  publicCommand,
  type CommandRecord,
  type CommandStatus,
  type Reply,
} from "./store.ts";
import { Watchdogs } from "./watchdogs.ts";

interface Running {
  rec: CommandRecord | undefined;
  req: CallRequest;
  controller: AbortController;
  mutating: boolean;
  /** Mark dispatch when the handler first takes its tab's lock (not at handler start). */
  atLock: boolean;
  /** The browser connection at acceptance; a different one later means the browser was lost. */
  conn: BrowserConnection | undefined;
  stop: (err: BpError) => void;
}

const current = new AsyncLocalStorage<Running>();

export class CommandRuntime {
  readonly store = new CommandStore();
  readonly watchdogs: Watchdogs;
  private readonly running = new Map<string, Running>();

  constructor(private readonly broker: BrokerState) {
    this.watchdogs = new Watchdogs(broker);
  }

  get activeCount(): number {
    return this.running.size;
  }

  /** An agent with a command still running is not idle, however long the command takes. */
  busy(clientKey: string): boolean {
    for (const run of this.running.values()) if (run.req.clientKey === clientKey) return true;
    return false;
  }

  async run(req: CallRequest, handler: Invocation): Promise<Reply> {
    try {
      if (commandNamed(req.command)?.recorded === false) return await this.execute(req, handler, undefined);
      const agent = this.broker.agents.get(req.clientKey);
      const target = agent?.selected ?? "none";
      const fp = fingerprint(req.command, req.args);
      const idemKey =
        req.requestId !== undefined ? idempotencyKey(req.clientKey, req.requestId, fp, target) : undefined;
      if (req.requestId !== undefined && idemKey !== undefined) {
        const prior = this.store.findRequest(req.clientKey, req.requestId);
        // A failure before anything reached the browser (dialog_pending, target_busy,
        // stale_ref, expiry while queued) is not an outcome to keep: the retry runs.
        const failedUnsent =
          prior !== undefined &&
          isTerminal(prior.status) &&
          prior.reply?.ok === false &&
          prior.dispatchedAt === undefined;
        if (prior && !failedUnsent) return await this.replay(prior, req, idemKey);
      }
      const tab = agent?.selected !== undefined ? agent.existingId(agent.selected) : undefined;
      const rec = this.store.accept({
        key: req.clientKey,
        invocation: req.invocation,
        method: req.command,
        mutating: handler.mutating === true,
        deadlineAt: deadlineOf(req),
        fingerprint: fp,
        ...(tab !== undefined ? { tab } : {}),
        ...(req.requestId !== undefined ? { requestId: req.requestId } : {}),
        ...(idemKey !== undefined ? { idemKey } : {}),
      });
      // Read after its caller gave up (a broker stopped and resumed, a backlog): never run it.
      if (rec.deadlineAt <= Date.now()) {
        const err = new BpError(
          "command_expired",
          `'${req.command}' reached the broker after its deadline (${req.timeoutMs} ms); it was not run.`,
          { retryable: true, context: { timeoutMs: req.timeoutMs, reason: "late", commandId: rec.id } },
        );
        this.store.complete(rec, "expired", errorReply(err));
        return errorReply(err);
      }
      return await this.execute(req, handler, rec);
    } catch (err) {
      return errorReply(toBpError(err));
    }
  }

  /** The same request id again: the recorded outcome, or the in-flight one's when it ends. */
  private async replay(prior: CommandRecord, req: CallRequest, idemKey: string): Promise<Reply> {
    if (prior.fingerprint.command !== req.command || prior.fingerprint.args !== canonicalJson(req.args)) {
      throw invalidArgument(
        "requestId",
        `Request id '${req.requestId ?? ""}' was already used for a different call; use a new id for a new call.`,
        { commandId: prior.id, reason: "different_call" },
      );
    }
    if (isTerminal(prior.status)) {
      if (!prior.idemKeys.includes(idemKey)) {
        throw invalidArgument(
          "requestId",
          `Request id '${req.requestId ?? ""}' was used for this call on another tab; use a new id.`,
          { commandId: prior.id, reason: "target_changed" },
        );
      }
      return keptReply(prior, req);
    }
    let timer: Timer | undefined;
    const expired = new Promise<Reply>((resolve) => {
      timer = setTimeout(() => {
        const err = new BpError(
          "command_expired",
          `Request '${req.requestId ?? ""}' is still running as ${prior.id}; it was not sent again.`,
          { retryable: true, context: { commandId: prior.id, status: prior.status } },
        );
        resolve(errorReply(err));
      }, req.timeoutMs);
    });
    try {
      return await Promise.race([prior.done.then(() => keptReply(prior, req)), expired]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async execute(req: CallRequest, handler: Invocation, rec: CommandRecord | undefined): Promise<Reply> {
    const controller = new AbortController();
    let stop!: (err: BpError) => void;
    const stopped = new Promise<never>((_, reject) => {
      stop = reject;
    });
    stopped.catch(() => undefined);
    const live = this.broker.browser && !this.broker.browser.closed ? this.broker.browser : undefined;
    const mutating = handler.mutating === true;
    const run: Running = {
      rec,
      req,
      controller,
      mutating,
      atLock: mutating && handler.dispatch === "lock",
      conn: live,
      stop,
    };
    this.running.set(req.invocation, run);
    const deadline = rec?.deadlineAt ?? deadlineOf(req);
    const ctx: CallContext = {
      broker: this.broker,
      req,
      signal: controller.signal,
      deadline,
      agent: () => this.broker.agents.getOrCreate(req.clientKey),
      markDispatched: () => this.dispatch(run),
    };
    const timer = setTimeout(() => this.expire(run), Math.max(0, deadline - Date.now()));
    let reply: Reply;
    let status: CommandStatus = "completed";
    try {
      if (live && rec) this.watchdogs.watch(live);
      const consoleBefore = this.watchdogs.consoleCursor(req.clientKey);
      if (!run.atLock) this.dispatch(run);
      // Every CDP call the handler makes inherits the command's deadline and cancel signal.
      const result = await current.run(run, () =>
        withCallScope({ deadline, signal: controller.signal }, () => Promise.race([handler.run(ctx), stopped])),
      );
      if (live && (live.closed || this.broker.browser !== live)) {
        throw new BpError("browser_disconnected", "The browser connection was lost while the command ran.", {
          retryable: true,
          context: { reason: "connection_lost" },
        });
      }
      reply = { ok: true, ...result };
      if (rec) this.watchdogs.annotate(req, reply, consoleBefore);
    } catch (err) {
      const out = this.classify(run, err);
      status = out.status;
      reply = errorReply(remoteLoss(run, out.error));
    } finally {
      clearTimeout(timer);
      this.running.delete(req.invocation);
      // The lease runs from the end of the agent's last command, not its start.
      this.broker.agents.get(req.clientKey)?.touch();
    }
    if (!rec) return reply;
    const agent = this.broker.agents.get(req.clientKey);
    const endKey =
      req.requestId !== undefined
        ? idempotencyKey(req.clientKey, req.requestId, rec.fingerprint, agent?.selected ?? "none")
        : undefined;
    this.store.complete(rec, status, reply, endKey);
    return rec.reply ?? reply;
  }

  /** Marks dispatch once, after checking the browser is still the one the command was accepted for. */
  private dispatch(run: Running): void {
    if (run.controller.signal.aborted)
      throw new BpError("command_cancelled", "The command was stopped before it reached the browser.", {
        retryable: true,
      });
    if (run.conn && (run.conn.closed || this.broker.browser !== run.conn)) {
      throw new BpError("browser_disconnected", "The browser connection changed before the command was dispatched.", {
        retryable: true,
        context: { reason: "generation_changed" },
      });
    }
    if (run.rec) this.store.markDispatched(run.rec);
  }

  private dispatched(run: Running): boolean {
    return run.rec ? run.rec.status === "dispatched" : true;
  }

  private expire(run: Running): void {
    const { req } = run;
    const err =
      run.mutating && this.dispatched(run)
        ? unknownOutcome(
            run,
            `'${req.command}' did not finish within ${req.timeoutMs} ms after it was dispatched; it may or may not have taken effect.`,
            "deadline",
          )
        : new BpError("command_expired", `'${req.command}' did not finish within ${req.timeoutMs} ms.`, {
            retryable: true,
            context: { timeoutMs: req.timeoutMs, ...idContext(run) },
          });
    run.controller.abort("deadline");
    run.stop(err);
  }

  /** Cancels a running command: deterministic before dispatch, best effort after. */
  cancelRecord(rec: CommandRecord): void {
    const run = this.running.get(rec.invocation);
    if (!run || isTerminal(rec.status)) return;
    this.cancelRun(run);
  }

  /** The CLI's SIGINT/SIGTERM path: cancel by invocation id. */
  async cancelInvocation(invocation: string): Promise<Record<string, unknown>> {
    const run = this.running.get(invocation);
    if (!run) return { ok: true, cancelled: false };
    this.cancelRun(run);
    // The record settles within a tick or two; answer with its final status when we can.
    if (run.rec) await Promise.race([run.rec.done, Bun.sleep(50)]);
    return { ok: true, cancelled: true, ...(run.rec ? { command: publicCommand(run.rec) } : {}) };
  }

  private cancelRun(run: Running): void {
    const rec = run.rec;
    if (rec && rec.status === "accepted") {
      const err = new BpError(
        "command_cancelled",
        `'${rec.method}' was cancelled before it was dispatched; nothing was sent to the browser.`,
        { retryable: true, context: { commandId: rec.id } },
      );
      this.store.complete(rec, "cancelled", errorReply(err));
      run.controller.abort("cancel");
      run.stop(err);
      return;
    }
    if (rec) rec.cancellationRequested = true;
    const err = run.mutating
      ? unknownOutcome(
          run,
          `'${run.req.command}' was cancelled after it was dispatched; it may or may not have taken effect (no rollback).`,
          "cancelled",
        )
      : new BpError("command_cancelled", `'${run.req.command}' was cancelled.`, {
          retryable: true,
          context: idContext(run),
        });
    run.controller.abort("cancel");
    run.stop(err);
  }

  private lostBrowser(run: Running): boolean {
    return run.conn !== undefined && (run.conn.closed || this.broker.browser !== run.conn);
  }

  private classify(run: Running, err: unknown): { status: CommandStatus; error: BpError } {
    // No browser was connected when the command was accepted: nothing can have reached one.
    if (err instanceof BpError && err.code === "browser_disconnected" && run.conn === undefined)
      return { status: "completed", error: err };
    const uncertain = run.mutating && this.dispatched(run);
    // The browser link this command was accepted on is gone: whatever failed first (a tab's
    // session, a navigation wait), the answer is that the browser went away.
    if (this.lostBrowser(run) && !(err instanceof BpError && FINAL_ON_LOSS.has(err.code))) {
      err = cdpTransportError(run, "closed", "browser connection lost");
    }
    if (err instanceof BpError) {
      if (err.code === "unknown_outcome") return { status: "unknown_outcome", error: err };
      if (
        uncertain &&
        (err.code === "browser_disconnected" || err.code === "command_cancelled" || err.code === "command_expired")
      ) {
        return {
          status: "unknown_outcome",
          error: unknownOutcome(
            run,
            `'${run.req.command}' was dispatched but did not complete (${err.code}); it may or may not have taken effect.`,
            err.code,
          ),
        };
      }
      if (err.code === "command_cancelled") return { status: "cancelled", error: err };
      if (err.code === "command_expired") return { status: "expired", error: err };
      return { status: "completed", error: err };
    }
    if (uncertain && isCdpError(err) && err.kind !== "protocol") {
      return {
        status: "unknown_outcome",
        error: unknownOutcome(
          run,
          `The browser stopped answering after '${run.req.command}' was dispatched (${err.kind}); it may or may not have taken effect.`,
          `cdp_${err.kind}`,
        ),
      };
    }
    if (isCdpError(err) && err.kind !== "protocol") {
      const mapped = cdpTransportError(run, err.kind, err.message);
      return {
        status:
          mapped.code === "command_expired"
            ? "expired"
            : mapped.code === "command_cancelled"
              ? "cancelled"
              : "completed",
        error: mapped,
      };
    }
    const cause = protocolErrorCause(err);
    if (cause !== undefined) {
      const message = (err as Error).message.slice(0, 200);
      if (uncertain)
        return {
          status: "unknown_outcome",
          error: unknownOutcome(
            run,
            `The page went away while '${run.req.command}' ran (${message}); it may or may not have taken effect.`,
            cause,
          ),
        };
      return { status: "completed", error: pageGoneError(run, cause, message) };
    }
    return { status: "completed", error: toBpError(err) };
  }

  /**
   * A throw that escaped a command's own promise chain (a timer or event callback) fails
   * that command with internal_error; the broker keeps serving the others.
   */
  failCurrent(err: unknown): boolean {
    const run = current.getStore();
    if (!run) return false;
    const message = err instanceof Error ? err.message : String(err);
    run.controller.abort("internal_error");
    run.stop(
      new BpError("internal_error", `'${run.req.command}' failed inside the broker: ${message || "error"}.`, {
        context: idContext(run),
      }),
    );
    return true;
  }

  /**
   * Called when a handler takes a tab's lock: a command cancelled or expired while queued
   * never reaches the tab, and lock-dispatched commands are marked dispatched here.
   */
  enterLock(): void {
    const run = current.getStore();
    if (!run) return;
    if (run.controller.signal.aborted)
      throw new BpError("command_cancelled", "The command was stopped while it waited for its tab.", {
        retryable: true,
      });
    if (run.atLock) this.dispatch(run);
  }
}

/**
 * On a remote browser a lost connection is the session the service ended, whichever layer
 * noticed it first: the answer names that endpoint (masked) as the way back.
 */
function remoteLoss(run: Running, error: BpError): BpError {
  const info = run.conn?.info;
  if (error.code !== "browser_disconnected" || info?.source !== "remote" || error.context?.reason === REMOTE_ENDED)
    return error;
  return remoteSessionEnded({ endpoint: info.endpoint, headers: info.headers !== undefined }, undefined, error.context);
}

/**
 * A CDP call that failed in transport is a public code, never internal_error: the browser
 * link went away (browser_disconnected), the tab went away (tab_not_found), the call ran out
 * of time (command_expired) or was stopped (command_cancelled).
 */
function cdpTransportError(run: Running, kind: string, message: string): BpError {
  const context = { cause: `cdp_${kind}`, ...idContext(run) };
  if (kind === "timeout")
    return new BpError(
      "command_expired",
      `'${run.req.command}' did not finish in time: the browser did not answer (${message.slice(0, 200)}).`,
      { retryable: true, context },
    );
  // The command's own deadline aborts its calls too: that is expiry, not a cancel.
  if (kind === "aborted" && run.controller.signal.reason === "deadline")
    return new BpError("command_expired", `'${run.req.command}' did not finish within ${run.req.timeoutMs} ms.`, {
      retryable: true,
      context,
    });
  if (kind === "aborted")
    return new BpError("command_cancelled", `'${run.req.command}' was stopped.`, { retryable: true, context });
  if (kind === "session_closed")
    return new BpError("tab_not_found", "The tab closed while the command ran.", {
      context: { ...context, reason: "target_closed" },
    });
  return new BpError("browser_disconnected", "The browser connection was lost while the command ran.", {
    retryable: true,
    context: { ...context, reason: "connection_lost" },
    remediation: {
      code: "connect_browser",
      message: "Run 'bp connect' for a running browser or 'bp launch' to start one.",
      actionRequired: true,
    },
  });
}

/**
 * A protocol error that says the page went away under the call: the tab closed
 * (tab_not_found) or its document was replaced mid-call (stale_ref, reason
 * document_replaced: observe again and retry), never internal_error.
 */
function pageGoneError(run: Running, cause: "target_gone" | "document_replaced", message: string): BpError {
  if (cause === "target_gone")
    return new BpError("tab_not_found", `The tab went away while '${run.req.command}' ran (${message}).`, {
      context: { reason: "target_closed", ...idContext(run) },
    });
  return new BpError("stale_ref", `The page replaced its document while '${run.req.command}' ran (${message}).`, {
    retryable: true,
    hint: "Observe the tab again (bp snapshot) and retry.",
    context: { reason: "document_replaced", ...idContext(run) },
  });
}

/** Codes that already say what happened when the browser goes away mid-command. */
const FINAL_ON_LOSS = new Set(["unknown_outcome", "browser_disconnected", "command_cancelled", "command_expired"]);

/** The command's deadline: its timeout from now, never past the one its caller sent. */
/** An ended record's reply for a replay of its request id, or result_too_large when it is no longer kept. */
function keptReply(prior: CommandRecord, req: CallRequest): Reply {
  if (prior.reply) return prior.reply;
  throw new BpError(
    "result_too_large",
    `The outcome of request '${req.requestId ?? ""}' is no longer kept in full; see 'bp command ${prior.id}'.`,
    { context: { commandId: prior.id, status: prior.status } },
  );
}

function deadlineOf(req: CallRequest): number {
  const own = Date.now() + req.timeoutMs;
  return req.deadlineAt !== undefined ? Math.min(own, req.deadlineAt) : own;
}

function errorReply(err: BpError): Reply {
  return { ...err.toJSON() };
}

function idContext(run: Running): Record<string, unknown> {
  return run.rec ? { commandId: run.rec.id } : {};
}

function unknownOutcome(run: Running, message: string, cause: string): BpError {
  return new BpError("unknown_outcome", message, {
    retryable: true,
    hint: "Observe the tab (bp snapshot) before deciding whether to act again; it is never replayed for you.",
    context: { cause, ...idContext(run), ...(run.rec?.cancellationRequested ? { cancellationRequested: true } : {}) },
  });
}
