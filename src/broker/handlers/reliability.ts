import * as v from "valibot";
import { invalidArgument } from "../../shared/errors.ts";
import { isTerminal, publicCommand, type CommandRecord, type PublicCommand } from "../commands/store.ts";
import { runWait, type WaitCondition } from "../observe/wait.ts";
import * as commands from "../../protocol/commands-reliability.ts";
import { COMMAND_STATUSES } from "../../protocol/commands-reliability.ts";
import { defineHandler, type ArgsOf, type ReplyOf } from "../context/handler.ts";
import type { CallContext, Handler } from "../context/types.ts";

type StoredError = v.InferOutput<typeof commands.storedErrorSchema>;

/** Unknown and other keys' ids get the same answer, so existence never leaks. */
function ownRecord(ctx: CallContext, id: string): CommandRecord {
  const rec = ctx.broker.commands.store.get(ctx.req.clientKey, id);
  if (!rec)
    throw invalidArgument("id", `No command ${id} for this client key (records are kept 5 minutes after they end).`);
  return rec;
}

/** A record with its stored reply: the result, or the error (checked against its published shape), as the command and cancel results say. */
function describe(_ctx: CallContext, rec: CommandRecord): ReplyOf<typeof commands.command.result> {
  const out: ReplyOf<typeof commands.command.result> = { command: publicCommand(rec) };
  const reply = rec.reply;
  if (reply) {
    const { ok, ...rest } = reply;
    if (ok) out.result = rest;
    else out.error = withoutRecordEcho(v.parse(commands.storedErrorSchema, rest), out.command);
  } else if (rec.replyDropped) {
    out.resultDropped = true;
  }
  return out;
}

/**
 * The stored error as the record shows it: its context names the command (so that a reply on
 * its own says which) and whether cancellation was asked, which the record next to it says.
 * The stored reply itself, replayed for a request id, keeps them.
 */
function withoutRecordEcho(error: StoredError, command: PublicCommand): StoredError {
  const context = error.context;
  if (!context) return error;
  const { commandId, cancellationRequested, ...rest } = context;
  const kept = {
    ...rest,
    ...(commandId !== command.id ? { commandId } : {}),
    ...(cancellationRequested !== command.cancellationRequested ? { cancellationRequested } : {}),
  };
  const { context: _all, ...shape } = error;
  return Object.keys(kept).length > 0 ? { ...shape, context: kept } : shape;
}

const STATUS = v.picklist(COMMAND_STATUSES);

const commandsHandler = defineHandler(commands.commands)({
  async run(ctx, args) {
    const status = args.status;
    const statuses = status ? status.split(",").filter((s) => v.is(STATUS, s)) : undefined;
    const records = ctx.broker.commands.store.list(ctx.req.clientKey, statuses, args.limit).map(publicCommand);
    // Lean: with one status asked for, each record has it; it is not repeated.
    const list = statuses?.length === 1 ? records.map(({ status: _asked, ...rest }) => rest) : records;
    return { commands: list };
  },
});

const commandHandler = defineHandler(commands.command)({
  async run(ctx, args) {
    return describe(ctx, ownRecord(ctx, args.id));
  },
});

const cancelHandler = defineHandler(commands.cancel)({
  async run(ctx, args) {
    const rec = ownRecord(ctx, args.id);
    if (isTerminal(rec.status)) {
      throw invalidArgument("id", `Command ${rec.id} already ended (${rec.status}); there is nothing to cancel.`, {
        status: rec.status,
      });
    }
    ctx.broker.commands.cancelRecord(rec);
    // Let the cancelled call settle its record before answering.
    await Promise.race([rec.done, Bun.sleep(50)]);
    return describe(ctx, rec);
  },
});

/** The one condition the command's rules allow. */
function condition(a: ArgsOf<typeof commands.wait>): WaitCondition {
  if (a.url !== undefined) return { kind: "url", pattern: a.url };
  if (a.text !== undefined) return { kind: "text", text: a.text };
  if (a.selector !== undefined) {
    const css = a.selector.trim();
    if (css === "") throw invalidArgument("selector", "Selector is empty.");
    return { kind: "selector", css, attached: a.attached };
  }
  if (a.dialog) return { kind: "dialog" };
  if (a.popup) return { kind: "popup" };
  if (a.download) return { kind: "download" };
  return { kind: "network-idle" };
}

const waitHandler = defineHandler(commands.wait)({
  async run(ctx, args) {
    const cond = condition(args);
    return runWait(ctx, cond, args.interval);
  },
});

export const RELIABILITY_HANDLERS: Handler[] = [commandsHandler, commandHandler, cancelHandler, waitHandler];
