import * as actions from "./commands-actions.ts";
import * as capture from "./commands-capture.ts";
import * as connection from "./commands-connection.ts";
import * as devtools from "./commands-devtools.ts";
import * as evaluate from "./commands-eval.ts";
import * as handoff from "./commands-handoff.ts";
import * as inspect from "./commands-inspect.ts";
import * as net from "./commands-net.ts";
import * as observe from "./commands-observe.ts";
import * as pointer from "./commands-pointer.ts";
import * as record from "./commands-record.ts";
import * as reference from "./commands-reference.ts";
import * as reliability from "./commands-reliability.ts";
import * as status from "./commands-status.ts";
import * as tabs from "./commands-tabs.ts";
import * as tools from "./commands-tools.ts";
import type { CommandDef } from "./define.ts";
import { COMMAND_INDEX, isCommand, type CommandModule } from "./table.ts";

/*
 * Every command module loaded at once, for the code that holds all of them anyway (the broker,
 * the build-time spec, the generators): a command's facts by its name, synchronously. The CLI
 * never imports this; it reads the spec src/protocol/cli-spec.ts computes at build time.
 */

export const MODULE_EXPORTS: Record<CommandModule, Record<string, unknown>> = {
  status,
  connection,
  tabs,
  eval: evaluate,
  observe,
  inspect,
  capture,
  actions,
  reliability,
  handoff,
  net,
  reference,
  devtools,
  tools,
  pointer,
  record,
};

let byName: Map<string, CommandDef> | undefined;

/** The definition of the command named so; undefined for a name that is no command. */
export function commandNamed(name: string): CommandDef | undefined {
  if (!byName) {
    byName = new Map();
    for (const [command, module] of Object.entries(COMMAND_INDEX)) {
      const defs = Object.values(MODULE_EXPORTS[module]).flatMap((e) => (Array.isArray(e) ? e : [e]));
      const def = defs.find((d): d is CommandDef => isCommand(d) && d.name === command);
      if (def) byName.set(command, def);
    }
  }
  return byName.get(name);
}
