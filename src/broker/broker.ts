import { join } from "node:path";
import type { CallRequest } from "../protocol/wire.ts";
import { BpError } from "../shared/errors.ts";
import type { BpPaths } from "../shared/paths.ts";
import { scrubSecrets } from "../shared/secrets.ts";
import { setRemoteBrowser } from "./local-files.ts";
import { REMOTE_ENDED, remoteSessionEnded } from "./remote.ts";
import { type Agent, AgentRegistry } from "./agents.ts";
import { TabNumbers } from "./tab-numbers.ts";
import { BrowserConnection, type BrowserInfo } from "./browser.ts";
import { CommandRuntime } from "./commands/runtime.ts";
import type { BrokerState, HandlerTable, Invocation } from "./context/types.ts";
import { HandoffControl } from "./handoff/control.ts";
import { renderNotice } from "./handoff/notice.ts";
import { ViewerServer } from "./handoff/viewer.ts";
import { installNet, releaseNet } from "./net/index.ts";
import { withBrokerNotes } from "./reply-notes.ts";
import type { TargetRecord } from "./targets.ts";
import { awaitCommit } from "./pending-navigation.ts";
import { applyPolicy, followPolicy } from "./policy/apply.ts";
import { forgetBlocks, withBlocks } from "./policy/blocks.ts";
import { policyHome, refreshPolicy } from "./policy/current.ts";
import { admitCall } from "./policy/enforce.ts";

/** An agent that has not run a command for this long loses its tabs and control. */
const DEFAULT_LEASE_MS = 30 * 60_000;
/** How long a stopping broker tries to reach a browser it lost, to close what is ours there. */
const REATTACH_MS = 5_000;

/**
 * All agent state, in memory: the connected browser (one generation at a time), the agents
 * and their tabs, and the per-tab queues that keep commands on one tab in order. It is the
 * top of the broker: commands see it only as a BrokerState, and their table is passed in.
 */
export class Broker implements BrokerState {
  readonly agents: AgentRegistry;
  browser: BrowserConnection | undefined;
  generation = 0;
  lastActivity = Date.now();
  lastLoss: { reason: string; at: string; generation: number; detail?: string } | undefined;
  /** Where the last connected browser came from (launched, discovered, remote), for status's recovery. */
  lastSource: "discovered" | "launched" | "remote" | undefined;
  /** The last remote endpoint connected to, for 'bp connect --reconnect' (its headers are not kept). */
  lastRemote: { endpoint: string; headers: boolean; connectTimeoutMs: number } | undefined;
  private orphans:
    | { info: BrowserInfo; managed: Map<string, { creator: string; popup: boolean }>; pooled: string[] }
    | undefined;
  onStopRequested: ((reason: string) => void) | undefined;
  /** The file this broker started from was deleted or replaced (an upgrade): every reply says so. */
  executableReplaced = false;
  readonly leaseMs =
    Number(process.env.BROWSER_PILOT_LEASE_MS) > 0 ? Number(process.env.BROWSER_PILOT_LEASE_MS) : DEFAULT_LEASE_MS;
  private connecting: { id: string; endpoint: string; promise: Promise<BrowserConnection> } | undefined;
  /** Command records, deadlines, cancellation and idempotency (src/broker/commands). */
  readonly commands: CommandRuntime = new CommandRuntime(this);
  private readonly queues = new Map<string, Promise<unknown>>();
  /** Tabs handed to a person: the admission gate, control leases and handback notices. */
  readonly handoff: HandoffControl = new HandoffControl(this);
  /** The loopback live viewer for handed-off tabs (started on the first 'bp view'). */
  readonly viewer: ViewerServer = new ViewerServer(this);

  constructor(
    readonly paths: BpPaths,
    private readonly handlers: HandlerTable,
  ) {
    this.agents = new AgentRegistry(new TabNumbers(join(paths.home, "tab-ids")));
    policyHome(paths.home);
    void refreshPolicy();
    this.handoff.onReturning = (targetId, reason) => this.viewer.revokeTab(targetId, reason);
    this.handoff.onChanged = (targetId) => this.viewer.changed(targetId);
  }

  /**
   * No agent and nothing running. A browser bp launched does not keep the broker alive (it
   * goes with it, as the last agent's 'bp disconnect' would take it); a connection to the
   * person's own browser or a remote one does.
   */
  isIdle(): boolean {
    const browser = this.browser && !this.browser.closed ? this.browser : undefined;
    return (
      this.agents.size === 0 &&
      (browser === undefined || browser.info.source === "launched") &&
      this.connecting === undefined &&
      this.commands.activeCount === 0
    );
  }

  async call(raw: CallRequest): Promise<unknown> {
    this.lastActivity = Date.now();
    const handler = Object.hasOwn(this.handlers, raw.command) ? this.handlers[raw.command] : undefined;
    if (!handler)
      throw new BpError("invalid_argument", `Unknown command '${raw.command}'.`, { context: { field: "command" } });
    // Checked against the command's own schema, as the CLI checks them: a client that talks
    // to the socket directly gets the same invalid_argument, before anything happens.
    const bound = handler.bind(raw.args);
    // The host policy: read again if the file changed, then its word on this call, before anything runs.
    await followPolicy(
      () => this.browser,
      () => this.agents.all().map((a) => a.key),
    );
    const req: CallRequest = admitCall({ ...raw, args: bound.args }, handler.command);
    // A command past its deadline replies at once, but its handler may still be touching the
    // tab: it keeps the tab's admission until the handler itself has ended, so a handoff never
    // starts while it runs.
    let running: Promise<unknown> | undefined;
    const tracked: Invocation = { ...bound, run: (ctx) => (running = bound.run(ctx)) };
    try {
      return withBrokerNotes(
        req,
        this.withNotices(req, withBlocks(await this.commands.run(req, tracked), req.clientKey)),
        this.executableReplaced,
      );
    } finally {
      const release = () => this.handoff.finish(req.invocation);
      if (running) void running.then(release, release);
      else release();
      this.lastActivity = Date.now();
    }
  }

  /** The next reply of an agent after a handback of a tab it handed off or was blocked on says what changed. */
  private withNotices(req: CallRequest, reply: Record<string, unknown>): Record<string, unknown> {
    const pending = this.handoff.takeNotices(req.clientKey);
    const agent = this.agents.get(req.clientKey);
    if (!pending || !agent) return reply;
    const visible = new Set(this.visibleTabs(agent, req.tabAccess));
    const handbacks = pending.map((n) => renderNotice(n, agent, this.browser, (t) => visible.has(t)));
    // A copy: the stored reply of a request id must not repeat the notice on replay.
    return { ...reply, handbacks };
  }

  cancel(invocation: string): Promise<unknown> {
    return this.commands.cancelInvocation(invocation);
  }

  /**
   * Commands on one physical tab run one after another; different tabs run in parallel. A tab
   * waiting for a slow server's new page fails them fast (navigation_pending), except
   * `whileNavigating` ones that go elsewhere without reading the page.
   */
  exclusive<T>(targetId: string, fn: () => Promise<T>, opts: { whileNavigating?: true } = {}): Promise<T> {
    const prev = this.queues.get(targetId) ?? Promise.resolve();
    const guarded = async () => {
      this.handoff.assertQueueOpen(targetId);
      this.commands.enterLock();
      const rec = this.browser?.targets.byId.get(targetId);
      if (rec && !opts.whileNavigating) await awaitCommit(rec);
      return fn();
    };
    const run = prev.then(guarded, guarded);
    const tail = run.catch(() => undefined);
    this.queues.set(targetId, tail);
    void tail.then(() => {
      if (this.queues.get(targetId) === tail) this.queues.delete(targetId);
    });
    return run;
  }

  requireBrowser(): BrowserConnection {
    if (this.browser && !this.browser.closed) return this.browser;
    if (this.lastLoss?.reason === REMOTE_ENDED && this.lastRemote)
      throw remoteSessionEnded(this.lastRemote, this.lastLoss.detail);
    throw new BpError(
      "browser_disconnected",
      this.lastLoss ? `The browser connection was lost (${this.lastLoss.reason}).` : "No browser is connected.",
      {
        retryable: true,
        remediation: {
          code: "connect_browser",
          message: "Run 'bp connect' for a running browser or 'bp launch' to start one.",
          actionRequired: true,
        },
        ...(this.lastLoss ? { context: { reason: this.lastLoss.reason } } : {}),
      },
    );
  }

  /**
   * Throws broker_in_use when another browser is connected or being connected: callers check
   * before they start anything (a launch must not start a browser it then cannot use).
   */
  assertAvailableFor(id: string, endpoint?: string): void {
    if (this.browser && !this.browser.closed) {
      if (this.browser.info.id === id || (endpoint !== undefined && this.browser.info.endpoint === endpoint)) return;
      throw new BpError(
        "broker_in_use",
        `Already connected to ${this.browser.info.product}; agents share one browser at a time.`,
        {
          remediation: {
            code: "close_active_clients",
            message: "Run 'bp disconnect' in every agent first, then connect to the other browser.",
            actionRequired: true,
          },
        },
      );
    }
    if (this.connecting && this.connecting.id !== id && this.connecting.endpoint !== endpoint) {
      throw new BpError("broker_in_use", "Another connection attempt is in progress.", { retryable: true });
    }
  }

  /** Concurrent connects to one endpoint share one attempt: one socket, one Allow dialog. */
  async attach(info: BrowserInfo): Promise<{ conn: BrowserConnection; reused: boolean }> {
    this.assertAvailableFor(info.id, info.endpoint);
    if (this.browser && !this.browser.closed) return { conn: this.browser, reused: true };
    if (this.connecting) {
      if (this.connecting.endpoint !== info.endpoint)
        throw new BpError("broker_in_use", "Another connection attempt is in progress.", { retryable: true });
      return { conn: await this.connecting.promise, reused: true };
    }
    const generation = this.generation + 1;
    const promise = BrowserConnection.open(info, generation);
    this.connecting = { id: info.id, endpoint: info.endpoint, promise };
    try {
      const conn = await promise;
      this.generation = generation;
      this.browser = conn;
      this.lastLoss = undefined;
      this.lastSource = info.source;
      setRemoteBrowser(info.source === "remote");
      if (info.source === "remote")
        this.lastRemote = {
          endpoint: info.endpoint,
          headers: info.headers !== undefined,
          connectTimeoutMs: info.connectTimeoutMs ?? 8000,
        };
      conn.janitor.onOwned = (targetId, openerId) => {
        const rec = conn.targets.byId.get(targetId);
        const opener = openerId ? conn.targets.byId.get(openerId) : undefined;
        if (rec && rec.origin === "user_tab" && opener?.creator !== undefined) {
          rec.origin = "managed_popup";
          rec.creator = opener.creator;
        }
      };
      conn.onClosed = (reason) => this.onBrowserLost(conn, reason);
      installNet(conn, {
        home: this.paths.home,
        tabId: (key, targetId) => this.agents.get(key)?.idFor(targetId, conn.generation) ?? "",
        net: (key) => this.agents.get(key)?.net,
        peekNet: (key) => this.agents.get(key)?.netIfAny,
        downloadGuids: this.agents.downloadGuids,
        // Draining is still automation (admitted commands finish); human and returning are the person's.
        personal: (targetId) => {
          const phase = this.handoff.get(targetId)?.phase;
          return phase !== undefined && phase !== "draining";
        },
      });
      this.readopt(conn);
      await applyPolicy(conn, []);
      return { conn, reused: false };
    } finally {
      this.connecting = undefined;
    }
  }

  private onBrowserLost(conn: BrowserConnection, reason: string): void {
    if (this.browser !== conn) return;
    this.browser = undefined;
    // If only our connection died (the janitor, a network hop), the browser still holds the
    // tabs we made; remember them so the next connection to it owns them again.
    const managed = new Map<string, { creator: string; popup: boolean }>();
    for (const t of conn.targets.byId.values()) {
      if (t.origin !== "user_tab" && t.creator !== undefined && t.creator !== "")
        managed.set(t.targetId, { creator: t.creator, popup: t.origin === "managed_popup" });
    }
    // The launched browser's unused blank tab is ours too: left unowned it would pass for the person's.
    const pooled = [...conn.targets.byId.values()]
      .filter((t) => t.pooled === true && t.creator === "")
      .map((t) => t.targetId);
    this.orphans = { info: conn.info, managed, pooled };
    // A remote browser's socket is its session: services end the browser with it (and may
    // bill a new one for every socket), so its loss is the session's end, said as such.
    const remote = conn.info.source === "remote";
    this.lastLoss = {
      reason: remote ? REMOTE_ENDED : reason,
      at: new Date().toISOString(),
      generation: conn.generation,
      ...(remote ? { detail: scrubSecrets(reason.replace(/^remote: /, "")).slice(0, 200) } : {}),
    };
    this.handoff.dropGeneration(conn.generation);
    for (const agent of this.agents.all()) agent.selected = undefined;
  }

  /** Managed tabs of the last lost connection, adopted again by a new connection to the same endpoint. */
  private readopt(conn: BrowserConnection): void {
    const orphans = this.orphans;
    this.orphans = undefined;
    if (!orphans || orphans.info.endpoint !== conn.info.endpoint) return;
    for (const [targetId, { creator, popup }] of orphans.managed) {
      const rec = conn.targets.byId.get(targetId);
      if (!rec) continue;
      conn.janitor.own(targetId);
      rec.origin = popup ? "managed_popup" : "managed";
      rec.creator = creator;
      if (this.agents.get(creator)) rec.controller = creator;
    }
    for (const targetId of this.stillBlank(conn, orphans.pooled)) {
      conn.janitor.own(targetId);
      conn.targets.markManaged(targetId, "", true);
    }
  }

  /** Pooled tabs the person has not started using meanwhile. */
  private stillBlank(conn: BrowserConnection, pooled: string[]): string[] {
    return pooled.filter((id) => {
      const url = conn.targets.byId.get(id)?.url;
      return url === "about:blank" || url === "";
    });
  }

  /** Tabs this agent may address, in a stable order. */
  visibleTabs(agent: Agent, access: "all" | "own"): TargetRecord[] {
    const browser = this.browser;
    if (!browser) return [];
    return browser.targets
      .eligible()
      .filter((t) => !(t.pooled && t.creator === "") && !t.internal)
      .filter((t) => access === "all" || (t.origin !== "user_tab" && t.creator === agent.key));
  }

  /** Closes the agent's managed tabs and releases every tab it controls; user tabs stay open. */
  async releaseAgent(agent: Agent, expired = false): Promise<string[]> {
    const closed: string[] = [];
    // Its tabs under human control come back first, so no person is left on a tab that closes.
    for (const ep of this.handoff.all()) if (ep.by === agent.key) await this.handoff.end(ep.targetId, "agent_released");
    this.handoff.forgetAgent(agent.key);
    const browser = this.browser;
    if (browser) {
      for (const t of [...browser.targets.byId.values()]) {
        if (t.origin !== "user_tab" && t.creator === agent.key) {
          try {
            await browser.closeTarget(t);
            closed.push(agent.existingId(t.targetId) ?? t.targetId);
          } catch {
            // already gone
          }
        } else if (t.controller === agent.key) {
          delete t.controller;
        }
      }
    }
    this.agents.delete(agent.key, expired);
    forgetBlocks(agent.key);
    await releaseNet(this.browser, agent.key, this.paths.home, this.agents.downloadGuids).catch(() => undefined);
    return closed;
  }

  /** Expired leases give their tabs back. */
  sweep(): void {
    const now = Date.now();
    for (const agent of this.agents.all()) {
      // An agent waiting on a person is not idle.
      if (now - agent.lastUsed > this.leaseMs && !this.handoff.holds(agent.key) && !this.commands.busy(agent.key))
        void this.releaseAgent(agent, true);
    }
  }

  async shutdown(): Promise<void> {
    this.viewer.stop();
    const browser = this.browser ?? (await this.reattachOrphans());
    this.browser = undefined;
    // The janitor closes a launched browser only when nothing of the person's is left in it.
    if (browser) await browser.shutdown(false).catch(() => undefined);
  }

  /**
   * A lost connection (its janitor died, a keepalive gave up) leaves the browser running with
   * our tabs in it, and nobody would ever close them once this broker is gone: a broker
   * stopping then connects once more, only so a janitor owns those tabs and closes them, and
   * the browser with them when we launched it and the person has no tab in it. Never to a
   * browser found running on this machine: connecting there can raise the person's "allow
   * remote debugging" prompt, which only their own `bp connect` may do. Bounded, so a browser
   * that stopped answering cannot hold up the stop.
   */
  private async reattachOrphans(): Promise<BrowserConnection | undefined> {
    const orphans = this.orphans;
    // Nor to a remote one: a new socket there is a new (billed) session, never the lost one.
    if (
      !orphans ||
      orphans.info.source === "discovered" ||
      orphans.info.source === "remote" ||
      (orphans.info.source !== "launched" && orphans.managed.size === 0)
    )
      return undefined;
    try {
      const conn = await BrowserConnection.open(orphans.info, this.generation + 1, REATTACH_MS);
      for (const targetId of [...orphans.managed.keys(), ...this.stillBlank(conn, orphans.pooled)])
        if (conn.targets.byId.has(targetId)) conn.janitor.own(targetId);
      this.orphans = undefined;
      return conn;
    } catch {
      // The browser is gone (or refuses us): there is nothing left to close.
      return undefined;
    }
  }
}
