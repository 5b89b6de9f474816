import { BpError, invalidArgument } from "../../shared/errors.ts";
import { isTerminal, publicCommand, type CommandRecord, type CommandStatus } from "../commands/store.ts";
import { runWait, type WaitCondition } from "../observe/wait.ts";
import { arg, type CallContext, type Handler } from "../context/types.ts";

/** Unknown and other keys' ids get the same answer, so existence never leaks. */
function ownRecord(ctx: CallContext): CommandRecord {
  const id = arg<string>(ctx, "id");
  const rec = ctx.broker.commands.store.get(ctx.req.clientKey, id);
  if (!rec) throw invalidArgument("id", `No command ${id} for this client key (records are kept 5 minutes after they end).`);
  return rec;
}

function describe(ctx: CallContext, rec: CommandRecord): Record<string, unknown> {
  const out: Record<string, unknown> = { command: publicCommand(rec) };
  const reply = rec.reply;
  if (reply) {
    const { ok, ...rest } = reply;
    if (ok) out.result = rest;
    else out.error = rest;
  } else if (rec.replyDropped) {
    out.resultDropped = true;
  }
  if (ctx.req.mode === "human") {
    const c = publicCommand(rec);
    const err = out.error as { code?: string } | undefined;
    out.text = `${c.id}  ${c.status}${c.cancellationRequested ? " (cancellation requested)" : ""}  ${c.method}${err?.code ? `  [${err.code}]` : ""}`;
  }
  return out;
}

const commandsHandler: Handler = {
  async run(ctx) {
    const status = arg<string | undefined>(ctx, "status");
    const statuses = status ? (status.split(",") as CommandStatus[]) : undefined;
    const list = ctx.broker.commands.store.list(ctx.req.clientKey, statuses, arg<number>(ctx, "limit")).map(publicCommand);
    const out: Record<string, unknown> = { commands: list };
    if (ctx.req.mode === "human") {
      out.text = list.length === 0 ? "No recent commands." : list.map((c) => `${c.id}  ${c.status.padEnd(15)} ${c.method}${c.cancellationRequested ? "  (cancellation requested)" : ""}`).join("\n");
    }
    return out;
  },
};

const commandHandler: Handler = {
  async run(ctx) {
    return describe(ctx, ownRecord(ctx));
  },
};

const cancelHandler: Handler = {
  async run(ctx) {
    const rec = ownRecord(ctx);
    if (isTerminal(rec.status)) {
      throw invalidArgument("id", `Command ${rec.id} already ended (${rec.status}); there is nothing to cancel.`, { status: rec.status });
    }
    ctx.broker.commands.cancelRecord(rec);
    // Let the cancelled call settle its record before answering.
    await Promise.race([rec.done, Bun.sleep(50)]);
    return describe(ctx, rec);
  },
};

const CONDITIONS = ["url", "text", "selector", "dialog", "popup", "download", "network-idle"] as const;

function condition(ctx: CallContext): WaitCondition {
  const given = CONDITIONS.filter((k) => {
    const value = ctx.req.args[k];
    return typeof value === "string" || value === true;
  });
  if (given.length !== 1) {
    throw new BpError("invalid_argument", `Give exactly one condition: ${CONDITIONS.map((c) => `--${c}`).join(", ")}.`, { context: { field: "condition", given } });
  }
  const kind = given[0];
  switch (kind) {
    case "url":
      return { kind, pattern: arg<string>(ctx, "url") };
    case "text":
      return { kind, text: arg<string>(ctx, "text") };
    case "selector": {
      const css = arg<string>(ctx, "selector").trim();
      if (css === "") throw invalidArgument("selector", "Selector is empty.");
      return { kind, css, attached: arg<boolean>(ctx, "attached") };
    }
    case "dialog":
    case "popup":
    case "download":
    case "network-idle":
      return { kind };
    default:
      throw new BpError("invalid_argument", "Give exactly one condition.", { context: { field: "condition" } });
  }
}

const waitHandler: Handler = {
  async run(ctx) {
    const out = await runWait(ctx, condition(ctx), arg<number>(ctx, "interval"));
    if (ctx.req.mode === "human") out.text = `✓ ${String(out.condition)} after ${String(out.elapsedMs)} ms  ${JSON.stringify(out.matched)}`;
    return out;
  },
};

export const RELIABILITY_HANDLERS: Record<string, Handler> = { commands: commandsHandler, command: commandHandler, cancel: cancelHandler, wait: waitHandler };
