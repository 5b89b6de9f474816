import { describe, expect, test } from "bun:test";
import { displayEndpoint, endpointSecrets, rememberSecrets, scrubSecrets } from "./secrets.ts";

describe("remote endpoint secrets", () => {
  test("displayEndpoint keeps path and options, masks the credentials", () => {
    expect(displayEndpoint("wss://chrome.example.com/?token=abc123&launch={}")).toBe(
      "wss://chrome.example.com/?token=***&launch={}",
    );
    expect(displayEndpoint("wss://connect.example.dev?apiKey=k-1&sessionId=s1")).toBe(
      "wss://connect.example.dev?apiKey=***&sessionId=s1",
    );
    expect(displayEndpoint("ws://user:pw-xyz@host:9/devtools/browser/1")).toBe(
      "ws://user:***@host:9/devtools/browser/1",
    );
    expect(displayEndpoint("ws://host/x?key=1&auth=2&api_key=3&access_token=4&signature=5&flag")).toBe(
      "ws://host/x?key=***&auth=***&api_key=***&access_token=***&signature=***&flag",
    );
    expect(displayEndpoint("not a url")).toBe("(invalid url)");
  });

  test("endpointSecrets: query values, password, header values and a bearer's credential, each spelling", () => {
    const s = endpointSecrets("wss://u:p%40ss-word@h/?token=a%2Bb-token-1&timeout=30000", {
      Authorization: "Bearer hdr-secret",
    });
    expect(s).toEqual(
      expect.arrayContaining([
        "p%40ss-word",
        "p@ss-word",
        "a%2Bb-token-1",
        "a+b-token-1",
        "Bearer hdr-secret",
        "hdr-secret",
      ]),
    );
    expect(s).not.toContain("30000");
  });

  test("scrubSecrets removes known secrets from any text and secret params from ws URLs", () => {
    rememberSecrets(endpointSecrets("wss://h/?token=zz-known-token"));
    expect(scrubSecrets("closed: zz-known-token expired")).toBe("closed: *** expired");
    expect(scrubSecrets("see ws://other/x?apiKey=unknown-one&a=1 now")).toBe("see ws://other/x?apiKey=***&a=1 now");
    expect(scrubSecrets("https://example.com/?key=kept")).toBe("https://example.com/?key=kept");
    // A ws URL without credentials is left exactly as written.
    expect(scrubSecrets("see ws://EXAMPLE.com:80/a/../b?x=1 now")).toBe("see ws://EXAMPLE.com:80/a/../b?x=1 now");
  });
});
