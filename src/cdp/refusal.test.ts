import { expect, test } from "bun:test";
import { parseRetryAfter } from "./refusal.ts";

test("Retry-After: delta-seconds, an HTTP date, capped at a day; anything else is ignored", () => {
  const now = Date.parse("Sun, 06 Dec 2026 12:00:00 GMT");
  expect(parseRetryAfter("7", now)).toBe(7000);
  expect(parseRetryAfter(" 0 ", now)).toBe(0);
  expect(parseRetryAfter("Sun, 06 Dec 2026 12:00:30 GMT", now)).toBe(30_000);
  expect(parseRetryAfter("Sun, 06 Dec 2026 11:00:00 GMT", now)).toBe(0);
  expect(parseRetryAfter("99999999", now)).toBe(86_400_000);
  for (const bad of [undefined, "", "soon", "-5", "1.5", "2026-12-06"])
    expect(parseRetryAfter(bad, now)).toBeUndefined();
});
