/**
 * Off by default. With BROWSER_PILOT_PHASES=<file> the broker appends one JSON line per request
 * with the times (epoch ms) of what it did for it: connection, request line, every CDP call and
 * event, the page's time per step of a page call, the settle's answer, the reply. For
 * bench/phases.ts, which breaks an action's time down by phase. One request at a time: calls
 * of overlapping requests land in whichever line is open. Never arguments or values (typed
 * text, secrets): command and method names, page function names, the settle's counts.
 */
import { appendFileSync } from "node:fs";

const file = process.env.BROWSER_PILOT_PHASES;
const MAX_EVENTS = 400;
const now = (): number => performance.timeOrigin + performance.now();

type Entry = [number, string, unknown?];
let open = 0;
let entries: Entry[] = [];
const steps = new Map<number, string[]>();

function mark(label: string, extra?: unknown): void {
  if (entries.length < MAX_EVENTS) entries.push(extra === undefined ? [now(), label] : [now(), label, extra]);
}

/** A page call's step names (`quiet:settle`, `snapshot`), read from its argument. */
function stepNames(params: unknown): string[] | undefined {
  const call = (params as { arguments?: { value?: { steps?: { fn?: unknown; arg?: { op?: unknown } }[] } }[] })
    ?.arguments?.[0]?.value;
  if (!Array.isArray(call?.steps)) return undefined;
  return call.steps.map((s) => (typeof s.arg?.op === "string" ? `${String(s.fn)}:${s.arg.op}` : String(s.fn)));
}

/** The settle's answer (counts and flags only) and the page's ms per step. */
function pageSummary(result: unknown): unknown {
  const value = (result as { result?: { value?: unknown } })?.result?.value;
  if (typeof value !== "string") return undefined;
  try {
    const reply = JSON.parse(value) as { results?: unknown[]; tm?: number[] };
    const quiet = reply.results?.find((r) => typeof r === "object" && r !== null && "settled" in r) as
      | Record<string, unknown>
      | undefined;
    const settle = quiet
      ? Object.fromEntries(Object.entries(quiet).filter(([, v]) => typeof v === "number" || typeof v === "boolean"))
      : undefined;
    return { tm: reply.tm, settle };
  } catch {
    return undefined;
  }
}

export const phases = file
  ? {
      /** A connection opened: its request's line starts a new record. */
      connected(): void {
        open = now();
      },
      begin(line: string): void {
        entries = [];
        steps.clear();
        mark("connected", open);
        // The command's name only: its arguments may hold typed text.
        mark("request", /"command":"([a-z-]+)"/.exec(line)?.[1] ?? "?");
      },
      /** Asks the page runtime for its time per step (PageCall.tm) while recording. */
      params<P>(method: string, params: P): P {
        if (method !== "Runtime.callFunctionOn") return params;
        const p = params as { arguments?: { value?: unknown }[] };
        const first = p.arguments?.[0];
        if (!first || typeof first.value !== "object" || first.value === null || !("steps" in first.value))
          return params;
        return {
          ...p,
          arguments: [{ ...first, value: { ...first.value, tm: 1 } }, ...(p.arguments?.slice(1) ?? [])],
        } as P;
      },
      send(id: number, method: string, params: unknown): void {
        const names = method === "Runtime.callFunctionOn" ? stepNames(params) : undefined;
        if (names) steps.set(id, names);
        mark("send", names ? { id, method, steps: names } : { id, method });
      },
      reply(id: number, result: unknown): void {
        mark("reply", steps.has(id) ? { id, page: pageSummary(result) } : { id });
      },
      event(method: string): void {
        mark("event", method);
      },
      end(): void {
        mark("written");
        try {
          appendFileSync(file, `${JSON.stringify(entries)}\n`);
        } catch {
          // a diagnostic only
        }
        entries = [];
      },
    }
  : undefined;
