/**
 * The ownership proof of a page opened from inside a profile. Real Chromium (in
 * test/e2e/profiles.test.ts) shows the path that works; only a scripted browser can show a
 * window that carries our marker but fails the other checks, so this one is a fake.
 */
import { describe, expect, test } from "bun:test";
import type { Protocol } from "devtools-protocol";
import { CdpError } from "../../cdp/errors.ts";
import type { BpError } from "../../shared/errors.ts";
import { TargetTable } from "../targets.ts";
import { createPageInProfile, type PageFactory } from "./create.ts";

interface Script {
  /** createTarget with a browserContextId fails as Chrome's does for a person's profile. */
  refuseContext?: boolean;
  /** Context the browser puts a created target in. */
  createdIn?: string;
  /** What the page opened by window.open looks like. */
  popup?: { opener?: string; name?: string; context?: string };
}

type Listener = (p: { targetInfo: Protocol.Target.TargetInfo }) => void;

function fakeBrowser(script: Script) {
  const targets = new TargetTable();
  targets.upsert({
    targetId: "USER",
    type: "page",
    title: "Mail",
    url: "https://mail.example/",
    attached: false,
    canAccessOpener: false,
    browserContextId: "CTX-2",
  });
  const sent: string[] = [];
  const closed: string[] = [];
  const info = new Map<string, Protocol.Target.TargetInfo>();
  const listeners = new Set<Listener>();
  let popupName = "";
  async function send(method: string, params: Record<string, unknown> = {}): Promise<unknown> {
    sent.push(method);
    switch (method) {
      case "Target.createTarget":
        if (params.browserContextId !== undefined && script.refuseContext)
          throw new CdpError(method).fill(
            -32000,
            `Failed to find browser context with id ${String(params.browserContextId)}`,
            undefined,
          );
        info.set("NEW", {
          targetId: "NEW",
          type: "page",
          title: "",
          url: "about:blank",
          attached: false,
          canAccessOpener: false,
          browserContextId: script.createdIn ?? String(params.browserContextId),
        });
        return { targetId: "NEW" };
      case "Target.getTargetInfo":
        return { targetInfo: info.get(String(params.targetId)) };
      case "Target.closeTarget":
        closed.push(String(params.targetId));
        return { success: true };
      case "Target.attachToTarget":
        return { sessionId: "S1" };
      case "Runtime.evaluate":
        return { result: { type: "string", value: params.expression === "window.name" ? popupName : undefined } };
      case "Browser.getWindowForTarget":
        return { windowId: 1, bounds: { width: 1280, height: 800 } };
      default:
        return {};
    }
  }
  const f: PageFactory = {
    cdp: {
      send: send as PageFactory["cdp"]["send"],
      on: ((_method: string, handler: Listener) => {
        listeners.add(handler);
        return () => {
          listeners.delete(handler);
        };
      }) as unknown as PageFactory["cdp"]["on"],
    },
    targets,
    async runInPage(rec, _source, arg) {
      const { url, name } = arg as { url: string; name: string };
      const p = script.popup ?? {};
      popupName = p.name ?? name;
      const created: Protocol.Target.TargetInfo = {
        targetId: "POP",
        type: "page",
        title: "",
        url,
        attached: false,
        canAccessOpener: false,
        openerId: p.opener ?? rec.targetId,
        browserContextId: p.context ?? "CTX-2",
      };
      info.set("POP", created);
      queueMicrotask(() => {
        for (const l of listeners) l({ targetInfo: created });
      });
      return true;
    },
  };
  return { f, sent, closed };
}

async function attempt(script: Script, contextId = "CTX-2") {
  const b = fakeBrowser(script);
  const owned: string[] = [];
  let error: BpError | undefined;
  let result: Awaited<ReturnType<typeof createPageInProfile>> | undefined;
  try {
    result = await createPageInProfile(b.f, { contextId, creator: "agent", own: (id) => owned.push(id) });
  } catch (err) {
    error = err as BpError;
  }
  return { ...b, owned, error, result };
}

describe("createPageInProfile", () => {
  test("a context createTarget accepts: one background window, owned, verified", async () => {
    const r = await attempt({});
    expect(r.result).toEqual({ targetId: "NEW", popup: false });
    expect(r.owned).toEqual(["NEW"]);
  });

  test("createTarget puts it elsewhere: closed again, nothing registered", async () => {
    const r = await attempt({ createdIn: "CTX-1" });
    expect(r.error?.code).toBe("profile_context_unavailable");
    expect(r.closed).toEqual(["NEW"]);
  });

  test("a person's profile: opened from inside it when marker, opener, name and context all match", async () => {
    const r = await attempt({ refuseContext: true });
    expect(r.result).toEqual({ targetId: "POP", popup: true });
    expect(r.owned).toEqual(["POP"]);
    expect(r.closed).toEqual([]);
  });

  for (const [what, popup] of [
    ["another opener", { opener: "SOMEONE-ELSE" }],
    ["another window name", { name: "page-chosen" }],
    ["another profile", { context: "CTX-1" }],
  ] as const) {
    test(`a window with our marker but ${what} is not ours: owned only to be closed`, async () => {
      const r = await attempt({ refuseContext: true, popup });
      expect(r.error?.code).toBe("unknown_outcome");
      expect(r.owned).toEqual(["POP"]);
      expect(r.closed).toEqual(["POP"]);
    });
  }

  test("a profile with no web page to open from fails before sending anything more", async () => {
    const r = await attempt({ refuseContext: true }, "CTX-9");
    expect(r.error?.code).toBe("profile_context_unavailable");
    expect(r.sent).toEqual(["Target.createTarget"]);
  });
});
