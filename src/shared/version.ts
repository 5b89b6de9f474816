/** Version of this build. Bumped together with package.json. */
export const VERSION = "0.1.0";

/**
 * CLI ↔ broker wire protocol. A CLI speaks to any broker whose range contains its own
 * version; a broker outside that range is never replaced, the CLI reports protocol_incompatible.
 */
export const PROTOCOL = { version: 1, min: 1, max: 1 } as const;

export const LOCATOR_SCHEMA_VERSION = 1;
