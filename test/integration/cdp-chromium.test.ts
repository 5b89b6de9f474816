/**
 * The CDP layer against a real headless Chromium. A missing Chromium fails the test: it
 * never passes by skipping.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CdpConnection } from "../../src/cdp/connection.ts";
import { CdpError } from "../../src/cdp/errors.ts";
import { attachToTarget } from "../../src/cdp/session.ts";
import { connectWebSocket } from "../../src/cdp/transport.ts";
import { requireChromium } from "../support/chromium.ts";

const CHROMIUM = requireChromium();

let child: Bun.Subprocess | undefined;
let profileDir: string | undefined;

afterAll(async () => {
  await stopChromium();
});

async function stopChromium(): Promise<void> {
  const running = child;
  child = undefined;
  if (running !== undefined && running.exitCode === null && running.signalCode === null) {
    running.kill("SIGTERM");
    const exited = await Promise.race([running.exited.then(() => true), Bun.sleep(5_000).then(() => false)]);
    if (!exited) {
      running.kill("SIGKILL");
      await running.exited;
    }
  }
  if (profileDir !== undefined) await rm(profileDir, { recursive: true, force: true });
  profileDir = undefined;
}

/** Starts Chromium on a random port and returns its browser-level ws URL. */
async function launchChromium(): Promise<string> {
  profileDir = await mkdtemp(join(tmpdir(), "bp-cdp-it-"));
  child = Bun.spawn(
    [
      CHROMIUM,
      "--headless=new",
      "--no-sandbox",
      "--remote-debugging-port=0",
      `--user-data-dir=${profileDir}`,
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-gpu",
      "about:blank",
    ],
    { stdin: "ignore", stdout: "ignore", stderr: "ignore" },
  );
  const portFile = join(profileDir, "DevToolsActivePort");
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`Chromium exited early (code ${child.exitCode}, signal ${child.signalCode})`);
    }
    // Chrome writes the file after binding; a partial read just means "not yet".
    const text = await readFile(portFile, "utf8").catch(() => "");
    const [port, path] = text.split("\n");
    if (port !== undefined && /^\d+$/.test(port) && path?.startsWith("/devtools/browser/") === true) {
      return `ws://127.0.0.1:${port}${path}`;
    }
    await Bun.sleep(50);
  }
  throw new Error("Chromium did not write DevToolsActivePort within 30 s");
}

test("real Chromium: version, targets, flat attach, evaluate", async () => {
  const url = await launchChromium();
  const conn = new CdpConnection(await connectWebSocket(url));
  try {
    const version = await conn.send("Browser.getVersion");
    expect(version.product).toMatch(/Chrom/);
    expect(version.protocolVersion).toBe("1.3");

    const { targetInfos } = await conn.send("Target.getTargets");
    const page = targetInfos.find((target) => target.type === "page");
    expect(page).toBeDefined();
    if (page === undefined) return;

    const session = await attachToTarget(conn, page.targetId);
    const { result } = await session.send("Runtime.evaluate", { expression: "1+1", returnByValue: true });
    expect(result.value).toBe(2);

    // A real error reply keeps Chrome's code and our call site.
    const error = await session
      .send("Runtime.evaluate", { expression: "1", contextId: 987_654 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CdpError);
    expect(error instanceof CdpError && error.code).toBe(-32000);
    expect(error instanceof CdpError && error.stack).toContain("cdp-chromium.test.ts");

    await session.detach();
    expect(session.closed).toBe(true);
  } finally {
    conn.close();
    await stopChromium();
  }
});
