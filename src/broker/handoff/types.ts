/** The tab as control turned human; the handback notice is measured against it. */
export interface Baseline {
  url: string;
  title: string;
  /** A visible password or one-time-code field: the person is (still) at a sign-in step. */
  auth: boolean | undefined;
  /** Eligible page targets that existed at handoff. */
  tabs: Set<string>;
}

export interface Changes {
  url?: string;
  title?: string;
  authentication_surface?: "entered" | "left" | "present";
  /** Target ids of eligible tabs that appeared while the person had control. */
  newTargets: string[];
  closed?: true;
}
