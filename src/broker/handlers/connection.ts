import {
  connectAction,
  discoverBrowsers,
  matchBrowser,
  publicCandidate,
  withOwnId,
  type BrowserCandidate,
} from "../../discovery/index.ts";
import { BpError, invalidArgument } from "../../shared/errors.ts";
import { displayEndpoint } from "../../shared/secrets.ts";
import { publicCommand } from "../commands/store.ts";
import { BUILD_TARGET, VERSION } from "../../shared/version.ts";
import type { BrowserConnection } from "../browser.ts";
import { hasDisplay, launchBrowser, launchedBrowserId, sameExecutable, stopLaunched } from "../launch.ts";
import { REMOTE_ENDED, reconnectAdvice, remoteBrowser, remoteConnectError } from "../remote.ts";
import { profileChoiceNeeded } from "./profiles.ts";
import { policyStatus } from "../policy/current.ts";
import * as commands from "../../protocol/commands-connection.ts";
import { status as statusCommand } from "../../protocol/commands-status.ts";
import { defineHandler, type ReplyOf } from "../context/handler.ts";
import type { CallContext, Handler } from "../context/types.ts";
import { boundTitle, boundUrl } from "../../shared/page-strings.ts";

function browserSummary(conn: BrowserConnection) {
  const { info } = conn;
  return {
    id: info.id,
    product: info.product,
    ...(info.version ? { version: info.version } : {}),
    source: info.source,
    generation: conn.generation,
  };
}

const statusHandler = defineHandler(statusCommand)({
  async run(ctx) {
    const { broker, req } = ctx;
    const conn = broker.browser;
    const live = conn && !conn.closed ? conn : undefined;
    const agent = broker.agents.get(req.clientKey);
    const remoteLoss = !live && broker.lastLoss && broker.lastSource === "remote" ? broker.lastRemote : undefined;
    // After a remote loss the way back is that endpoint, not a local browser.
    const browsers =
      live || remoteLoss ? undefined : (await discoverBrowsers(callerDiscovery(req))).map(publicCandidate);
    const sel = agent?.selected ? conn?.targets.byId.get(agent.selected) : undefined;
    const tabs = agent
      ? broker.visibleTabs(agent, req.tabAccess).filter((t) => agent.existingId(t.targetId) !== undefined).length
      : 0;
    // Lean: no tab count of 0, no selectedTab when none is selected, no empty command lists,
    // no recovery unless one is required.
    const session = agent
      ? {
          state: "active" as const,
          ...(tabs > 0 ? { tabs } : {}),
          ...(sel
            ? {
                selectedTab: {
                  id: agent.existingId(sel.targetId) ?? "",
                  title: boundTitle(sel.title),
                  url: boundUrl(sel.url),
                },
              }
            : {}),
          // The profile this agent chose or last switched to (it may be stale after a reconnect).
          ...(agent.profile ? { profile: agent.profile.id } : {}),
        }
      : { state: "none" as const };
    const human = humanControl(ctx);
    // Commands still running, and ones whose outcome is unknown, so an agent knows what to inspect.
    const store = broker.commands.store;
    const active = store.list(req.clientKey, ["accepted", "dispatched"], 20).map(publicCommand);
    const uncertain = store.list(req.clientKey, ["unknown_outcome"], 20).map(publicCommand);
    const policy = policyStatus(req.clientKey);
    return {
      service: { state: "running", version: VERSION, target: BUILD_TARGET },
      browser: live ? browserSummary(live) : { state: "disconnected" },
      ...(browsers ? { browsers } : {}),
      session,
      ...(human.length > 0 ? { humanControl: human } : {}),
      ...(active.length > 0 || uncertain.length > 0
        ? { commands: { ...(active.length > 0 ? { active } : {}), ...(uncertain.length > 0 ? { uncertain } : {}) } }
        : {}),
      ...(policy ? { policy } : {}),
      ...(live
        ? {}
        : {
            recovery: remoteLoss
              ? remoteRecovery(remoteLoss, broker.lastLoss?.reason)
              : lostRecovery(broker.lastLoss, broker.lastSource, browsers ?? []),
          }),
    };
  },
});

/**
 * One rule for every command that looks for installed browsers: the caller's HOME and
 * XDG_CONFIG_HOME, as 'bp browsers' (run in the caller's shell) reads them, not the broker's
 * (the first shell that started it). A CLI of before 0.1.1 sends none: the broker's own.
 */
function callerDiscovery(req: CallContext["req"]): { env: Record<string, string | undefined> } {
  const d = req.discovery;
  if (!d) return { env: process.env };
  return { env: { ...process.env, HOME: d.home, XDG_CONFIG_HOME: d.xdgConfigHome } };
}

/**
 * What brings a browser back: the one that was lost comes back the way it came (a remote
 * endpoint by connecting to it again, a launched browser by launching), else what is installed.
 */
function remoteRecovery(remote: NonNullable<CallContext["broker"]["lastRemote"]>, reason: string | undefined) {
  return {
    required: true as const,
    code: "check_remote_endpoint",
    ...(reason === REMOTE_ENDED ? { reason: REMOTE_ENDED } : {}),
    action: "bp connect --reconnect",
    endpoint: displayEndpoint(remote.endpoint),
    message: reconnectAdvice(remote),
  };
}

function lostRecovery(
  loss: { reason: string } | undefined,
  source: string | undefined,
  browsers: Parameters<typeof connectAction>[0],
) {
  if (loss && source === "launched")
    return { required: true as const, code: "browser_disconnected", action: "bp launch" };
  return { required: true as const, code: "browser_disconnected", action: connectAction(browsers) };
}

/** Tabs under human control that the caller may address, in its own tab ids. */
function humanControl(ctx: CallContext): NonNullable<ReplyOf<typeof statusCommand.result>["humanControl"]> {
  const conn = ctx.broker.browser;
  // Status creates no agent state unless there is something to show in this agent's tab ids.
  if (!conn || conn.closed || ctx.broker.handoff.all().length === 0) return [];
  const agent = ctx.agent();
  const visible = new Set(ctx.broker.visibleTabs(agent, ctx.req.tabAccess).map((t) => t.targetId));
  return ctx.broker.handoff
    .all()
    .filter((ep) => ep.generation === conn.generation && visible.has(ep.targetId))
    .map((ep) => ({
      tab: agent.idFor(ep.targetId, conn.generation),
      phase: ep.phase,
      until: new Date(ep.endsAt).toISOString(),
      ...(ep.message !== undefined ? { message: ep.message } : {}),
      ...(ep.by === agent.key ? { yours: true } : {}),
    }));
}

/** 'connect --reconnect': the last remote endpoint; its headers must come again on stdin. */
function lastRemoteEndpoint(ctx: CallContext): string {
  const last = ctx.broker.lastRemote;
  if (!last) throw invalidArgument("reconnect", "No remote endpoint was connected in this broker; give --cdp-url.");
  if (last.headers && !ctx.req.secretHeaders) {
    throw invalidArgument(
      "headers",
      `${displayEndpoint(last.endpoint)} was connected with headers, which are not kept: pipe them again as JSON on stdin (echo '{"Authorization":"…"}' | bp connect --reconnect).`,
    );
  }
  return last.endpoint;
}

/** Chooses the browser to connect to among passive candidates; never guesses between several. */
function pickCandidate(all: BrowserCandidate[], filter: string | undefined): BrowserCandidate {
  const pool = filter ? matchBrowser(all, filter) : all;
  if (pool.length === 0) {
    throw new BpError(
      "browser_not_found",
      filter ? `No installed browser matches '${filter}'.` : "No Chromium-family browser was found.",
      {
        context: { field: "browser", ...(filter ? { filter } : {}) },
        remediation: {
          code: "select_supported_browser",
          message: "Run 'bp browsers' to see candidates, or 'bp launch' to start a Browser Pilot browser.",
          actionRequired: true,
        },
      },
    );
  }
  const connectable = pool.filter((c) => c.endpoint !== undefined && c.processState !== "not_running");
  if (connectable.length === 1 && connectable[0]) return connectable[0];
  if (connectable.length > 1) {
    throw new BpError(
      "invalid_argument",
      "Several browsers have remote debugging enabled; choose one with --browser.",
      {
        context: { field: "browser", candidates: connectable.map((c) => c.id) },
      },
    );
  }
  const first = pool[0];
  const remediation = first ? withOwnId(first) : undefined;
  throw new BpError(
    "browser_not_found",
    `${first?.product ?? "The browser"} is not reachable for remote debugging (${first?.state ?? "unknown"}).`,
    {
      retryable: true,
      context: { browser: first?.id, state: first?.state },
      ...(remediation ? { remediation } : {}),
    },
  );
}

const connectHandler = defineHandler(commands.connect)({
  async run(ctx, args) {
    const cdpUrl = args.reconnect ? lastRemoteEndpoint(ctx) : args["cdp-url"];
    if (cdpUrl !== undefined) {
      const timeoutMs = args["connect-timeout"];
      const info = remoteBrowser(cdpUrl, ctx.req.secretHeaders, timeoutMs);
      try {
        const { conn, reused } = await ctx.broker.attach(info);
        ctx.agent();
        return { browser: browserSummary(conn), ...(reused ? { reused } : {}), ...profileChoiceNeeded(ctx, conn) };
      } catch (err) {
        throw remoteConnectError(cdpUrl, err, timeoutMs);
      }
    }
    const candidate = pickCandidate(await discoverBrowsers(callerDiscovery(ctx.req)), args.browser);
    try {
      const { conn, reused } = await ctx.broker.attach({
        id: candidate.id,
        product: candidate.product,
        source: "discovered",
        endpoint: candidate.endpoint ?? "",
        userDataRoot: candidate.userDataRoot,
      });
      ctx.agent();
      return { browser: browserSummary(conn), ...(reused ? { reused } : {}), ...profileChoiceNeeded(ctx, conn) };
    } catch (err) {
      if (err instanceof BpError && err.code !== "browser_not_authorized") throw err;
      throw new BpError(
        "browser_not_authorized",
        `Could not connect to ${candidate.product}: ${(err as Error).message}`,
        {
          retryable: true,
          context: { browser: candidate.id },
          remediation: {
            code: "allow_remote_debugging",
            message:
              "If Chrome shows an 'Allow remote debugging' dialog, click Allow, then run 'bp connect' once more.",
            actionRequired: true,
          },
        },
      );
    }
  },
});

const launchHandler = defineHandler(commands.launch)({
  async run(ctx, args) {
    const headless = args.headless || !hasDisplay();
    const { profile, executable } = args;
    const existing = ctx.broker.browser;
    if (existing && !existing.closed && existing.info.source === "launched" && existing.info.profile === profile) {
      if (executable && !sameExecutable(executable, existing.info.executable)) throw executableUnused(profile);
      ctx.agent();
      return {
        browser: browserSummary(existing),
        reused: true,
        ...headlessNews(args.headless, existing.info.headless ?? headless),
      };
    }
    // Refused before anything starts: a browser launched only to be refused would stay behind.
    ctx.broker.assertAvailableFor(launchedBrowserId(profile));
    const { info, reused } = await launchBrowser(ctx.broker.paths, {
      profile,
      headless,
      signal: ctx.signal,
      ...(executable ? { executable } : {}),
    });
    if (reused && executable && !sameExecutable(executable, info.executable)) throw executableUnused(profile);
    let attached: { conn: BrowserConnection; reused: boolean };
    try {
      attached = await ctx.broker.attach(info);
    } catch (err) {
      // Another browser won a race for the broker meanwhile: the one started here is unused.
      if (!reused && info.launchedPid !== undefined && err instanceof BpError && err.code === "broker_in_use")
        stopLaunched(info.launchedPid);
      throw err;
    }
    if (!reused && !attached.reused) attached.conn.adoptInitialTabs();
    ctx.agent();
    return {
      browser: browserSummary(attached.conn),
      ...(reused || attached.reused ? { reused: true } : {}),
      ...headlessNews(args.headless, headless),
    };
  },
});

/** `--executable` picks what bp starts: a browser already running for the profile from another executable is reused as it is, so the flag would be ignored. */
function executableUnused(profile: string): BpError {
  return invalidArgument(
    "executable",
    `A browser bp launched for profile '${profile}' is already running and would be reused as it is; --executable applies only when bp starts one. Run 'bp launch' without it to use the running browser.`,
    { reason: "browser_running" },
  );
}

/** Lean: `headless` only when it is not what the agent asked for (no display, or a reused browser). */
function headlessNews(asked: boolean, actual: boolean): { headless?: boolean } {
  return asked === actual ? {} : { headless: actual };
}

const disconnectHandler = defineHandler(commands.disconnect)({
  async run(ctx) {
    const { broker, req } = ctx;
    const agent = broker.agents.get(req.clientKey);
    const closed = agent ? await broker.releaseAgent(agent) : [];
    // Any CLI of a compatible protocol may stop a broker no agent uses: after an upgrade the
    // old broker must not outlive every agent only because the file it started from changed.
    const stop = broker.agents.size === 0;
    if (stop) setTimeout(() => broker.onStopRequested?.("disconnect"), 20);
    const message = stop
      ? "Released this agent and stopped the broker."
      : `Released this agent; ${broker.agents.size} other agent(s) keep the broker running.`;
    // Lean: a count only when tabs were closed; the message only when it says more than brokerStopped.
    return {
      ...(closed.length > 0 ? { closedTabs: closed.length } : {}),
      ...(stop ? { brokerStopped: true as const } : { message }),
    };
  },
});

export const CONNECTION_HANDLERS: Handler[] = [statusHandler, connectHandler, launchHandler, disconnectHandler];
export type { CallContext };
