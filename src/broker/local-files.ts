import { realpathSync } from "node:fs";
import { invalidArgument } from "../shared/errors.ts";
import { resolvePaths } from "../shared/paths.ts";

/**
 * A file: page shows the machine's files (downloads, the broker token, cookie databases): agents get none unless the
 * broker's starter opts in, and never bp's own directories. Chrome refuses file: navigations a page starts, so the
 * doors are ours.
 */
export const ALLOW_FILE_URLS_ENV = "BROWSER_PILOT_ALLOW_FILE_URLS";

interface LocalFilePolicy {
  allowed: boolean;
  /** bp's own directories, as given and as resolved: never readable through file:. */
  private: string[];
}

let policy: LocalFilePolicy | undefined;
/**
 * Set while a remote browser is connected: its file: URLs are the service's machine (browserless ends the session on
 * one).
 */
let remote = false;

export function setRemoteBrowser(on: boolean): void {
  remote = on;
}

function currentPolicy(): LocalFilePolicy {
  if (policy) return policy;
  const allowed = process.env[ALLOW_FILE_URLS_ENV] === "1";
  const dirs: string[] = [];
  if (allowed) {
    const paths = resolvePaths();
    for (const dir of [paths.home, paths.runtimeDir]) {
      dirs.push(dir);
      try {
        dirs.push(realpathSync(dir));
      } catch {
        // Not there yet: the given path is the only spelling to refuse.
      }
    }
  }
  policy = { allowed, private: [...new Set(dirs)] };
  return policy;
}

function pathOf(url: string): string | undefined {
  try {
    const u = new URL(url);
    return u.protocol === "file:" ? decodeURIComponent(u.pathname) : undefined;
  } catch {
    return undefined;
  }
}

function under(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith("/") ? dir : `${dir}/`);
}

/** Why a file: URL is out of reach, or undefined when it may be shown (or is not a file: URL). */
export function localFileRefusal(url: string): "local_file" | "private_directory" | "remote_browser" | undefined {
  if (!/^file:/i.test(url)) return undefined;
  if (remote) return "remote_browser";
  const p = currentPolicy();
  if (!p.allowed) return "local_file";
  const path = pathOf(url);
  if (path === undefined) return "local_file";
  let real = path;
  try {
    real = realpathSync(path);
  } catch {
    // A missing file shows nothing of its own; the directory checks below still apply.
  }
  return p.private.some((dir) => under(path, dir) || under(real, dir)) ? "private_directory" : undefined;
}

/** Refuses a navigation to a file: URL that is out of reach, as invalid_argument on `url`. */
export function assertLocalFileAllowed(url: string): void {
  const why = localFileRefusal(url);
  if (why === "local_file") {
    throw invalidArgument(
      "url",
      `file: URLs are refused: a local file is not a web page for agents. Whoever starts the broker may allow them with ${ALLOW_FILE_URLS_ENV}=1.`,
    );
  }
  if (why === "remote_browser")
    throw invalidArgument(
      "url",
      "file: URLs are refused on a remote browser: its files are the service's, and services such as browserless end the whole session on one.",
      { reason: "remote_browser" },
    );
  if (why === "private_directory")
    throw invalidArgument("url", "Browser Pilot's own directory is never shown through file: URLs.");
}
