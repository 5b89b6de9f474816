/** Version of this build. Bumped together with package.json and skill/compatibility.json (the build checks). */
export const VERSION = "0.1.0";

// Replaced by build/compile.ts (`--define`) with the platform the executable is compiled for.
declare const BP_BUILD_TARGET: string | undefined;

/** Platform this executable was compiled for ("linux-x64", …); "source" when run from TypeScript. */
export const BUILD_TARGET: string = typeof BP_BUILD_TARGET === "string" ? BP_BUILD_TARGET : "source";

/**
 * CLI ↔ broker wire protocol: a broker whose range lacks the CLI's version is protocol_incompatible, never replaced.
 */
export const PROTOCOL = { version: 1, min: 1, max: 1 } as const;

export const LOCATOR_SCHEMA_VERSION = 1;

/** A broker that cannot write its state directory (read-only, full) exits with this code. */
export const STATE_EXIT_CODE = 3;
