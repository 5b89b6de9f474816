import { ArtifactStore } from "./store.ts";

export { ArtifactStore, wipeStore, type Artifact, type ArtifactKind } from "./store.ts";
export { exportArtifact, storeAndExport } from "./export.ts";

/** One store per broker home, created on first use (the broker owns its home exclusively). */
const stores = new Map<string, ArtifactStore>();

export function storeFor(home: string): ArtifactStore {
  let s = stores.get(home);
  if (!s) stores.set(home, (s = new ArtifactStore(home)));
  return s;
}

export function closeStores(): void {
  for (const s of stores.values()) s.close();
  stores.clear();
}
