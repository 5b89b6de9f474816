import { DEFAULT_HINTS, type ErrorShape } from "../shared/errors.ts";
import { humanize } from "./human.ts";

export type Mode = "json" | "human";

export function chooseMode(flags: { human?: boolean; json?: boolean }): Mode {
  if (flags.json) return "json";
  if (flags.human) return "human";
  return process.stdout.isTTY ? "human" : "json";
}

/**
 * console.log rather than process.stdout.write: the stream set-up behind stdout.write
 * costs ~8 ms of CPU per process, and every agent step pays it.
 */
export function printResult(command: string, result: Record<string, unknown>, mode: Mode): void {
  if (mode === "json") {
    console.log(JSON.stringify(result));
    return;
  }
  console.log(typeof result.text === "string" ? result.text : humanize(command, result));
}

export function printError(err: ErrorShape, mode: Mode): void {
  const shape: ErrorShape = { ...err };
  if (shape.hint === undefined && DEFAULT_HINTS[shape.code] !== undefined) shape.hint = DEFAULT_HINTS[shape.code];
  if (mode === "json") {
    console.log(JSON.stringify(orderError(shape)));
    return;
  }
  const lines = [`✗ ${shape.error} [${shape.code}]`];
  if (shape.hint) lines.push(`  hint: ${shape.hint}`);
  if (shape.remediation) lines.push(`  action: ${shape.remediation.message}`);
  console.error(lines.join("\n"));
}

function orderError(e: ErrorShape): ErrorShape {
  const out: ErrorShape = { ok: false, error: e.error, code: e.code, retryable: e.retryable };
  if (e.hint !== undefined) out.hint = e.hint;
  if (e.context !== undefined) out.context = e.context;
  if (e.remediation !== undefined) out.remediation = e.remediation;
  return out;
}
