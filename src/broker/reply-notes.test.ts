import { expect, test } from "bun:test";
import type { CallRequest } from "../protocol/wire.ts";
import { VERSION } from "../shared/version.ts";
import { humanize, withNotices } from "../protocol/human.ts";
import { withBrokerNotes } from "./reply-notes.ts";

const req = (over: Partial<CallRequest>): CallRequest => ({
  op: "call",
  token: "t",
  protocol: 1,
  clientKey: "abc",
  command: "tabs",
  args: {},
  invocation: "i",
  timeoutMs: 1000,
  tabAccess: "all",
  mode: "json",
  ...over,
});

test("a CLI of another version, or a replaced executable, hears it in every reply's hints", () => {
  const older = req({ version: "0.0.9" });
  const ok = withBrokerNotes(older, { ok: true, tabs: [] }, false);
  expect((ok.hints as { type: string; message: string }[])[0]).toMatchObject({ type: "broker_outdated" });
  expect((ok.hints as { message: string }[])[0]?.message).toContain(`bp ${VERSION} while this CLI is 0.0.9`);
  const failed = withBrokerNotes(
    req({ version: VERSION }),
    { ok: false, code: "stale_ref", hint: "Run 'bp snapshot'." },
    true,
  );
  expect(String(failed.hint)).toStartWith("Run 'bp snapshot'. The broker");
  expect(String(failed.hint)).toContain("replaced since it started");
  // Its own hints stay first; a person's text (rendered by the CLI) gets a hint line, after the handbacks.
  const human = withBrokerNotes(
    older,
    {
      ok: true,
      hints: [{ type: "dialog_pending", message: "d1 waits" }],
      handbacks: [{ tab: "t1", ended: "handback" }],
    },
    false,
  );
  expect((human.hints as { type: string }[]).map((h) => h.type)).toEqual(["dialog_pending", "broker_outdated"]);
  const lines = humanize(
    human,
    withNotices(() => "t1"),
  ).split("\n");
  expect(lines.slice(0, 3)).toEqual(["t1", "hint: d1 waits", "handback: t1 (handback)"]);
  expect(lines[3]).toStartWith("hint: The broker");
  expect(lines).toHaveLength(4);
});

test("the same build adds nothing, and the record commands get no hints", () => {
  const same = { ok: true, tabs: [] };
  expect(withBrokerNotes(req({ version: VERSION }), same, false)).toBe(same);
  expect(withBrokerNotes(req({}), same, false)).toBe(same);
  const records = { ok: true, commands: [] };
  expect(withBrokerNotes(req({ command: "commands", version: "0.0.9" }), records, true)).toBe(records);
});

test("connect and status say when the caller's HOME is not the broker's", () => {
  const other = withBrokerNotes(
    req({ command: "connect", discovery: { home: "/somewhere/else" } }),
    { ok: true },
    false,
  );
  expect((other.hints as { type: string }[])[0]?.type).toBe("home_differs");
  const same = { ok: true };
  expect(withBrokerNotes(req({ command: "status", discovery: { home: process.env.HOME ?? "" } }), same, false)).toBe(
    same,
  );
});
