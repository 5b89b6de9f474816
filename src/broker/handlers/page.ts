import { isCdpError } from "../../cdp/errors.ts";
import type { CdpSession } from "../../cdp/session.ts";
import { BpError } from "../../shared/errors.ts";
import { cutString } from "../../shared/page-strings.ts";
import { withArticle } from "../../shared/words.ts";
import { backHandler, forwardHandler, reloadHandler } from "../act/history.ts";
import { selectedTab } from "../context/tabs.ts";
import { frameSessions } from "../observe/collect.ts";
import { rootForFrame } from "../observe/frame-list.ts";
import type { TargetRecord } from "../targets.ts";
import { evaluate as evalCommand } from "../../protocol/commands-eval.ts";
import { defineHandler } from "../context/handler.ts";
import type { CallContext, Handler } from "../context/types.ts";

type EvalReply = ReturnType<typeof boundValue>;

/** Bound on an eval result's JSON size; larger values come back cut, with truncated:true. */
export const MAX_EVAL_CHARS = 100_000;
const EVAL_GROUP = "bp-eval";

const evalHandler = defineHandler(evalCommand)({
  dispatch: "lock",
  async run(ctx, { expression }) {
    const { browser, rec, agent } = selectedTab(ctx);
    return ctx.broker.exclusive(rec.targetId, async () => {
      const session = await browser.session(rec);
      const target = await evalTarget(rec, session, agent.frames.get(rec.targetId));
      // An expression that opens a dialog is blocked until someone answers it: answer at
      // once naming the dialog, as actions do, instead of waiting out the deadline.
      const stop = new AbortController();
      const signal = AbortSignal.any([ctx.signal, stop.signal]);
      let offDialog: () => void = () => undefined;
      const dialogOpened = new Promise<"dialog">((resolve) => {
        offDialog = session.on("Page.javascriptDialogOpening", () => resolve("dialog"));
      });
      const evaluation = runExpression(ctx, expression, target, signal);
      evaluation.catch(() => undefined);
      try {
        const first = await Promise.race([evaluation, dialogOpened]);
        if (first !== "dialog") return first;
        stop.abort("dialog");
        const d = rec.dialog;
        if (!d) throw new BpError("internal_error", "A dialog opened but was not recorded.");
        return {
          dialog: { id: d.id, type: d.type, message: cutString(d.message, 500) },
          hint: `The expression opened ${withArticle(d.type)} dialog and waits for it; answer it with 'bp dialog ${d.id} --accept' or '--dismiss'.`,
        };
      } finally {
        offDialog();
      }
    });
  },
});

interface EvalTarget {
  session: CdpSession;
  /** The page's own (main world) context of the selected frame; undefined: the session's top frame. */
  contextId?: number;
}

/**
 * Where `bp eval` runs: the page's own world of the agent's selected frame. An out-of-process
 * frame is the top frame of its own session; any other frame's main-world context is looked
 * up through Runtime.enable, which reports every existing context before it answers.
 */
async function evalTarget(rec: TargetRecord, session: CdpSession, selected: string | undefined): Promise<EvalTarget> {
  if (selected === undefined) return { session };
  await frameSessions(rec, session).ensure();
  const main = (await session.send("Page.getFrameTree")).frameTree.frame;
  if (selected === main.id) return { session };
  const root = await rootForFrame(rec, session, main.id, main.loaderId, selected);
  const top = (await root.session.send("Page.getFrameTree")).frameTree.frame.id;
  if (top === root.frameId) return { session: root.session };
  let contextId: number | undefined;
  const off = root.session.on("Runtime.executionContextCreated", ({ context }) => {
    const aux = context.auxData as { frameId?: string; isDefault?: boolean } | undefined;
    if (aux?.frameId === root.frameId && aux.isDefault) contextId = context.id;
  });
  try {
    await root.session.send("Runtime.enable");
  } finally {
    off();
    await root.session.send("Runtime.disable").catch(() => undefined);
  }
  if (contextId === undefined)
    throw new BpError("stale_ref", "The selected frame has no document now. Run 'bp frame' to list frames.", {
      context: { reason: "frame_detached" },
    });
  return { session: root.session, contextId };
}

async function runExpression(
  ctx: CallContext,
  expression: string,
  target: EvalTarget,
  signal: AbortSignal,
): Promise<EvalReply> {
  const { session } = target;
  const timeoutMs = Math.max(1, ctx.deadline - Date.now());
  // REPL mode allows top-level await and re-declaring let/const across calls, like a console.
  let res = await session.send(
    "Runtime.evaluate",
    {
      expression,
      objectGroup: EVAL_GROUP,
      awaitPromise: true,
      userGesture: true,
      replMode: true,
      ...(target.contextId !== undefined ? { contextId: target.contextId } : {}),
    },
    { timeoutMs, signal },
  );
  // A value that came back whole (1+1, a string) left nothing in the group to release.
  const held = res.result.objectId !== undefined || res.exceptionDetails?.exception?.objectId !== undefined;
  try {
    // A returned promise is awaited, as upstream did: the agent wants its value.
    if (!res.exceptionDetails && res.result.subtype === "promise" && res.result.objectId) {
      res = await session.send(
        "Runtime.awaitPromise",
        { promiseObjectId: res.result.objectId, returnByValue: false },
        { timeoutMs, signal },
      );
    }
    if (res.exceptionDetails) {
      const text = res.exceptionDetails.exception?.description ?? res.exceptionDetails.text;
      throw new BpError("script_error", `The expression threw: ${cutString(text.split("\n")[0] ?? "error", 500)}`, {
        context: { line: res.exceptionDetails.lineNumber, column: res.exceptionDetails.columnNumber },
      });
    }
    const r = res.result;
    let value: unknown = r.value;
    if (r.objectId && r.type === "object" && r.subtype !== "node" && r.subtype !== "error") {
      // Objects JSON cannot carry (window: cycles, a reference chain too long) come back
      // as their short description, marked truncated.
      const byValue = await session
        .send(
          "Runtime.callFunctionOn",
          { objectId: r.objectId, functionDeclaration: "function () { return this; }", returnByValue: true },
          { timeoutMs, signal },
        )
        .catch((err: unknown) => {
          if (isCdpError(err) && err.kind === "protocol") return undefined;
          throw err;
        });
      if (!byValue || byValue.exceptionDetails)
        return {
          value: cutString(r.description ?? r.className ?? "Object", 200),
          type: r.subtype ?? r.type,
          truncated: true,
        };
      value = byValue.result.value;
    }
    if (value === undefined) value = r.unserializableValue ?? (r.type === "undefined" ? null : (r.description ?? null));
    return boundValue(value, r.subtype ?? r.type);
  } finally {
    if (held) void session.send("Runtime.releaseObjectGroup", { objectGroup: EVAL_GROUP }).catch(() => undefined);
  }
}

/** The type a JSON value shows by itself, in the runtime's words. */
function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

export function boundValue(value: unknown, type: string): { value: unknown; type?: string; truncated?: true } {
  // Lean: {"ok":true,"value":…}. The type is named only when the value cannot tell it
  // (undefined as null, NaN or a bigint as text, a function or node as its description).
  const named = jsonType(value) === type ? {} : { type };
  const json = JSON.stringify(value) ?? "null";
  if (json.length <= MAX_EVAL_CHARS) return { value, ...named };
  const text = typeof value === "string" ? value : json;
  return { value: cutString(text, MAX_EVAL_CHARS), ...named, truncated: true };
}

export const PAGE_HANDLERS: Handler[] = [evalHandler, backHandler, forwardHandler, reloadHandler];
