import { describe, expect, test } from "bun:test";
import { CONSOLE_MAX_ENTRIES, CONSOLE_TEXT_MAX, ConsoleLog } from "./console.ts";

const msg = (targetId: string, level: "error" | "warning" | "info" | "log", text: string = level) => ({
  targetId,
  level,
  text,
  at: 0,
});

describe("console log", () => {
  test("one tab's messages, by level and cursor; the newest without a cursor", () => {
    const log = new ConsoleLog();
    log.add(msg("T1", "log"));
    log.add(msg("T2", "error"));
    log.add(msg("T1", "warning"));
    log.add(msg("T1", "error"));
    log.add(msg("T1", "info"));
    expect(log.query({ targetId: "T1", limit: 10 }).entries.map((e) => e.text)).toEqual([
      "log",
      "warning",
      "error",
      "info",
    ]);
    expect(log.query({ targetId: "T1", level: "warning", limit: 10 }).entries.map((e) => e.text)).toEqual([
      "warning",
      "error",
    ]);
    expect(log.query({ targetId: "T1", level: "error", limit: 10 }).entries.map((e) => e.id)).toEqual([4]);
    const newest = log.query({ targetId: "T1", limit: 2 });
    expect([newest.entries.map((e) => e.id), newest.truncated, newest.total, newest.nextCursor]).toEqual([
      [4, 5],
      true,
      4,
      5,
    ]);
    const paged = log.query({ targetId: "T1", since: 1, limit: 2 });
    expect([paged.entries.map((e) => e.id), paged.nextCursor, paged.gap]).toEqual([[3, 4], 4, false]);
    // Nothing new: the cursor stays where it was.
    expect(log.query({ targetId: "T1", since: 5, limit: 2 }).nextCursor).toBe(5);
    expect(log.errorsAfter("T1", 2).map((e) => e.id)).toEqual([4]);
    expect(log.last).toBe(5);
  });

  test("bounded by count and text; a cursor older than what is kept is a gap", () => {
    const log = new ConsoleLog();
    log.add({ ...msg("T", "log"), text: "x".repeat(CONSOLE_TEXT_MAX * 2) });
    expect(log.query({ targetId: "T", limit: 1 }).entries[0]?.text.length).toBe(CONSOLE_TEXT_MAX);
    for (let i = 0; i < CONSOLE_MAX_ENTRIES + 10; i++) log.add(msg("T", "log", String(i)));
    const r = log.query({ targetId: "T", since: 3, limit: 1000 });
    expect(r.gap).toBe(true);
    expect(r.entries[0]?.id).toBe(12);
    expect(log.query({ targetId: "T", limit: 1000 }).total).toBe(CONSOLE_MAX_ENTRIES);
  });
});
