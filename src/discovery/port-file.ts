/**
 * DevToolsActivePort: Chrome writes it into the user-data dir when its DevTools server listens; reading it is the only
 * passive way to learn the endpoint.
 */
import fsp from "node:fs/promises";
import path from "node:path";

export const PORT_FILE_NAME = "DevToolsActivePort";

export interface DevToolsActivePort {
  port: number;
  /** Browser-level WebSocket path, e.g. `/devtools/browser/<uuid>`. */
  path: string;
}

/** Strict parse: anything odd means "no usable endpoint" rather than a guess. */
export function parseDevToolsActivePort(text: string): DevToolsActivePort | undefined {
  const lines = text.split(/\r?\n/);
  const portLine = lines[0]?.trim() ?? "";
  const pathLine = lines[1]?.trim() ?? "";
  if (!/^\d{1,5}$/.test(portLine)) return undefined;
  const port = Number(portLine);
  if (port < 1 || port > 65535) return undefined;
  // The path goes into a ws:// URL: refuse anything that could change its host or smuggle whitespace or control
  // characters.
  if (!pathLine.startsWith("/") || pathLine.startsWith("//")) return undefined;
  if (/[\s\u0000-\u001f\u007f]/.test(pathLine)) return undefined;
  return { port, path: pathLine };
}

export function endpointFor(active: DevToolsActivePort): string {
  return `ws://127.0.0.1:${active.port}${active.path}`;
}

export interface PortFileInfo extends DevToolsActivePort {
  /** Modification time in ms, used to tell a file left over from an earlier browser run. */
  mtimeMs: number;
}

/** Reads and parses the port file; undefined when absent, unreadable or malformed. */
export async function readPortFile(userDataDir: string): Promise<PortFileInfo | undefined> {
  const file = path.join(userDataDir, PORT_FILE_NAME);
  try {
    const handle = await fsp.open(file, "r");
    try {
      const st = await handle.stat();
      // A real port file is a few dozen bytes; don't slurp something huge planted there.
      if (!st.isFile() || st.size > 4096) return undefined;
      const parsed = parseDevToolsActivePort(await handle.readFile("utf8"));
      return parsed ? { ...parsed, mtimeMs: st.mtimeMs } : undefined;
    } finally {
      await handle.close();
    }
  } catch {
    return undefined;
  }
}
