/**
 * One executable, three roles. The broker and janitor roles are selected by a reserved
 * argument that help never shows; anything else is the CLI. The CLI is imported statically
 * (it is the hot path every agent step pays for); the other roles load only when chosen.
 * The CLI's locator read starts as soon as the CLI's modules have loaded, before anything
 * else of the call (src/cli/locator-file.ts).
 */
import { startLocatorRead } from "./cli/locator-file.ts";
import { runCli } from "./cli/main.ts";

const ROLE_PREFIX = "--browser-pilot-internal=";

const roleArg = process.argv.find((a) => a.startsWith(ROLE_PREFIX));
const role = roleArg?.slice(ROLE_PREFIX.length);

if (role === "broker" || role === "janitor") {
  // The executable starts with a JIT reluctant to compile (build/compile.ts): right for a CLI
  // call that exits in milliseconds, wrong for a process that serves every call after it.
  if (typeof Bun.unsafe.setJITPolicy === "function") Bun.unsafe.setJITPolicy(1);
}
if (role === "broker") {
  void import("./broker/main.ts").then((m) => m.runBroker());
} else if (role === "janitor") {
  void import("./janitor/main.ts").then((m) => m.runJanitor());
} else if (role !== undefined) {
  console.error(`Unknown internal role: ${role}`);
  process.exit(2);
} else {
  const argv = process.argv.slice(2);
  void runCli(argv, startLocatorRead(argv, process.env));
}
