import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Broker } from "./broker.ts";
import { startServer } from "./server.ts";

const dir = mkdtempSync(join(tmpdir(), "bp-server-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The whole reply a client reads from the socket, until the broker ends the connection. */
function ask(path: string, line: string, readDelayMs = 0): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const sock = connect(path, () => sock.write(`${line}\n`));
    // A slow reader: the broker's writes fill the socket buffer and must wait for drain.
    if (readDelayMs > 0) {
      sock.pause();
      setTimeout(() => sock.resume(), readDelayMs);
    }
    sock.on("data", (d: Buffer) => chunks.push(d));
    sock.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    sock.on("error", reject);
  });
}

test("a reply larger than one socket write arrives whole before the connection ends", async () => {
  // A broker stand-in: the server's own parsing and checks run; only the command's result is made up.
  const big = "é".repeat(1_500_000);
  const broker = { call: async () => ({ ok: true, value: big }) } as unknown as Broker;
  const path = join(dir, "big.sock");
  const server = startServer(path, "t0ken", broker);
  try {
    const request = JSON.stringify({
      op: "call",
      token: "t0ken",
      protocol: 1,
      clientKey: "server-test",
      command: "eval",
      args: {},
      invocation: "inv-1",
      timeoutMs: 1000,
      tabAccess: "all",
      mode: "json",
    });
    for (const delay of [0, 200]) {
      const text = await ask(path, request, delay);
      expect(text.endsWith("\n")).toBe(true);
      const reply = JSON.parse(text) as { ok: boolean; value: string };
      expect(reply.ok).toBe(true);
      expect(reply.value.length).toBe(big.length);
    }
  } finally {
    server.stop(true);
  }
});
