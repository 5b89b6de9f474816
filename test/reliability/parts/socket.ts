/**
 * Socket attacks on the broker: requests without or with a wrong token, malformed and huge
 * lines, idle and half-sent connections. Each must be refused (an error line or a closed
 * connection), and the broker must stay the same healthy process.
 */
import { codeOf, makeLab, openFds, replyProblem, running, type Lab } from "../lib/lab.ts";
import { holdConnections, rawExchange, readLocator } from "../lib/raw-socket.ts";
import { Tally, type Part, type PartContext, type PartReport } from "../lib/report.ts";

const WAIT_MS = 5_000;
/** The broker's read deadline is 10 s; the short run sets a 2 s one so it need not wait. */
const READ_DEADLINE_MS = { short: 2_000, full: 10_000 };
/** Beyond the read deadline, for the broker's timer and a loaded machine. */
const DEADLINE_SLACK_MS = 5_000;

function call(token: string | undefined, over: Record<string, unknown> = {}): string {
  return `${JSON.stringify({
    op: "call",
    ...(token !== undefined ? { token } : {}),
    protocol: 1,
    clientKey: "sock-agent",
    command: "commands",
    args: {},
    invocation: crypto.randomUUID(),
    timeoutMs: 2000,
    tabAccess: "all",
    mode: "json",
    ...over,
  })}\n`;
}

/** Lines without a valid token: every one must be refused. */
function unauthenticated(token: string): [string, string | Uint8Array][] {
  const wrong = token.replace(/./g, (c) => (c === "a" ? "b" : "a"));
  return [
    ["call without a token", call(undefined)],
    ["call with a wrong token of the right length", call(wrong)],
    ["call with an empty token", call("")],
    ["call with a numeric token", call(undefined, { token: 12345 })],
    ["call with an object token", call(undefined, { token: { length: token.length } })],
    ["call with the token's prefix", call(token.slice(0, 8))],
    ["cancel without a token", `${JSON.stringify({ op: "cancel", invocation: "x" })}\n`],
    ["unknown op without a token", `${JSON.stringify({ op: "shutdown" })}\n`],
  ];
}

/** Malformed lines: refused, or answered as invalid; never a crash. */
function malformed(token: string): [string, string | Uint8Array][] {
  const nested = `${"[".repeat(100_000)}${"]".repeat(100_000)}\n`;
  return [
    ["empty line", "\n"],
    ["garbage", "garbage\n"],
    ["null", "null\n"],
    ["true", "true\n"],
    ["a number", "1\n"],
    ["a string", '"call"\n'],
    ["an array", "[]\n"],
    ["an empty object", "{}\n"],
    ["op null", '{"op":null}\n'],
    ["op call only", '{"op":"call"}\n'],
    ["__proto__ op", '{"__proto__":{"op":"hello"}}\n'],
    ["100,000-deep array", nested],
    ["invalid UTF-8", new Uint8Array([0xff, 0xfe, 0xc0, 0x80, 0x0a])],
    ["NUL bytes", "\0\0\0\n"],
    ["two lines in one write", `${call(undefined)}${call(undefined)}`],
    ["authenticated: args null", call(token, { args: null })],
    ["authenticated: args an array", call(token, { args: [1, 2] })],
    ["authenticated: command a number", call(token, { command: 7 })],
    ["authenticated: unknown command", call(token, { command: "rm -rf" })],
    ["authenticated: protocol a string", call(token, { protocol: "1" })],
    ["authenticated: clientKey an object", call(token, { clientKey: { a: 1 } })],
    ["authenticated: timeoutMs negative", call(token, { timeoutMs: -1 })],
    ["authenticated: timeoutMs huge", call(token, { timeoutMs: 1e308 })],
    ["authenticated: tabAccess bogus", call(token, { tabAccess: "everything" })],
    ["authenticated: invocation an object", call(token, { invocation: { x: 1 } })],
    ["authenticated: cancel without invocation", `${JSON.stringify({ op: "cancel", token })}\n`],
  ];
}

/** A refusal is an error line with a known code, or a closed connection. */
function refusal(outcome: { line?: string; closed: boolean }): string | undefined {
  if (outcome.line === undefined) return outcome.closed ? undefined : "neither answered nor closed";
  try {
    const j = JSON.parse(outcome.line) as { ok?: unknown; code?: unknown };
    if (j.ok === false && typeof j.code === "string") return undefined;
    return `not refused: ${outcome.line.slice(0, 200)}`;
  } catch {
    return `unparsable reply: ${outcome.line.slice(0, 200)}`;
  }
}

async function healthy(lab: Lab, pid: number): Promise<string | undefined> {
  if (!running(pid)) return `broker ${pid} died`;
  const r = await lab.bp(["commands", "--limit", "1"], { key: "sock-probe", killAfterMs: 20_000 });
  const problem = replyProblem(r);
  if (problem) return `health check: ${problem}`;
  if (r.json?.ok !== true) return `health check answered ${codeOf(r)}`;
  if (lab.brokerPid() !== pid) return `broker replaced: ${pid} → ${String(lab.brokerPid())}`;
  return undefined;
}

export const socketPart: Part = {
  name: "socket",
  title: "Socket attacks",
  async run(ctx: PartContext): Promise<PartReport> {
    const started = performance.now();
    const reps = ctx.reps ?? (ctx.scale === "full" ? 20 : 1);
    const idle = ctx.scale === "full" ? 1000 : 100;
    const deadlineMs = READ_DEADLINE_MS[ctx.scale];
    const lab = makeLab(ctx.scale === "short" ? { BROWSER_PILOT_READ_DEADLINE_MS: String(deadlineMs) } : {});
    const rows = {
      noToken: new Tally("requests without a valid token (8 kinds)", "refused (capability_denied), broker healthy"),
      malformed: new Tally(
        "malformed lines (15 kinds: null, arrays, deep nesting, invalid UTF-8, two lines at once)",
        "refused, broker healthy",
      ),
      fields: new Tally(
        "authenticated calls with wrong field types (11 kinds: args null or an array, numeric command, huge timeout, …)",
        "refused, broker healthy",
      ),
      huge: new Tally("huge lines (8 MiB without newline, 6 MiB JSON)", "refused, broker healthy"),
      idle: new Tally(`${idle} idle connections held open`, "real calls still answered < 5 s, broker healthy"),
      deadline: new Tally(
        "idle and half-sent connections",
        `closed by the broker's read deadline (${deadlineMs / 1000} s${ctx.scale === "short" ? ", set for the short run" : ""}) within ${DEADLINE_SLACK_MS / 1000} s more`,
      ),
      hello: new Tally("unauthenticated hello", "reveals no pid"),
    };
    const figures: Record<string, string | number> = {};
    try {
      const first = await lab.bp(["commands"], { key: "sock-probe", killAfterMs: 30_000 });
      if (first.json?.ok !== true) throw new Error(`broker did not start: ${first.stdout}${first.stderr}`);
      let loc = readLocator(lab.home);
      const firstPid = loc.pid;
      // After a crash the next attempt needs the new broker (counted as a failure already).
      const refresh = async () => {
        if (!running(loc.pid)) await lab.bp(["commands"], { key: "sock-probe", killAfterMs: 30_000 });
        loc = readLocator(lab.home);
      };
      const attack = async (tally: Tally, label: string, payload: string | Uint8Array | (string | Uint8Array)[]) => {
        await tally.attempt(async () => {
          const out = await rawExchange(loc.endpoint, payload, WAIT_MS);
          const bad = refusal(out) ?? (await healthy(lab, loc.pid));
          if (bad) await refresh();
          return bad ? `${label}: ${bad}` : undefined;
        });
      };
      for (let rep = 0; rep < reps; rep++) {
        for (const [label, payload] of unauthenticated(loc.token)) await attack(rows.noToken, label, payload);
        for (const [label, payload] of malformed(loc.token))
          await attack(label.startsWith("authenticated") ? rows.fields : rows.malformed, label, payload);
        await attack(rows.huge, "8 MiB without newline", "a".repeat(8 * 1024 * 1024));
        await attack(
          rows.huge,
          "6 MiB JSON line",
          `${JSON.stringify({ op: "call", pad: "x".repeat(6 * 1024 * 1024) })}\n`,
        );
        ctx.log(`socket: round ${rep + 1}/${reps}`);
      }

      await rows.hello.attempt(async () => {
        const out = await rawExchange(loc.endpoint, '{"op":"hello"}\n', WAIT_MS);
        if (!out.line) return "no hello reply";
        return /"pid"/.test(out.line) ? `hello reveals: ${out.line}` : undefined;
      });

      // Many idle connections at once; real calls must still get through.
      const held = await holdConnections(loc.endpoint, idle);
      figures[`broker open fds with ${idle} idle connections`] = openFds(loc.pid) ?? "n/a";
      for (let i = 0; i < 5; i++) {
        await rows.idle.attempt(async () => {
          const t = performance.now();
          const bad = await healthy(lab, loc.pid);
          const ms = performance.now() - t;
          return bad ?? (ms > 5000 ? `call took ${Math.round(ms)} ms` : undefined);
        });
      }
      const halfSent = await holdConnections(loc.endpoint, 10, '{"op":"call","tok');
      const deadlineAt = Date.now() + deadlineMs + DEADLINE_SLACK_MS;
      while (Date.now() < deadlineAt && (held.closedCount() < idle || halfSent.closedCount() < 10))
        await Bun.sleep(250);
      const open = idle - held.closedCount() + (10 - halfSent.closedCount());
      for (let i = 0; i < idle + 10; i++)
        rows.deadline.record(
          i < open
            ? `${open} of ${idle + 10} connections still open after ${(deadlineMs + DEADLINE_SLACK_MS) / 1000} s`
            : undefined,
        );
      held.end();
      halfSent.end();
      await Bun.sleep(200);
      await rows.idle.attempt(() => healthy(lab, loc.pid));
      figures["broker processes during the part"] = new Set([firstPid, loc.pid, lab.brokerPid()]).size;
    } finally {
      await lab.cleanup();
    }
    return {
      part: "socket",
      title: socketPart.title,
      rows: Object.values(rows).map((t) => t.row),
      wallSeconds: (performance.now() - started) / 1000,
      figures,
    };
  },
};
