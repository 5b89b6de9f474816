/** The policy's word on one call before its handler runs: no browser call is made for what it denies. */
import { realpathSync } from "node:fs";
import * as v from "valibot";
import type { CommandDef } from "../../protocol/define.ts";
import { originVerdict } from "../../protocol/policy-match.ts";
import { deniedBy, insideDir, objectEntries, rulesFor, type Effective } from "../../protocol/policy.ts";
import type { CallRequest } from "../../protocol/wire.ts";
import { BpError } from "../../shared/errors.ts";
import { cutString } from "../../shared/page-strings.ts";
import { redactUrl } from "../net/redact.ts";
import { currentPolicy } from "./current.ts";

export function policyDenied(message: string, rule: string, extra: Record<string, unknown> = {}): BpError {
  return new BpError("policy_denied", `${message} The host policy denies it (rule ${rule}).`, {
    context: { rule, ...extra },
    hint: "The host's policy is not the agent's to change; do without it, or ask the person.",
  });
}

const defaultsCache = new WeakMap<CommandDef, Record<string, unknown>>();
function defaults(def: CommandDef): Record<string, unknown> {
  let d = defaultsCache.get(def);
  if (!d) {
    d = {};
    for (const [k, s] of Object.entries(objectEntries(def.args) ?? {})) d[k] = v.getDefault(s as v.GenericSchema);
    defaultsCache.set(def, d);
  }
  return d;
}

/** The call as the policy lets it run (tabAccess forced where the policy says 'own'), or a refusal. */
export function admitCall(req: CallRequest, def: CommandDef): CallRequest {
  const policy = currentPolicy();
  if (!policy) return req;
  const rules = rulesFor(policy, req.clientKey);
  const denied = deniedBy(rules, req.command, req.args, defaults(def));
  if (denied !== undefined)
    throw policyDenied(`'${denied}' is removed for this agent.`, "deny", { entry: denied, command: req.command });
  if (req.command === "open" && typeof req.args.url === "string") navigationVerdict(rules, req.args.url);
  if (req.command === "upload" && typeof req.args.file === "string" && rules.uploadDirs) {
    if (!uploadAllowed(rules.uploadDirs, req.args.file))
      throw policyDenied("Uploads may come only from the directories the host listed.", "files.uploadDirs", {
        field: "file",
      });
  }
  if ((req.command === "download" || req.command === "downloads") && rules.downloads === "off") {
    throw policyDenied("Downloads are off for this agent.", "files.downloads");
  }
  if (rules.tabAccess === "own" && req.tabAccess !== "own") return { ...req, tabAccess: "own" };
  return req;
}

function navigationVerdict(rules: Effective, url: string): void {
  const verdict = originVerdict(rules, url);
  const shown = cutString(redactUrl(url), 200);
  if (verdict)
    throw policyDenied(`Navigation to ${shown} is not allowed.`, verdict.rule, {
      url: shown,
      ...(verdict.entry ? { entry: verdict.entry } : {}),
    });
}

/** A navigation the broker starts itself (a history move) to a URL the key's policy denies: policy_denied. */
export function assertMayNavigate(key: string, url: string): void {
  const policy = currentPolicy();
  if (policy) navigationVerdict(rulesFor(policy, key), url);
}

function uploadAllowed(dirs: string[], file: string): boolean {
  let real: string;
  try {
    real = realpathSync(file);
  } catch {
    // A file that cannot be resolved is judged by its name; the upload itself fails later.
    real = file;
  }
  return dirs.some((d) => {
    let rd = d;
    try {
      rd = realpathSync(d);
    } catch {
      // a directory that does not exist holds nothing
    }
    return insideDir(rd, real) && insideDir(d, file);
  });
}
