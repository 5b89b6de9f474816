import type { CallRequest } from "../protocol/wire.ts";
import { VERSION } from "../shared/version.ts";

/** Commands about the records themselves, whose results carry no hints. */
const NO_HINTS = new Set(["schema", "commands", "command", "cancel"]);

/** What an agent must hear after an upgrade: its broker runs another build than its CLI. Undefined when not. */
export function outdatedNote(req: CallRequest, replaced: boolean): string | undefined {
  const cli = req.version !== undefined && req.version !== VERSION ? req.version : undefined;
  if (cli === undefined && !replaced) return undefined;
  const what =
    cli !== undefined
      ? `bp ${VERSION} while this CLI is ${cli}`
      : `bp ${VERSION} from a file replaced since it started`;
  return `The broker (pid ${process.pid}) runs ${what}; run 'bp disconnect' in every agent to start the new one.`;
}

/**
 * Browsers are looked for in the caller's HOME; when the broker started with another HOME, 'connect' and 'status' say
 * so.
 */
export function homeNote(req: CallRequest): string | undefined {
  const caller = req.discovery?.home;
  const own = process.env.HOME;
  if (caller === undefined || own === undefined || caller === own) return undefined;
  return `Browsers are looked for in your HOME (${caller}); the broker was started with HOME=${own}. A browser bp launches keeps its profile under BROWSER_PILOT_HOME either way.`;
}

/** Adds the notes to a reply: hints on a success, the error's `hint` on a failure. */
export function withBrokerNotes(
  req: CallRequest,
  reply: Record<string, unknown>,
  replaced: boolean,
): Record<string, unknown> {
  if (NO_HINTS.has(req.command)) return reply;
  const notes: { type: string; message: string }[] = [];
  const outdated = outdatedNote(req, replaced);
  if (outdated !== undefined) notes.push({ type: "broker_outdated", message: outdated });
  const home = homeNote(req);
  if (home !== undefined) notes.push({ type: "home_differs", message: home });
  if (notes.length === 0) return reply;
  const text = notes.map((n) => n.message).join(" ");
  if (reply.ok === false) return { ...reply, hint: typeof reply.hint === "string" ? `${reply.hint} ${text}` : text };
  const hints = Array.isArray(reply.hints) ? (reply.hints as unknown[]) : [];
  return { ...reply, hints: [...hints, ...notes] };
}
