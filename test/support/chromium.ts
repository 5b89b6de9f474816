/**
 * Chromium for integration tests. A missing browser is a test failure, never a skip: a green
 * run that silently tested nothing is worse than a red one.
 */
import { findChromiumExecutable, installHint } from "../../src/discovery/index.ts";

export function requireChromium(): string {
  const executable = findChromiumExecutable();
  if (executable) return executable;
  const where = process.env.CI ? "on this CI machine" : "on this machine";
  throw new Error(
    `Chromium is required for these tests and none was found ${where}. ${installHint()} ` +
      `Tests never skip when the browser is missing.`,
  );
}

/**
 * Flags every test browser needs: no network chatter or first-run UI (tests must work offline
 * and deterministically), no GPU or /dev/shm (containers), no OS keyring prompts.
 */
export const CHROMIUM_FLAGS: readonly string[] = [
  "--no-first-run",
  "--no-default-browser-check",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-gpu",
  "--disable-dev-shm-usage",
  "--password-store=basic",
  "--use-mock-keychain",
  // Chromium refuses to start as root with its sandbox on.
  ...(process.getuid?.() === 0 ? ["--no-sandbox"] : []),
];
