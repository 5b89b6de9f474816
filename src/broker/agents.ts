/**
 * Per-client-key state: everything an agent has lives here, in broker memory only. Tab ids are
 * never reused (TabNumbers), so an old id can never address a different tab.
 */
import { TabNumbers } from "./tab-numbers.ts";
import type { TabObservation } from "./refs.ts";
import type { ProfileSelection } from "./profiles/route.ts";
import { newAgentNet, type AgentNet } from "./net/state.ts";

export interface AgentTabRef {
  id: string;
  targetId: string;
  generation: number;
}

export class Agent {
  readonly key: string;
  lastUsed = Date.now();
  selected: string | undefined;
  /** Profile for new managed tabs when no selected tab anchors one ('bp profile', or the tab switched to). */
  profile: ProfileSelection | undefined;
  /** This key's previous state ended by lease expiry; its old refs report "expired". */
  leaseExpired = false;
  /** Selected frame per tab (frame id), set by 'bp frame <n>'; absent means the top document. */
  readonly frames = new Map<string, string>();
  /** Latest observation per tab, for ref checks and --diff. */
  readonly observations = new Map<string, TabObservation>();
  private netState: AgentNet | undefined;
  private nextTab: number;
  private readonly byTarget = new Map<string, AgentTabRef>();
  private readonly byId = new Map<string, AgentTabRef>();

  constructor(
    key: string,
    firstTabNumber = 1,
    private readonly numbers: TabNumbers = new TabNumbers(undefined),
  ) {
    this.key = key;
    this.nextTab = firstTabNumber;
  }

  /** Journal, console, rules, credentials and downloads, made on first use. */
  get net(): AgentNet {
    return (this.netState ??= newAgentNet(this.key));
  }

  get netIfAny(): AgentNet | undefined {
    return this.netState;
  }

  get tabCounter(): number {
    return this.nextTab;
  }

  touch(): void {
    this.lastUsed = Date.now();
  }

  /** The id this key uses for a physical tab, assigned on first sight. */
  idFor(targetId: string, generation: number): string {
    const existing = this.byTarget.get(targetId);
    if (existing && existing.generation === generation) return existing.id;
    this.numbers.claim(this.nextTab);
    const ref: AgentTabRef = { id: `t${this.nextTab++}`, targetId, generation };
    this.byTarget.set(targetId, ref);
    this.byId.set(ref.id, ref);
    return ref.id;
  }

  resolve(id: string): AgentTabRef | undefined {
    return this.byId.get(id);
  }

  existingId(targetId: string): string | undefined {
    return this.byTarget.get(targetId)?.id;
  }

  forgetTarget(targetId: string): void {
    const ref = this.byTarget.get(targetId);
    if (!ref) return;
    this.byTarget.delete(targetId);
    this.observations.delete(targetId);
    this.frames.delete(targetId);
    // The id stays resolvable to a dead target: using it reports the tab as gone, not another tab.
    if (this.selected === targetId) this.selected = undefined;
  }
}

export class AgentRegistry {
  private readonly agents = new Map<string, Agent>();
  /** Tab counters of released keys, so a returning key never sees a reused id. */
  private readonly counters = new Map<string, number>();
  private readonly expired = new Set<string>();
  /** Browser download GUIDs and the agent's record each belongs to; "conflict" when claimed twice. */
  readonly downloadGuids = new Map<string, { owner: string; id: string } | "conflict">();

  constructor(readonly numbers: TabNumbers = new TabNumbers(undefined)) {}

  /** A well-formed id numbered below this broker's first: it was an earlier broker's. */
  fromEarlierBroker(id: string): boolean {
    const n = Number(id.slice(1));
    return /^t\d+$/.test(id) && n < this.numbers.base;
  }

  get(key: string): Agent | undefined {
    return this.agents.get(key);
  }

  getOrCreate(key: string): Agent {
    let agent = this.agents.get(key);
    if (!agent) {
      agent = new Agent(key, this.counters.get(key) ?? this.numbers.base, this.numbers);
      agent.leaseExpired = this.expired.delete(key);
      this.agents.set(key, agent);
    }
    agent.touch();
    return agent;
  }

  /** `expired`: the lease ran out (not an explicit disconnect), so old refs say so. */
  delete(key: string, expired = false): void {
    const agent = this.agents.get(key);
    if (!agent) return;
    this.counters.set(key, agent.tabCounter);
    this.agents.delete(key);
    if (expired) this.expired.add(key);
  }

  all(): Agent[] {
    return [...this.agents.values()];
  }

  get size(): number {
    return this.agents.size;
  }
}
