/**
 * A main frame waiting for a slow server: until the new document commits or loading stops,
 * Chrome holds every call to the page (an evaluate, the frame tree) of a tab whose sessions set
 * up new documents, which ours always do. A command on such a tab waits a little for the commit,
 * then fails at once instead of hanging until the server answers.
 */
import { currentCallScope } from "../cdp/scope.ts";
import { BpError } from "../shared/errors.ts";
import { boundUrl } from "../shared/page-strings.ts";
import { redactUrl } from "./net/redact.ts";
import type { TargetRecord } from "./targets.ts";

const COMMIT_WAIT_MS = 2_000;
const POLL_MS = 25;
/** A page that answers this fast is not held, whatever the events said. */
const PROBE_MS = 300;

export async function awaitCommit(rec: TargetRecord): Promise<void> {
  if (!rec.navigating) return;
  const scope = currentCallScope();
  const until = Math.min(scope?.deadline ?? Infinity, Date.now() + COMMIT_WAIT_MS);
  while (rec.navigating && Date.now() < until && !scope?.signal.aborted) await Bun.sleep(POLL_MS);
  const nav = rec.navigating;
  const session = await rec.session?.catch(() => undefined);
  if (!nav || !session) return;
  const answered = await session.send("Runtime.evaluate", { expression: "0" }, { timeoutMs: PROBE_MS }).then(
    () => true,
    () => false,
  );
  if (answered) return;
  const url = redactUrl(boundUrl(nav.url));
  const ms = Date.now() - nav.at;
  throw new BpError(
    "navigation_pending",
    `The tab has waited ${Math.round(ms / 1000)} s for ${url} to answer; Chrome lets nothing read or act on the page until the new page arrives or loading stops.`,
    {
      retryable: true,
      context: { url, ms },
      remediation: {
        code: "stop_loading",
        message: "Run 'bp stop' to stay on the page shown now, or 'bp wait --url <url>' to wait for the new one.",
      },
    },
  );
}
