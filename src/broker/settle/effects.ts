/** What an action caused, as its settler saw it; the settler is the one writer (Noted). */
export interface Effects {
  readonly navigation: boolean;
  readonly dialog: boolean;
  readonly popups: readonly string[];
  readonly requests: number;
  /** DOM mutations seen while waiting for quiet. */
  readonly mutations: number;
  /** Browser GUIDs of downloads the action started (a link that downloads is not a navigation). */
  readonly downloads: readonly string[];
  /** How many of them completed before the action settled. */
  readonly downloadsCompleted: number;
  /** A same-document navigation (#fragment, history.pushState): the URL changed, the document did not. */
  readonly urlChanged: boolean;
  /** The handlers of the action's press, click or key scheduled a timer: a change may come later. */
  readonly timed: boolean;
  /** The same for the pointer coming over an element: a hover-intent menu, a tooltip. */
  readonly timedOver: boolean;
}

/** The settler's own, writable view of its effects. */
export type Noted = { -readonly [K in keyof Effects]: Effects[K] extends readonly string[] ? string[] : Effects[K] };

export const noEffects = (): Noted => ({
  navigation: false,
  dialog: false,
  popups: [],
  requests: 0,
  mutations: 0,
  downloads: [],
  downloadsCompleted: 0,
  urlChanged: false,
  timed: false,
  timedOver: false,
});

export interface QuietPoll {
  quietFor: number;
  mutations: number;
  /** Animations the action began that are still running. */
  animating?: number;
  /** Rendered frames since the last mutation (-1: the page renders none). */
  framesQuiet?: number;
  /** A settle step's verdict (`capped`: it gave up at its time limit and observes the page as it is). */
  settled?: boolean;
  capped?: boolean;
}
