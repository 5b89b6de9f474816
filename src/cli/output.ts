import { boundErrorShape, DEFAULT_HINTS, type ErrorShape } from "../shared/errors.ts";
import { jsonLine } from "../shared/json-line.ts";
import { handbackLine, humanize, type Formatter } from "../protocol/human.ts";
import { findCommand } from "../protocol/table.ts";

export type Mode = "json" | "human";

export function chooseMode(flags: { human?: boolean; json?: boolean }): Mode {
  if (flags.json) return "json";
  if (flags.human) return "human";
  return isTerminal(1) ? "human" : "json";
}

/**
 * Whether a file descriptor is a terminal, without touching process.stdout (creating that
 * stream costs ~7 ms of CPU per process) or node:fs (~1.5 ms to load): the runtime's own
 * isatty, which Bun exposes as Node's tty_wrap binding. Where it is missing, fstat says it
 * (on Linux a terminal is a character device other than the memory devices, /dev/null's major 1).
 */
export function isTerminal(fd: number): boolean {
  const isatty = ttyBinding();
  if (isatty) return isatty(fd);
  if (process.platform !== "linux") return fd === 0 ? process.stdin.isTTY === true : process.stdout.isTTY === true;
  try {
    const { fstatSync } = import.meta.require("node:fs") as typeof import("node:fs");
    const st = fstatSync(fd);
    return st.isCharacterDevice() && ((st.rdev >> 8) & 0xfff) !== 1;
  } catch {
    return false;
  }
}

let isattyFn: ((fd: number) => boolean) | null | undefined;

function ttyBinding(): ((fd: number) => boolean) | undefined {
  if (isattyFn === undefined) {
    isattyFn = null;
    try {
      const binding: unknown = (process as { binding?: (name: string) => unknown }).binding?.("tty_wrap");
      if (
        typeof binding === "object" &&
        binding !== null &&
        "isTTY" in binding &&
        typeof binding.isTTY === "function"
      ) {
        const tty = binding as { isTTY(fd: number): unknown };
        isattyFn = (fd) => tty.isTTY(fd) === true;
      }
    } catch {
      // not provided by this runtime
    }
  }
  return isattyFn ?? undefined;
}

/**
 * console.log rather than process.stdout.write: the stream set-up behind stdout.write
 * costs ~8 ms of CPU per process, and every agent step pays it.
 */
export async function printResult(
  command: string,
  result: Record<string, unknown>,
  mode: Mode,
  args: Record<string, unknown> = {},
): Promise<void> {
  if (mode === "json") {
    console.log(jsonLine(result));
    return;
  }
  // Only a person's call (--human) loads the command's module, for its formatter.
  console.log(humanize(result, (await findCommand(command))?.human as Formatter | undefined, args));
}

export function printError(err: ErrorShape, mode: Mode): void {
  const shape: ErrorShape = boundErrorShape(err);
  // Handback notices ride on failures too; the agent must not lose them.
  if (Array.isArray(err.handbacks)) shape.handbacks = err.handbacks;
  if (Array.isArray(err.policyBlocked)) shape.policyBlocked = err.policyBlocked;
  if (shape.hint === undefined && DEFAULT_HINTS[shape.code] !== undefined) shape.hint = DEFAULT_HINTS[shape.code];
  if (mode === "json") {
    console.log(jsonLine(orderError(shape)));
    return;
  }
  const lines = [`✗ ${shape.error} [${shape.code}]`];
  if (shape.hint) lines.push(`  hint: ${shape.hint}`);
  if (shape.remediation) lines.push(`  action: ${shape.remediation.message}`);
  console.error(lines.join("\n"));
  for (const n of shape.handbacks ?? []) console.error(handbackLine(n));
}

function orderError(e: ErrorShape): ErrorShape {
  const out: ErrorShape = { ok: false, error: e.error, code: e.code, retryable: e.retryable };
  if (e.hint !== undefined) out.hint = e.hint;
  if (e.context !== undefined) out.context = e.context;
  if (e.remediation !== undefined) out.remediation = e.remediation;
  if (e.handbacks !== undefined) out.handbacks = e.handbacks;
  if (e.policyBlocked !== undefined) out.policyBlocked = e.policyBlocked;
  return out;
}
