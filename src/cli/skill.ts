import skillMd from "../../skill/SKILL.md" with { type: "text" };
import commandsMd from "../../skill/references/commands.md" with { type: "text" };
import recoveryMd from "../../skill/references/recovery.md" with { type: "text" };
import { invalidArgument } from "../shared/errors.ts";
import { VERSION } from "../shared/version.ts";

/** The skill as it was when this executable was built (build/compile.ts regenerates the command reference first). */
const REFERENCES: Readonly<Record<string, string>> = { commands: commandsMd, recovery: recoveryMd };

export function bundledSkill(reference: string | undefined): {
  ok: true;
  name: string;
  version: string;
  content: string;
} {
  if (reference === undefined) return { ok: true, name: "SKILL.md", version: VERSION, content: skillMd };
  const key = reference.replace(/^references\//, "").replace(/\.md$/, "");
  const content = Object.hasOwn(REFERENCES, key) ? REFERENCES[key] : undefined;
  if (content === undefined)
    throw invalidArgument("reference", `No reference '${reference}'; one of: ${Object.keys(REFERENCES).join(", ")}.`, {
      choices: Object.keys(REFERENCES),
    });
  return { ok: true, name: `references/${key}.md`, version: VERSION, content };
}
