import { describe, expect, test } from "bun:test";
import { currentCallScope } from "../../cdp/scope.ts";
import type { CallRequest } from "../../protocol/wire.ts";
import {
  CdpAbortedError,
  type CdpBaseError,
  CdpClosedError,
  CdpError,
  CdpSessionClosedError,
  CdpTimeoutError,
} from "../../cdp/errors.ts";
import { printFailure } from "../handlers/capture.ts";
import { BpError } from "../../shared/errors.ts";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolvePaths } from "../../shared/paths.ts";
import { Broker } from "../broker.ts";
import type { Invocation } from "../context/types.ts";

const broker = () =>
  new Broker(resolvePaths({ BROWSER_PILOT_HOME: join(mkdtempSync(join(tmpdir(), "bp-runtime-")), "home") }), {});

let n = 0;
function req(over: Partial<CallRequest> = {}): CallRequest {
  return {
    op: "call",
    token: "t",
    protocol: 1,
    clientKey: "agent-a",
    command: "eval",
    args: { expression: "x" },
    invocation: `inv-${++n}`,
    timeoutMs: 5_000,
    tabAccess: "all",
    mode: "json",
    executable: { version: "0", identity: "i" },
    ...over,
  };
}

const gate = () => {
  let open!: () => void;
  const p = new Promise<void>((r) => {
    open = r;
  });
  return { p, open };
};

describe("command runtime", () => {
  test("a request id runs once: a duplicate waits for and returns the same reply", async () => {
    const b = broker();
    let runs = 0;
    const g = gate();
    const h: Invocation = {
      mutating: true,
      run: async () => {
        runs++;
        await g.p;
        return { value: runs };
      },
    };
    const first = b.commands.run(req({ requestId: "R1" }), h);
    const second = b.commands.run(req({ requestId: "R1" }), h);
    g.open();
    const [a, c] = await Promise.all([first, second]);
    const third = await b.commands.run(req({ requestId: "R1", args: { expression: "x" } }), h);
    expect(runs).toBe(1);
    expect(a).toEqual({ ok: true, value: 1 });
    expect(c).toEqual(a);
    expect(third).toEqual(a);
    expect(b.commands.store.list("agent-a", undefined, 10)).toHaveLength(1);
  });

  test("the same request id with other arguments or command is invalid_argument requestId", async () => {
    const b = broker();
    const h: Invocation = { run: async () => ({}) };
    await b.commands.run(req({ requestId: "R2" }), h);
    const other = await b.commands.run(req({ requestId: "R2", args: { expression: "y" } }), h);
    expect(other).toMatchObject({ ok: false, code: "invalid_argument", context: { field: "requestId" } });
    const otherCmd = await b.commands.run(req({ requestId: "R2", command: "snapshot" }), h);
    expect(otherCmd).toMatchObject({ ok: false, code: "invalid_argument", context: { field: "requestId" } });
    // Another key may use the same request id for its own call.
    expect(
      await b.commands.run(req({ requestId: "R2", clientKey: "agent-b", args: { expression: "y" } }), h),
    ).toMatchObject({ ok: true });
  });

  test("a transport timeout or a lost connection is said in the command's terms, never internal_error", async () => {
    const b = broker();
    const timedOut: Invocation = {
      run: async () => {
        throw new CdpTimeoutError("Runtime.evaluate", 10);
      },
    };
    expect(await b.commands.run(req(), timedOut)).toMatchObject({ ok: false, code: "command_expired" });
    const closed: Invocation = {
      run: async () => {
        throw new CdpClosedError("Runtime.evaluate", "socket closed", true);
      },
    };
    expect(await b.commands.run(req(), closed)).toMatchObject({ ok: false, code: "browser_disconnected" });
    const detached: Invocation = {
      run: async () => {
        throw new CdpSessionClosedError("Runtime.evaluate", "S1", "target detached", true);
      },
    };
    expect(await b.commands.run(req(), detached)).toMatchObject({
      ok: false,
      code: "tab_not_found",
      context: { reason: "target_closed" },
    });
    // The handler's CDP calls see the command's own deadline.
    let seen: number | undefined;
    const probe: Invocation = {
      run: async () => {
        seen = currentCallScope()?.deadline;
        return {};
      },
    };
    const before = Date.now();
    await b.commands.run(req({ timeoutMs: 1_234 }), probe);
    expect(seen).toBeGreaterThanOrEqual(before + 1_234);
    expect(seen).toBeLessThan(before + 1_234 + 1_000);
  });

  test("a request read after its caller's deadline never runs: command_expired in its record", async () => {
    const b = broker();
    let runs = 0;
    const click: Invocation = {
      mutating: true,
      run: async () => {
        runs++;
        return {};
      },
    };
    const late = await b.commands.run(req({ command: "click", deadlineAt: Date.now() - 1 }), click);
    expect(late).toMatchObject({ ok: false, code: "command_expired", context: { reason: "late" } });
    expect(runs).toBe(0);
    expect(b.commands.store.list("agent-a", undefined, 10).map((r) => [r.method, r.status])).toEqual([
      ["click", "expired"],
    ]);
    // The caller's deadline bounds the run too, when it comes before the timeout from now.
    let seen: number | undefined;
    const probe: Invocation = {
      run: async () => {
        seen = currentCallScope()?.deadline;
        return {};
      },
    };
    const at = Date.now() + 700;
    await b.commands.run(req({ timeoutMs: 5_000, deadlineAt: at }), probe);
    expect(seen).toBe(at);
  });

  test("deadline before dispatch is command_expired; after dispatch of a mutation unknown_outcome", async () => {
    const b = broker();
    const hold = gate();
    const blocker: Invocation = {
      mutating: true,
      dispatch: "lock",
      run: () => b.exclusive("T", () => hold.p.then(() => ({}))),
    };
    const queued: Invocation = {
      mutating: true,
      dispatch: "lock",
      run: () => b.exclusive("T", async () => ({ ran: true })),
    };
    const first = b.commands.run(req({ timeoutMs: 150 }), blocker);
    const second = b.commands.run(req({ timeoutMs: 80 }), queued);
    expect(await second).toMatchObject({ ok: false, code: "command_expired" });
    expect(await first).toMatchObject({ ok: false, code: "unknown_outcome", context: { cause: "deadline" } });
    hold.open();
    const statuses = b.commands.store.list("agent-a", undefined, 10).map((r) => r.status);
    expect(statuses).toEqual(["expired", "unknown_outcome"]);
  });

  test("cancel: accepted (queued) is cancelled and never runs; dispatched is best effort", async () => {
    const b = broker();
    const hold = gate();
    let ran = false;
    const blocker: Invocation = {
      mutating: true,
      dispatch: "lock",
      run: (ctx) =>
        b.exclusive("T", () =>
          Promise.race([hold.p, new Promise<void>((r) => ctx.signal.addEventListener("abort", () => r()))]).then(
            () => ({}),
          ),
        ),
    };
    const queued: Invocation = {
      mutating: true,
      dispatch: "lock",
      run: () =>
        b.exclusive("T", async () => {
          ran = true;
          return {};
        }),
    };
    const r1 = req();
    const r2 = req();
    const first = b.commands.run(r1, blocker);
    const second = b.commands.run(r2, queued);
    await Bun.sleep(10);
    const [rec2, rec1] = b.commands.store.list("agent-a", undefined, 10);
    expect(rec1?.status).toBe("dispatched");
    expect(rec2?.status).toBe("accepted");
    b.commands.cancelRecord(rec2!);
    expect(rec2?.status).toBe("cancelled");
    expect(await second).toMatchObject({ ok: false, code: "command_cancelled" });
    expect(await b.cancel(r1.invocation)).toMatchObject({
      ok: true,
      cancelled: true,
      command: { status: "unknown_outcome", cancellationRequested: true },
    });
    expect(await first).toMatchObject({ ok: false, code: "unknown_outcome", context: { cancellationRequested: true } });
    expect(rec1?.status).toBe("unknown_outcome");
    await Bun.sleep(10);
    expect(ran).toBe(false);
  });

  test("a read cancelled after dispatch is cancelled; errors keep their code", async () => {
    const b = broker();
    const r = req({ command: "snapshot" });
    const read: Invocation = { run: () => new Promise(() => undefined) };
    const p = b.commands.run(r, read);
    await b.cancel(r.invocation);
    expect(await p).toMatchObject({ ok: false, code: "command_cancelled" });
    const failing: Invocation = {
      mutating: true,
      run: async () => {
        throw new BpError("stale_ref", "gone");
      },
    };
    expect(await b.commands.run(req(), failing)).toMatchObject({ ok: false, code: "stale_ref" });
    // With no browser when the command was accepted, nothing can have reached one: not
    // unknown_outcome (losing a connected browser is, see test/e2e/reliability.test.ts).
    const lost: Invocation = {
      mutating: true,
      run: async () => {
        throw new BpError("browser_disconnected", "lost");
      },
    };
    expect(await b.commands.run(req(), lost)).toMatchObject({ ok: false, code: "browser_disconnected" });
    expect(b.commands.store.list("agent-a", ["cancelled"], 10)).toHaveLength(1);
  });

  test("CDP transport failures of a read are public codes, never internal_error", async () => {
    const b = broker();
    const cases: [CdpBaseError, string][] = [
      [new CdpTimeoutError("DOM.describeNode", 30_000), "command_expired"],
      [new CdpClosedError("DOM.describeNode", "janitor_exited", true), "browser_disconnected"],
      [new CdpSessionClosedError("DOM.describeNode", "S1", "target_closed", true), "tab_not_found"],
      [new CdpAbortedError("DOM.describeNode", true, "cancel"), "command_cancelled"],
    ];
    for (const [err, code] of cases) {
      const read: Invocation = {
        run: async () => {
          throw err;
        },
      };
      expect(await b.commands.run(req({ command: "snapshot" }), read)).toMatchObject({
        ok: false,
        code,
        context: { cause: `cdp_${err.kind}` },
      });
    }
  });

  test("protocol errors of a page that went away are tab_not_found or stale_ref, never internal_error", async () => {
    const b = broker();
    const protocolError = (method: string, message: string) => new CdpError(method).fill(-32000, message, undefined);
    const cases: [CdpError, string, string, boolean][] = [
      [
        protocolError("Page.getNavigationHistory", "Not attached to an active page"),
        "tab_not_found",
        "target_closed",
        false,
      ],
      [
        protocolError("Target.attachToTarget", "No target with given id found"),
        "tab_not_found",
        "target_closed",
        false,
      ],
      [
        protocolError("Runtime.evaluate", "Inspected target navigated or closed"),
        "stale_ref",
        "document_replaced",
        true,
      ],
      [
        protocolError("Runtime.callFunctionOn", "Cannot find context with specified id"),
        "stale_ref",
        "document_replaced",
        true,
      ],
    ];
    for (const [err, code, reason, retryable] of cases) {
      const read: Invocation = {
        run: async () => {
          throw err;
        },
      };
      expect(await b.commands.run(req({ command: "read" }), read)).toMatchObject({
        ok: false,
        code,
        retryable,
        context: { reason },
      });
    }
    // Any other protocol error is still a defect to report.
    const other: Invocation = {
      run: async () => {
        throw protocolError("DOM.describeNode", "Something new");
      },
    };
    expect(await b.commands.run(req({ command: "read" }), other)).toMatchObject({ ok: false, code: "internal_error" });
  });

  test("a dispatched mutation whose document was replaced is unknown_outcome", async () => {
    const b = broker();
    const mutate: Invocation = {
      mutating: true,
      run: async () => {
        throw new CdpError("Runtime.evaluate").fill(-32000, "Inspected target navigated or closed", undefined);
      },
    };
    expect(await b.commands.run(req({ command: "eval" }), mutate)).toMatchObject({
      ok: false,
      code: "unknown_outcome",
      context: { cause: "document_replaced" },
    });
  });

  test("a failed print is capability_denied print_failed (retryable); a page gone mid-print is left to the runtime", () => {
    const failed = printFailure(new CdpError("Page.printToPDF").fill(-32000, "Printing failed", undefined));
    expect(failed).toBeInstanceOf(BpError);
    expect((failed as BpError).toJSON()).toMatchObject({
      code: "capability_denied",
      retryable: true,
      context: { reason: "print_failed" },
    });
    const gone = new CdpError("Page.printToPDF").fill(-32000, "Inspected target navigated or closed", undefined);
    expect(printFailure(gone)).toBe(gone);
    const timeout = new CdpTimeoutError("Page.printToPDF", 1000);
    expect(printFailure(timeout)).toBe(timeout);
  });

  test("status and the record commands themselves get no record", async () => {
    const b = broker();
    await b.commands.run(req({ command: "status" }), { run: async () => ({}) });
    expect(b.commands.store.size).toBe(0);
  });
});
