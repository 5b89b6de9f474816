/**
 * bp downloads and bp download: this agent's downloads and copies of them. Chrome's own
 * files are never touched; exports come from the private store.
 */
import { BpError } from "../../shared/errors.ts";
import * as commands from "../../protocol/commands-net.ts";
import { defineHandler } from "../context/handler.ts";
import type { CallContext, Handler } from "../context/types.ts";
import { resolveOutputPath } from "../files.ts";
import { publicDownload, safeFileName } from "../net/downloads.ts";
import { exportArtifact, storeFor } from "../store/index.ts";

const place = (ctx: CallContext) => ({ cwd: ctx.req.cwd, outputDir: ctx.req.outputDir });

function expiresOf(ctx: CallContext, artifactId: string | undefined): string | undefined {
  if (!artifactId) return undefined;
  const store = storeFor(ctx.broker.paths.home);
  if (!store.has(ctx.req.clientKey, artifactId)) return undefined;
  return new Date(store.get(ctx.req.clientKey, artifactId).expiresAt).toISOString();
}

const downloadsHandler = defineHandler(commands.downloads)({
  async run(ctx) {
    ctx.agent();
    const list = [...(ctx.broker.agents.get(ctx.req.clientKey)?.netIfAny?.downloads ?? [])].reverse().map((d) => {
      const o = publicDownload(d);
      const exp = expiresOf(ctx, d.artifactId);
      if (exp) o.expiresAt = exp;
      else if (d.artifactId) o.error = "expired";
      return o;
    });
    return { downloads: list };
  },
});

const downloadHandler = defineHandler(commands.download)({
  async run(ctx, args) {
    ctx.agent();
    // A bare number is upstream's index form: 1 is dl1.
    const given = args.id;
    const id = /^\d+$/.test(given) ? `dl${given}` : given;
    const d = ctx.broker.agents.get(ctx.req.clientKey)?.netIfAny?.downloads.find((x) => x.id === id);
    if (!d)
      throw new BpError("artifact_not_found", `No download ${id} for this agent. Run 'bp downloads'.`, {
        context: { field: "id", id },
      });
    if (d.state === "in_progress")
      throw new BpError("artifact_not_found", `Download ${id} is still in progress.`, {
        retryable: true,
        context: { field: "id", id, reason: "in_progress" },
        hint: "Run 'bp wait --download' first.",
      });
    if (!d.artifactId) {
      throw new BpError(
        d.error === "quota_exceeded" ? "quota_exceeded" : "artifact_not_found",
        `Download ${id} has no stored copy (${d.error ?? d.state}).`,
        { context: { field: "id", id, reason: d.error ?? d.state } },
      );
    }
    const store = storeFor(ctx.broker.paths.home);
    // The store knows its own item ids; the agent knows the download's.
    if (!store.has(ctx.req.clientKey, d.artifactId)) {
      throw new BpError("artifact_expired", `Download ${id}'s stored copy expired and was removed.`, {
        context: { field: "id", id },
        hint: "Download it again.",
      });
    }
    const item = store.get(ctx.req.clientKey, d.artifactId, "id");
    const file = args.file;
    const dest = resolveOutputPath(file, safeFileName(d.fileName), place(ctx));
    const written = exportArtifact(store, item, dest, { noClobber: file === undefined, replace: args.force === true });
    // Lean: the id only when it is not the one the agent gave (a bare 1 is dl1).
    return { ...written, ...(id !== given ? { id } : {}) };
  },
});

export const DOWNLOAD_HANDLERS: Handler[] = [downloadsHandler, downloadHandler];
