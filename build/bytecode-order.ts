/**
 * Profile-guided layout of the executable's bytecode (Bun's `--bytecode-order`): runs a built
 * `bp` for the warm calls an agent makes, each against a stand-in broker on a private socket,
 * with BUN_BYTECODE_ORDER_OUT, so Bun records which bytecode a call uses; build/compile.ts then
 * compiles again with those files and Bun places that bytecode together at the front. A warm
 * call then touches fewer of the executable's pages: on the shared 2-core machine, where a page
 * fault is costly, `bp snapshot` took ~3.5 ms less CPU (docs/benchmarks.md). The stand-in answers
 * every call with a small reply of the command's usual shape: the CLI's own path (parse, locator,
 * socket, reply check, print) is what the profile must cover; the broker lives long and is not in it.
 * Usage: bun build/bytecode-order.ts <bp executable> <out dir> (prints the files it wrote).
 */
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

/** The calls profiled, the most common first (Bun places what the first file lists first). */
const CALLS: { name: string; args: string[]; reply: Record<string, unknown> }[] = [
  {
    name: "click",
    args: ["click", "3"],
    reply: {
      ok: true,
      evidence: { status: "verified", effects: ["dom_changed"] },
      changes: { added: [{ r: 4, t: "text", n: "Count: 1" }] },
    },
  },
  {
    name: "type",
    args: ["type", "2", "Ada"],
    reply: { ok: true, evidence: { status: "verified", effects: ["value_changed"] }, value: "Ada" },
  },
  {
    name: "snapshot",
    args: ["snapshot"],
    reply: {
      ok: true,
      title: "Sign up",
      url: "http://127.0.0.1/form",
      page: { vh: 600, dh: 600 },
      elements: [
        { r: 1, t: "link", n: "Home" },
        { r: 2, t: "textbox", n: "Full name" },
        { r: 3, t: "button", n: "Add item" },
      ],
    },
  },
  { name: "eval", args: ["eval", "1+1"], reply: { ok: true, value: 2 } },
  { name: "status", args: ["status"], reply: { ok: true, service: { state: "running", version: "0.1.0" } } },
  { name: "version", args: ["--version"], reply: { ok: true } },
];

/** Records one profile per call into `outDir`; returns their paths, or [] when a run failed (the build then lays out as before). */
export async function recordBytecodeOrder(exe: string, outDir: string): Promise<string[]> {
  const home = mkdtempSync(join(tmpdir(), "bp-order-"));
  chmodSync(home, 0o700);
  const socketPath = join(home, "broker.sock");
  const token = crypto.randomUUID();
  const replies = new Map(CALLS.map((c) => [c.args[0], c.reply]));
  const server = Bun.listen<{ text: string }>({
    unix: socketPath,
    socket: {
      open(s) {
        s.data = { text: "" };
      },
      data(s, chunk) {
        s.data.text += chunk.toString();
        const at = s.data.text.indexOf("\n");
        if (at < 0) return;
        const call = JSON.parse(s.data.text.slice(0, at)) as { command?: string };
        s.write(`${JSON.stringify(replies.get(call.command ?? "") ?? { ok: true })}\n`);
        s.end();
      },
    },
  });
  const identity = `${process.pid}:0`;
  writeFileSync(
    join(home, "broker-locator.json"),
    JSON.stringify({
      schemaVersion: 1,
      pid: process.pid,
      processIdentity: identity,
      endpoint: socketPath,
      startedAt: new Date().toISOString(),
      version: "0.0.0",
      protocol: { min: 1, max: 1 },
      executable: { version: "0.0.0", path: exe, identity },
      token,
    }),
    { mode: 0o600 },
  );
  const written: string[] = [];
  try {
    for (const c of CALLS) {
      const file = join(outDir, `bytecode-order-${c.name}.txt`);
      rmSync(file, { force: true });
      const proc = Bun.spawn([exe, ...c.args], {
        env: {
          PATH: process.env.PATH ?? "/usr/bin:/bin",
          HOME: home,
          BROWSER_PILOT_HOME: home,
          BUN_BYTECODE_ORDER_OUT: file,
        },
        stdout: "pipe",
        stderr: "pipe",
      });
      const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
      // A call that did not reach the stand-in (an old locator format, a changed flow) would profile the wrong path.
      if (code !== 0 || !existsSync(file) || (c.name !== "version" && !out.startsWith('{"ok":true'))) return [];
      written.push(file);
    }
    return written;
  } finally {
    server.stop(true);
    rmSync(home, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const [exe, out] = process.argv.slice(2);
  if (!exe || !out) {
    console.error("usage: bun build/bytecode-order.ts <bp executable> <out dir>");
    process.exit(2);
  }
  const files = await recordBytecodeOrder(resolve(exe), resolve(out));
  if (files.length === 0) {
    console.error("no profile recorded");
    process.exit(1);
  }
  console.log(files.join("\n"));
}
