import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readReply } from "../protocol/wire.ts";
import { request } from "./client.ts";

test("a reply line split inside a character, over several writes, arrives whole", async () => {
  const dir = mkdtempSync(join(tmpdir(), "bp-client-"));
  const socketPath = join(dir, "s.sock");
  const line = new TextEncoder().encode(`${JSON.stringify({ ok: true, value: "héllo wörld ✓ 😀".repeat(50) })}\n`);
  const cut = line.indexOf(0xc3) + 1; // inside the two bytes of é
  const server = Bun.listen({
    unix: socketPath,
    socket: {
      data(s) {
        s.write(line.subarray(0, cut));
        s.flush();
        // Long enough for the client to have read the first part on its own: writes made
        // back to back reach it as one chunk, and the split would never be decoded.
        setTimeout(() => {
          s.write(line.subarray(cut));
          s.end();
        }, 50);
      },
    },
  });
  try {
    const reply = await request(socketPath, { op: "hello" }, 2000, readReply);
    expect(reply).toEqual({ ok: true, value: "héllo wörld ✓ 😀".repeat(50) });
  } finally {
    server.stop(true);
    rmSync(dir, { recursive: true, force: true });
  }
});
