/**
 * The page code as one script bundled at build time (bundle-macro.ts): an expression whose value is the entry's
 * exports.
 */
import { bundlePage } from "./bundle-macro.ts" with { type: "macro" };

export const PAGE_LIBRARY: string = bundlePage();
