import { describe, expect, test } from "bun:test";
import { AgentRegistry } from "./agents.ts";
import { forgetDownloads } from "./net/downloads.ts";
import { needsFetch, takeUrlCredentials } from "./net/state.ts";

describe("an agent's network state lives on the agent", () => {
  test("it goes with the agent: a key that comes back starts with an empty journal, no rules and no credentials", () => {
    const agents = new AgentRegistry();
    const a = agents.getOrCreate("k1");
    expect(a.netIfAny).toBeUndefined();
    a.net.journal.add({
      tab: "t1",
      targetId: "T",
      requestId: "r1",
      method: "GET",
      url: "https://h.test/",
      type: "xhr",
      startedAt: 0,
    });
    a.net.auth = { username: "u", password: "p" };
    expect(takeUrlCredentials(a.net, "https://x:y@h.test/")).toBe("https://h.test/");
    expect(needsFetch("k1", a.netIfAny)).toEqual({ on: true, auth: true });
    expect(agents.getOrCreate("k2").netIfAny).toBeUndefined();
    agents.delete("k1");
    const back = agents.getOrCreate("k1");
    expect(back.netIfAny).toBeUndefined();
    expect(back.net.journal.query({ limit: 10 }).entries).toEqual([]);
    expect(needsFetch("k1", back.netIfAny)).toEqual({ on: false, auth: false });
  });

  test("download claims are the registry's and an agent's go when it is released", () => {
    const agents = new AgentRegistry();
    agents.downloadGuids.set("g1", { owner: "k1", id: "dl1" });
    agents.downloadGuids.set("g2", { owner: "k2", id: "dl1" });
    agents.downloadGuids.set("g3", "conflict");
    forgetDownloads(agents.downloadGuids, "k1");
    expect([...agents.downloadGuids.keys()]).toEqual(["g2", "g3"]);
  });
});
