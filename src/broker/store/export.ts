/**
 * File-producing commands store bytes privately first (so quotas hold for every kind), then copy to the agent's path.
 */
import type { WriteOptions, WrittenFile } from "../files.ts";
import type { Artifact, ArtifactKind, ArtifactStore } from "./store.ts";

/** Stores `data` for `owner`, writes it to `dest`, and drops the stored copy. */
export function storeAndExport(
  store: ArtifactStore,
  owner: string,
  kind: ArtifactKind,
  data: Uint8Array,
  mimeType: string,
  dest: string,
  opts: WriteOptions = {},
): WrittenFile {
  const item = store.put(owner, kind, data, { name: dest, mimeType });
  try {
    return store.exportTo(item, dest, opts);
  } finally {
    store.release(item.id);
  }
}

/** Writes a kept item (a download, a saved body) to `dest`; the item stays until it expires. */
export function exportArtifact(
  store: ArtifactStore,
  item: Artifact,
  dest: string,
  opts: WriteOptions = {},
): WrittenFile {
  return store.exportTo(item, dest, opts);
}
