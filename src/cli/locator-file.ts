/*
 * The locator's bytes, read as soon as the CLI's modules have loaded, before the call reads
 * its environment, resolves its paths and parses its arguments. Bun hands a file read to its
 * thread pool and delivers the answer only when the main thread next waits, so a read started
 * then is ready when the call is built: started after the environment and the paths, a warm
 * call waited ~0.5 ms for it. Starting it earlier still, before the CLI's modules evaluate
 * (from a module imported ahead of them), measured no faster, so src/main.ts starts it in its
 * body. This module imports nothing.
 */

/** The locator is small; anything larger is not one. */
export const MAX_LOCATOR_BYTES = 64 * 1024;

/**
 * The locator file's text, through Bun's own file API (node:fs would cost every CLI call ~1.5 ms
 * to load). It holds the token, so only a regular file of this OS user counts (a link is judged
 * by the file it reaches: one planted by another user reaches that user's file).
 */
export function readLocatorText(path: string): Promise<string | undefined> {
  try {
    const file = Bun.file(path);
    // A FIFO or a device there must not block or flood the read: Bun's size is a synchronous
    // stat, Infinity for anything but a file or a directory (whose read fails). The stat with
    // the owner runs alongside the read, so the call waits for one trip to Bun's file thread,
    // not two; nothing read is used before the stat has vouched for the file.
    if (file.size > MAX_LOCATOR_BYTES) return Promise.resolve(undefined);
    return Promise.all([file.stat(), file.text()]).then(
      ([st, text]) => {
        const uid = typeof process.getuid === "function" ? process.getuid() : undefined;
        return !st.isFile() || st.size > MAX_LOCATOR_BYTES || (uid !== undefined && st.uid !== uid) ? undefined : text;
      },
      () => undefined,
    );
  } catch {
    return Promise.resolve(undefined);
  }
}

/** A read of the file at `path`, started early. */
export interface EarlyRead {
  path: string;
  text: Promise<string | undefined>;
}

/**
 * Starts reading the locator where the usual home puts it ($BROWSER_PILOT_HOME, else
 * ~/.browser-pilot). A guess: the CLI uses it only if resolvePaths names the same file, and
 * reads afresh otherwise. Not for the calls that read no locator (version, help).
 */
export function startLocatorRead(
  argv: readonly string[],
  env: Record<string, string | undefined>,
): EarlyRead | undefined {
  const only = argv.length === 1 ? argv[0] : undefined;
  if (
    argv.length === 0 ||
    only === "--version" ||
    only === "-V" ||
    only === "--help" ||
    only === "-h" ||
    only === "help"
  )
    return undefined;
  const override = env.BROWSER_PILOT_HOME;
  const home = override !== undefined ? override : env.HOME === undefined ? undefined : `${env.HOME}/.browser-pilot`;
  if (home === undefined || !home.startsWith("/")) return undefined;
  const path = `${home}/broker-locator.json`;
  return { path, text: readLocatorText(path) };
}
