import { describe, expect, test } from "bun:test";
import { callSite, requestKey } from "./polling.ts";

describe("what a request is keyed by", () => {
  test("a GET's address without its query; no other method", () => {
    expect(requestKey("GET", "http://a.test/api/items?t=1#x")).toBe("http://a.test/api/items");
    expect(requestKey("POST", "http://a.test/api/items")).toBeUndefined();
  });

  test("the call site is the initiator's top frame, or its kind without a script", () => {
    const frame = { functionName: "load", scriptId: "7", url: "http://a.test/", lineNumber: 6, columnNumber: 25 };
    expect(callSite({ initiator: { type: "script", stack: { callFrames: [frame] } } })).toBe("http://a.test/:6:25");
    expect(callSite({ initiator: { type: "script", stack: { callFrames: [{ ...frame, url: "" }] } } })).toBe("7:6:25");
    expect(callSite({ initiator: { type: "other" } })).toBe("other");
  });
});
