/**
 * 'bp profiles --identify', the one visible operation allowed to name profiles: per unidentified context, a temporary
 * chrome://version page is opened, its Profile Path read and matched exactly against the browser's Local State, and the
 * page closed. Otherwise the profile stays unidentified with a reason: names are never guessed.
 */
import { readFileSync, realpathSync, statSync } from "node:fs";
import { basename, dirname } from "node:path";
import type { CdpSession } from "../../cdp/session.ts";
import { BpError } from "../../shared/errors.ts";
import { navigateTo } from "../navigate.ts";
import type { TargetRecord } from "../targets.ts";
import { createPageInProfile, type PageFactory } from "./create.ts";
import type { ProfileContext, ProfileIdentity } from "./registry.ts";

/** Local State of a real profile with many extensions stays far below this. */
const MAX_LOCAL_STATE_BYTES = 16 * 1024 * 1024;
const IDENTIFY_PAGE_MS = 10_000;
const CLOSE_WAIT_MS = 2_000;
const PATH_POLL_MS = 50;
/** How long after its load the page may take to show the path (a page that never does costs no more). */
const PATH_WAIT_MS = 2_000;

export interface IdentifySurface extends PageFactory {
  session(rec: TargetRecord): Promise<CdpSession>;
  own(targetId: string): void;
  closeTarget(rec: TargetRecord): Promise<void>;
  userDataRoot: string | undefined;
}

type InfoCache = Record<string, Record<string, unknown>>;

export async function identifyProfiles(s: IdentifySurface, list: ProfileContext[], signal: AbortSignal): Promise<void> {
  let cache: InfoCache | undefined | null = null;
  const made = await contextsMadeOverCdp(s);
  for (const p of list) {
    if (p.identity?.status === "verified") continue;
    if (made.has(p.contextId)) {
      p.identity = { status: "verified", kind: "context" };
      continue;
    }
    if (signal.aborted) throw new BpError("command_cancelled", "Identification stopped.", { retryable: true });
    let path: string;
    try {
      path = await readProfilePath(s, p, signal);
    } catch (err) {
      // A profile with no page to open a window from stays unnamed; the others still get theirs.
      if (!(err instanceof BpError) || err.code !== "profile_context_unavailable") throw err;
      path = "";
    }
    if (cache === null) cache = s.userDataRoot ? readInfoCache(s.userDataRoot) : undefined;
    p.identity = matchIdentity(path, s.userDataRoot, cache);
  }
}

/** Contexts created with Target.createBrowserContext: a person's profiles are never among them. */
async function contextsMadeOverCdp(s: IdentifySurface): Promise<Set<string>> {
  try {
    const { browserContextIds } = await s.cdp.send("Target.getBrowserContexts");
    return new Set(browserContextIds);
  } catch {
    return new Set();
  }
}

/** Opens chrome://version in the profile, reads its profile path, and always closes the page. */
async function readProfilePath(s: IdentifySurface, p: ProfileContext, signal: AbortSignal): Promise<string> {
  const { targetId } = await createPageInProfile(s, {
    contextId: p.contextId,
    creator: "",
    own: (id) => {
      s.targets.markInternal(id);
      s.own(id);
    },
  });
  let rec = s.targets.byId.get(targetId);
  try {
    if (!rec) {
      const { targetInfo } = await s.cdp.send("Target.getTargetInfo", { targetId });
      rec = s.targets.upsert(targetInfo);
    }
    if (!rec) return "";
    const session = await s.session(rec);
    await navigateTo(session, "chrome://version", Date.now() + IDENTIFY_PAGE_MS, signal);
    const deadline = Date.now() + PATH_WAIT_MS;
    // Read until the page shows the path, for up to 2 s: right after its load it may not yet (on a
    // busy machine the first read came back empty now and then, the next one 50 ms later had it).
    for (;;) {
      const res = await session.send(
        "Runtime.evaluate",
        { expression: `document.getElementById("profile_path")?.textContent ?? ""`, returnByValue: true },
        { timeoutMs: IDENTIFY_PAGE_MS },
      );
      const path = typeof res.result.value === "string" ? res.result.value.trim() : "";
      if (path !== "" || Date.now() + PATH_POLL_MS >= deadline || signal.aborted) return path;
      await Bun.sleep(PATH_POLL_MS);
    }
  } finally {
    await closeAndWait(s, targetId, rec);
  }
}

/** Closing is asynchronous in Chrome: answer only once the page is really gone. */
async function closeAndWait(s: IdentifySurface, targetId: string, rec: TargetRecord | undefined): Promise<void> {
  let off = () => {};
  const gone = new Promise<void>((resolve) => {
    off = s.cdp.on("Target.targetDestroyed", (p) => {
      if (p.targetId === targetId) resolve();
    });
  });
  try {
    if (rec) await s.closeTarget(rec);
    else await s.cdp.send("Target.closeTarget", { targetId });
    await Promise.race([gone, Bun.sleep(CLOSE_WAIT_MS)]);
  } catch {
    // Already gone.
  } finally {
    off();
  }
}

function real(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

export function readInfoCache(root: string): InfoCache | undefined {
  try {
    const file = `${root}/Local State`;
    if (statSync(file).size > MAX_LOCAL_STATE_BYTES) return undefined;
    const parsed: unknown = JSON.parse(readFileSync(file, "utf8"));
    const cache = (parsed as { profile?: { info_cache?: unknown } } | null)?.profile?.info_cache;
    return typeof cache === "object" && cache !== null ? (cache as InfoCache) : undefined;
  } catch {
    return undefined;
  }
}

const str = (v: unknown): string | undefined => (typeof v === "string" && v.trim() !== "" ? v.trim() : undefined);

/** Exact match only: the page's profile path must be a direct child of the browser's root. */
export function matchIdentity(
  profilePath: string,
  userDataRoot: string | undefined,
  cache: InfoCache | undefined,
): ProfileIdentity {
  if (profilePath === "") return { status: "unavailable", error: "profile_path_unavailable" };
  const root = userDataRoot ? real(userDataRoot) : undefined;
  const parent = real(dirname(profilePath));
  if (!root || parent !== root) return { status: "unavailable", error: "profile_path_unverified" };
  if (!cache) return { status: "unavailable", error: "local_state_unavailable" };
  const directory = basename(profilePath);
  const entry = Object.hasOwn(cache, directory) ? cache[directory] : undefined;
  if (!entry) return { status: "unavailable", directory, error: "profile_metadata_missing" };
  const name = str(entry.name);
  const account = str(entry.gaia_name) ?? str(entry.gaia_given_name);
  const email = str(entry.user_name);
  return {
    status: "verified",
    directory,
    ...(name ? { name } : {}),
    ...(account ? { account } : {}),
    ...(email ? { email } : {}),
  };
}
