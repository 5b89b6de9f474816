/** Which binary `bp launch` (and test fixtures) start when the user named none. */
import { browserDefinitions } from "./definitions.ts";
import { executableCandidates, isExecutableSync } from "./fs-probe.ts";

/** Explicit override, for unusual installs and for CI images with a browser in a custom place. */
export const CHROME_ENV_VAR = "BROWSER_PILOT_CHROME";

/** First Chromium-family executable in preference order; synchronous (a few stats) for argument defaults and tests. */
export function findChromiumExecutable(
  env: Record<string, string | undefined> = process.env,
  platform: NodeJS.Platform = process.platform,
): string | undefined {
  const override = env[CHROME_ENV_VAR];
  if (override && isExecutableSync(override, platform)) return override;
  for (const def of browserDefinitions({ env, platform })) {
    const candidates = executableCandidates(def.pathNames, def.executables, env, platform);
    const found = candidates.find((c) => isExecutableSync(c, platform));
    if (found) return found;
  }
  return undefined;
}

/** One sentence for `browser_not_found`: what to install on this OS. */
export function installHint(platform: NodeJS.Platform = process.platform): string {
  const override = `or set ${CHROME_ENV_VAR} to the path of a Chromium-based browser`;
  switch (platform) {
    case "darwin":
      return (
        "Install Google Chrome (https://www.google.com/chrome/ or " +
        `'brew install --cask google-chrome'), ${override}.`
      );
    case "win32":
      return `Install Google Chrome (https://www.google.com/chrome/) or Microsoft Edge, ${override}.`;
    default:
      return (
        "Install Chromium (Debian: 'sudo apt-get install chromium'; Ubuntu: " +
        "'sudo snap install chromium'; Fedora: 'sudo dnf install chromium') or Google Chrome, " +
        `${override}.`
      );
  }
}
