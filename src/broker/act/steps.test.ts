/**
 * The pipeline's dispatch and settle stages without a browser: the page runtime runs in happy-dom behind the fake CDP
 * server (test/support/fake-tab.ts), an action is a small ActionDef, and every settle it gets is logged at the
 * settler's one entry, Settler.settle. Asserted on the order of inputs and settles, never on how long they took.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { delay, type FakeTab, fakeTab } from "../../../test/support/fake-tab.ts";
import { BpError } from "../../shared/errors.ts";
import type { BrowserConnection } from "../browser.ts";
import type { Selected } from "../context/tabs.ts";
import type { CallContext } from "../context/types.ts";
import { InputSpans } from "../settle/requests/input-spans.ts";
import { type ReplyPolicy, Settler, type StepPolicy } from "../settle/settler.ts";
import { CompositePin } from "./pin.ts";
import { type ActionDef, type ActionRun, runAction, runDispatch } from "./pipeline.ts";

const tabs: FakeTab[] = [];
const restore: (() => void)[] = [];
afterEach(async () => {
  for (const r of restore.splice(0)) r();
  for (const t of tabs.splice(0)) await t.close();
});

/** Logs each settle as "step" or "reply" (with a step's policy), then runs it. */
function logSettles(log: string[]): void {
  const settle = Settler.prototype.settle;
  Settler.prototype.settle = function (this: Settler, policy: StepPolicy | ReplyPolicy<unknown>) {
    log.push("reply" in policy ? "reply" : `step${policy.typing ? " typing" : ""}`);
    return settle.call(this, policy as never);
  } as Settler["settle"];
  restore.push(() => {
    Settler.prototype.settle = settle;
  });
}

/** A tab, and the call context and selection an action runs with (one agent, its own tab, no deadline near). */
async function setup(): Promise<{ tab: FakeTab; ctx: CallContext; sel: Selected }> {
  const tab = await fakeTab("<p>Hello</p>");
  tabs.push(tab);
  const browser = Object.assign(tab.browser, {
    targets: { byId: new Map([[tab.rec.targetId, tab.rec]]) },
    session: async () => tab.session,
  }) as BrowserConnection;
  const sel = { browser, rec: tab.rec, id: "t1", agent: { observations: new Map() } } as unknown as Selected;
  const ctx = {
    broker: { browser, exclusive: (_id: string, fn: () => Promise<unknown>) => fn() },
    signal: new AbortController().signal,
    deadline: Date.now() + 30_000,
    markDispatched: () => undefined,
  } as unknown as CallContext;
  return { tab, ctx, sel };
}

/** An action of the test's own, answering with what its dispatch or steps returned (no observation). */
function action<S>(sel: Selected, def: Pick<ActionDef<void, void, S, { sent: S }>, "dispatch" | "steps">) {
  const full: ActionDef<void, void, S, { sent: S }> = {
    ...def,
    args: () => undefined,
    tab: () => sel,
    armQuiet: true,
    evidence: (_run, sent) => ({ sent }),
  };
  return full;
}

/** One input, as an action sends it: a DOM change the page's quiet watcher sees. */
function change(run: ActionRun<void>, tab: FakeTab, log: string[], name: string): Promise<void> {
  return run.watch.input(async () => {
    log.push(name);
    tab.window.document.body.append(tab.window.document.createElement("div"));
  }, true);
}

describe("pipeline: composite steps and the reply's settle", () => {
  test("a two-step action settles after its first step and once before the reply", async () => {
    const { tab, ctx, sel } = await setup();
    const log: string[] = [];
    logSettles(log);
    const out = await runAction(
      ctx,
      action(sel, {
        async *steps(run) {
          await change(run, tab, log, "input 1");
          yield {};
          await change(run, tab, log, "input 2");
          return "done";
        },
      }),
      undefined,
      false,
    );
    expect(log).toEqual(["input 1", "step", "input 2", "reply"]);
    expect(out).toEqual({ sent: "done" });
  });

  test("steps that settled after their last input get no second settle; a plain dispatch always does", async () => {
    const { tab, ctx, sel } = await setup();
    const log: string[] = [];
    logSettles(log);
    await runAction(
      ctx,
      action(sel, {
        async *steps(run) {
          await change(run, tab, log, "input 1");
          yield { typing: true };
          await change(run, tab, log, "input 2");
          yield {};
          return "read after the settle";
        },
      }),
      undefined,
      false,
    );
    expect(log).toEqual(["input 1", "step typing", "input 2", "step"]);

    log.length = 0;
    // Steps that send nothing (a disabled option) have nothing to settle.
    await runAction(
      ctx,
      action(sel, {
        // biome-ignore lint/correctness/useYield: a composite action that returns before its first input
        async *steps() {
          return "refused";
        },
      }),
      undefined,
      false,
    );
    expect(log).toEqual([]);

    await runAction(
      ctx,
      action(sel, {
        dispatch: async (run) => {
          await change(run, tab, log, "input");
          return "sent";
        },
      }),
      undefined,
      false,
    );
    expect(log).toEqual(["input", "reply"]);
  });

  test("a step's `also` runs in its settle call and its results come back to the step", async () => {
    const { tab, sel, ctx } = await setup();
    const watch = new Settler(sel.browser, sel.rec, tab.session);
    restore.push(() => watch.stop());
    await watch.ready;
    await watch.armQuiet();
    const run = { ctx, sel, args: undefined, top: tab.session, watch, target: undefined } as ActionRun<void>;
    const { sent, settled } = await runDispatch(run, {
      async *steps() {
        await change(run, tab, [], "input");
        const also = yield { also: [{ fn: "quiet", arg: { op: "install", id: 1e9 } }] };
        return also?.length;
      },
    });
    expect(sent).toBe(1);
    expect(settled).toBe(true);
  });

  test("a composite's inputs are its steps, a typing one's lead-in too; a plain dispatch is its input", async () => {
    const { tab, ctx, sel } = await setup();
    const seen: string[] = [];
    const spans = { dispatching: InputSpans.prototype.dispatching, stepping: InputSpans.prototype.stepping };
    InputSpans.prototype.dispatching = function (this: InputSpans, stepwise?: boolean) {
      seen.push(stepwise ? "dispatch: steps only" : "dispatch: near an input");
      spans.dispatching.call(this, stepwise);
    };
    InputSpans.prototype.stepping = function (this: InputSpans, text?: boolean) {
      seen.push("step");
      spans.stepping.call(this, text);
    };
    restore.push(() => Object.assign(InputSpans.prototype, spans));
    const steps = {
      async *steps(run: ActionRun<void>) {
        await change(run, tab, [], "input");
        yield {};
        return "sent";
      },
    };
    await runAction(ctx, action(sel, steps), undefined, false);
    await runAction(ctx, { ...action(sel, steps), typing: true }, undefined, false);
    await runAction(
      ctx,
      action(sel, { dispatch: async (run) => void (await change(run, tab, [], "input")) }),
      undefined,
      false,
    );
    expect(seen).toEqual([
      "dispatch: steps only",
      "step",
      "dispatch: near an input",
      "step",
      "dispatch: near an input",
      "step",
    ]);
  });

  test("a navigation in step 1 stops the remaining steps at the pin check, and the steps' cleanup runs", async () => {
    const { tab, ctx, sel } = await setup();
    const log: string[] = [];
    logSettles(log);
    let pin: CompositePin | undefined;
    let disposed = false;
    const run = runAction(
      ctx,
      action(sel, {
        async *steps(r) {
          pin = await CompositePin.prepared(
            ctx,
            sel,
            r.watch,
            r.top,
            frameOf(tab),
            "tok",
            "keyboard",
            "https://t1.test/",
          );
          try {
            await pin.step(
              "key:1",
              ["key:2"],
              async () => {
                log.push("key 1");
                tab.emit("Page.frameRequestedNavigation", {
                  frameId: "T1",
                  reason: "formSubmissionGet",
                  url: "https://t1.test/next",
                  disposition: "currentTab",
                });
                await tab.flush();
              },
              { fresh: true },
            );
            yield {};
            await pin.step("key:2", [], async () => void log.push("key 2"), { fresh: true });
            return "typed";
          } finally {
            pin.dispose();
            disposed = true;
          }
        },
      }),
      undefined,
      false,
    );
    // The step's settle waits for the new document to load.
    await delay(100);
    tab.emit("Page.lifecycleEvent", { frameId: "T1", loaderId: "L2", name: "load", timestamp: 1 });
    const err = await run.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(BpError);
    expect((err as BpError).code).toBe("unknown_outcome");
    expect((err as BpError).context).toMatchObject({
      reason: "navigation",
      completedSteps: ["key:1"],
      remainingStepsStopped: ["key:2"],
    });
    expect(log).toEqual(["key 1", "step"]);
    expect(disposed).toBe(true);
  });

  test("a settle that fails ends the steps through their own cleanup, and the error reaches the caller", async () => {
    const { tab, ctx, sel } = await setup();
    const settle = Settler.prototype.settle;
    Settler.prototype.settle = (() => Promise.reject(new Error("settle failed"))) as Settler["settle"];
    restore.push(() => {
      Settler.prototype.settle = settle;
    });
    const log: string[] = [];
    const err = await runAction(
      ctx,
      action(sel, {
        async *steps(run) {
          try {
            await change(run, tab, log, "input 1");
            yield {};
            await change(run, tab, log, "input 2");
            return "done";
          } finally {
            log.push("cleanup");
          }
        },
      }),
      undefined,
      false,
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((err as Error).message).toBe("settle failed");
    expect(log).toEqual(["input 1", "cleanup"]);
  });
});

function frameOf(tab: FakeTab) {
  return { session: tab.session, frameId: tab.rec.targetId, offset: { x: 0, y: 0 } };
}
