import { describe, expect, test } from "bun:test";
import { BpError } from "../shared/errors.ts";
import { coversPattern, originVerdict, parseOriginPattern, patternMatches } from "./policy-match.ts";
import { deniedBy, parsePolicy, rulesFor } from "./policy.ts";

async function invalid(text: string): Promise<string> {
  try {
    await parsePolicy(text);
  } catch (err) {
    expect(err).toBeInstanceOf(BpError);
    expect((err as BpError).code).toBe("policy_invalid");
    return String((err as BpError).context?.field);
  }
  throw new Error("expected policy_invalid");
}

describe("origin patterns", () => {
  test("parse and match", () => {
    expect(patternMatches("example.com", "https://example.com/a")).toBe(true);
    expect(patternMatches("example.com", "http://example.com:8080/")).toBe(true);
    expect(patternMatches("example.com", "https://a.example.com/")).toBe(false);
    expect(patternMatches("*.example.com", "https://a.b.example.com/")).toBe(true);
    expect(patternMatches("*.example.com", "https://example.com/")).toBe(true);
    expect(patternMatches("*.example.com", "https://badexample.com/")).toBe(false);
    expect(patternMatches("https://example.com", "http://example.com/")).toBe(false);
    expect(patternMatches("http://127.0.0.1:8080/app/*", "http://127.0.0.1:8080/app/x?y=1")).toBe(true);
    expect(patternMatches("http://127.0.0.1:8080/app/*", "http://127.0.0.1:8081/app/x")).toBe(false);
    expect(patternMatches("http://127.0.0.1:8080/app/*", "http://127.0.0.1:8080/other")).toBe(false);
    expect(patternMatches("data:", "data:text/html,hi")).toBe(true);
    expect(patternMatches("example.com", "data:text/html,hi")).toBe(false);
    expect(patternMatches("*", "ftp://x/")).toBe(false);
    expect(patternMatches("example.com", "blob:https://example.com/0b1c")).toBe(true);
    expect(patternMatches("[::1]:9000", "http://[::1]:9000/")).toBe(true);
  });

  test("patterns that do not parse say why", () => {
    for (const bad of [
      "",
      " a.com",
      "a b",
      "ht tp://x",
      "exa_mple.com",
      "*x.com",
      "a.com:99999",
      "a.com:abc",
      "a.com/**",
      "1://x",
      "*.*",
    ]) {
      expect(parseOriginPattern(bad).error).toBeDefined();
    }
  });

  test("about:blank always passes; deny beats allow; every allow list must hold", () => {
    const rules = { allow: [["*.test"], ["a.test"]], block: ["a.test/admin*"] };
    expect(originVerdict(rules, "about:blank")).toBeUndefined();
    expect(originVerdict(rules, "https://a.test/x")).toBeUndefined();
    expect(originVerdict(rules, "https://b.test/x")?.rule).toBe("origins.allow");
    expect(originVerdict(rules, "https://a.test/admin/1")).toEqual({ rule: "origins.deny", entry: "a.test/admin*" });
    expect(originVerdict(rules, "not a url")?.rule).toBe("origins.allow");
  });

  test("cover: a narrower pattern inside a wider one", () => {
    expect(coversPattern("*.example.com", "a.example.com")).toBe(true);
    expect(coversPattern("*.example.com", "https://*.a.example.com/x")).toBe(true);
    expect(coversPattern("https://a.com/*", "https://a.com/app/*")).toBe(true);
    expect(coversPattern("a.example.com", "*.example.com")).toBe(false);
    expect(coversPattern("https://a.com", "a.com")).toBe(false);
    expect(coversPattern("a.com:80", "a.com")).toBe(false);
    expect(coversPattern("a.com/app/*", "a.com")).toBe(false);
  });
});

describe("policy file", () => {
  test("a valid file, narrowed per key", async () => {
    const p = await parsePolicy(
      JSON.stringify({
        deny: ["eval", "cookies --values"],
        origins: { allow: ["*.test"], deny: ["evil.test"] },
        files: { uploadDirs: ["/srv/up"], downloads: { maxBytes: 1000 } },
        keys: {
          bot: {
            deny: ["net"],
            origins: { allow: ["a.test"] },
            tabAccess: "own",
            files: { uploadDirs: ["/srv/up/bot"], downloads: "off" },
          },
        },
      }),
    );
    expect(p.digest).toMatch(/^[0-9a-f]{12}$/);
    const g = rulesFor(p, "other");
    expect(g.deny).toEqual(["eval", "cookies --values"]);
    expect(g.tabAccess).toBeUndefined();
    const b = rulesFor(p, "bot");
    expect(b.deny).toEqual(["eval", "cookies --values", "net"]);
    expect(b.allow).toEqual([["*.test"], ["a.test"]]);
    expect(b.tabAccess).toBe("own");
    expect(b.uploadDirs).toEqual(["/srv/up/bot"]);
    expect(b.downloads).toBe("off");
    expect(deniedBy(b, "net mock", {})).toBe("net");
    expect(deniedBy(g, "net mock", {})).toBeUndefined();
    expect(deniedBy(g, "cookies", { values: false })).toBeUndefined();
    expect(deniedBy(g, "cookies", { values: true })).toBe("cookies --values");
    expect(deniedBy(g, "evaluate", {})).toBeUndefined();
  });

  test("bad input fails closed, naming the field", async () => {
    expect(await invalid("{")).toBe("policy");
    expect(await invalid("[]")).toBe("policy");
    expect(await invalid(JSON.stringify({ denny: ["eval"] }))).toBe("denny");
    expect(await invalid(JSON.stringify({ deny: ["evall"] }))).toBe("deny[0]");
    expect(await invalid(JSON.stringify({ deny: ["cookies --valuez"] }))).toBe("deny[0]");
    expect(await invalid(JSON.stringify({ deny: ["eval; rm"] }))).toBe("deny[0]");
    expect(await invalid(JSON.stringify({ origins: { allow: ["ok.test", "bad pattern"] } }))).toBe("origins.allow[1]");
    expect(await invalid(JSON.stringify({ tabAccess: "some" }))).toBe("tabAccess");
    expect(await invalid(JSON.stringify({ files: { uploadDirs: ["rel/dir"] } }))).toBe("files.uploadDirs[0]");
    expect(await invalid(JSON.stringify({ files: { downloads: { maxBytes: -1 } } }))).toBe("files.downloads.maxBytes");
  });

  test("a key that widens a global rule is refused", async () => {
    expect(await invalid(JSON.stringify({ tabAccess: "own", keys: { k: { tabAccess: "all" } } }))).toBe(
      "keys.k.tabAccess",
    );
    expect(
      await invalid(
        JSON.stringify({ origins: { allow: ["a.test"] }, keys: { k: { origins: { allow: ["b.test"] } } } }),
      ),
    ).toBe("keys.k.origins.allow[0]");
    expect(
      await invalid(JSON.stringify({ files: { uploadDirs: ["/a"] }, keys: { k: { files: { uploadDirs: ["/b"] } } } })),
    ).toBe("keys.k.files.uploadDirs[0]");
    expect(
      await invalid(JSON.stringify({ files: { downloads: "off" }, keys: { k: { files: { downloads: "on" } } } })),
    ).toBe("keys.k.files.downloads");
    expect(
      await invalid(
        JSON.stringify({
          files: { downloads: { maxBytes: 10 } },
          keys: { k: { files: { downloads: { maxBytes: 11 } } } },
        }),
      ),
    ).toBe("keys.k.files.downloads");
  });
});
