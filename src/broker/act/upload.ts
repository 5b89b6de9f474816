import { statSync } from "node:fs";
import { basename, isAbsolute, resolve } from "node:path";
import { upload as command } from "../../protocol/commands-actions.ts";
import type { UploadEvidence } from "../../protocol/evidence.ts";
import { BpError, invalidArgument } from "../../shared/errors.ts";
import { exactly } from "../context/handler.ts";
import { staleRef } from "../observe/resolve-ref.ts";
import { storeFor } from "../store/index.ts";
import { pageObject } from "../world.ts";
import { pageEffects, type EvidenceStatus } from "./evidence.ts";
import { callFn, step, stepResult, type PageResult } from "../page-fns.ts";
import { frameOfRef, locatedRef } from "./frame-call.ts";
import { defineAction } from "./pipeline.ts";

/** The browser reads an assigned file lazily (on submit), so a private copy lives this long. */
const UPLOAD_TTL_MS = 60 * 60_000;
const MAX_UPLOAD_BYTES = 512 * 1024 * 1024;

/** The file the agent named: absolute (the CLI resolves it), an existing regular file, bounded. */
export function checkUploadSource(file: string, cwd: string | undefined): { path: string; size: number } {
  if (file === "" || file.includes("\0"))
    throw invalidArgument("file", "The file name is empty or contains a NUL byte.");
  const path = isAbsolute(file) ? file : cwd && isAbsolute(cwd) ? resolve(cwd, file) : undefined;
  if (!path) throw invalidArgument("file", "Give the file as an absolute path.");
  let st;
  try {
    st = statSync(path);
  } catch {
    throw invalidArgument("file", `No file at ${path}.`, { file: path });
  }
  if (!st.isFile()) throw invalidArgument("file", `${path} is not a regular file.`, { file: path });
  if (st.size > MAX_UPLOAD_BYTES)
    throw invalidArgument("file", `${path} is larger than ${MAX_UPLOAD_BYTES / 1024 / 1024} MiB.`, {
      file: path,
      sizeBytes: st.size,
    });
  return { path, size: st.size };
}

/**
 * `bp upload <ref> <file>`: a private copy goes to the file input via DOM.setFileInputFiles, then `input.files` is read
 * back.
 */
export const uploadHandler = defineAction<
  typeof command,
  { ref: number; source: { path: string; size: number }; limit: number; full: boolean },
  UploadEvidence
>(command, {
  // The file is checked before anything else: a bad path loses nothing.
  args: (a, ctx) => ({ ref: a.ref, source: checkUploadSource(a.file, ctx.req.cwd), limit: a.limit, full: a.full }),
  observe: (a) => ({ limit: a.limit, full: a.full }),
  locate: (a) => ({ ref: a.ref, steps: [step("upload", { op: "find" })] }),
  evidence: (_run, sent) => sent,
  // The input is the file assignment, not the private copy made before it or the read-back after the settle.
  async *steps({ ctx, args, watch, target }) {
    const source = args.source;
    const resolved = locatedRef(target);
    const frame = frameOfRef(resolved);
    const found = stepResult(resolved, 0, "upload", "find");
    if (!found.ok && found.reason === "detached") throw staleRef(args.ref, "node_detached");
    if (!found.ok)
      throw invalidArgument(
        "ref",
        `Ref ${args.ref} (${found.tag ?? "element"}) is not a file input, its label, or an element holding exactly one.`,
        { ref: args.ref, reason: "not_file_input" },
      );
    if (found.disabled)
      throw new BpError("action_not_verified", `The file input of ref ${args.ref} is disabled; nothing was sent.`, {
        retryable: true,
        context: { ref: args.ref, reason: "disabled", dispatched: false },
      });
    const objectId = await pageObject(frame.session, frame.frameId, "slotElement", "browser-pilot.target.v1");
    if (!objectId) throw staleRef(args.ref, "node_detached");
    const name = basename(source.path);
    // The page gets a private copy read lazily on submit: it lives an hour unless the agent disconnects first.
    const copy = storeFor(ctx.broker.paths.home).putFile(ctx.req.clientKey, "upload", source.path, {
      name,
      mimeType: "application/octet-stream",
      ttlMs: UPLOAD_TTL_MS,
      keepName: true,
    }).path;
    let files: PageResult<"upload", { op: "files" }> | undefined;
    try {
      await watch.armQuiet();
      const sent = watch.input(() => frame.session.send("DOM.setFileInputFiles", { files: [copy], objectId }), true);
      sent.catch(() => undefined);
      await Promise.race([sent, watch.dialogOpened]);
      yield {};
      if (!watch.effects.dialog) files = await callFn(frame, "upload", { op: "files" }).catch(() => undefined);
    } finally {
      if (!watch.effects.dialog) void frame.session.send("Runtime.releaseObject", { objectId }).catch(() => undefined);
    }
    const fileCount = files?.ok ? (files.count ?? 0) : undefined;
    const nameMatched = files?.ok ? (files.names ?? []).includes(name) : undefined;
    let status: EvidenceStatus = "verified";
    let reason: string | undefined;
    if (watch.effects.dialog) [status, reason] = ["unavailable", "dialog_opened"];
    else if (!files?.ok) [status, reason] = ["unavailable", "target_unavailable"];
    else if (fileCount !== 1) [status, reason] = ["mismatch", "file_count_mismatch"];
    else if (!nameMatched) [status, reason] = ["mismatch", "file_name_mismatch"];
    return exactly<UploadEvidence>()({
      action: "upload",
      status,
      expectedFileCount: 1,
      ...(fileCount !== undefined ? { fileCount } : {}),
      ...(nameMatched !== undefined ? { nameMatched } : {}),
      fileName: name,
      sizeBytes: source.size,
      ...(reason ? { reason } : {}),
      effects: pageEffects(watch.effects),
    });
  },
});
