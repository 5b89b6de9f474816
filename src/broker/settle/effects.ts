/** What an action caused, as its watch (watch.ts) saw it. */
export interface Effects {
  navigation: boolean;
  dialog: boolean;
  popups: string[];
  requests: number;
  /** DOM mutations seen while waiting for quiet. */
  mutations: number;
  /** Browser GUIDs of downloads the action started (a link that downloads is not a navigation). */
  downloads: string[];
  /** How many of them completed before the action settled. */
  downloadsCompleted: number;
  /** A same-document navigation (#fragment, history.pushState): the URL changed, the document did not. */
  urlChanged: boolean;
  /** The handlers of the action's discrete input events (press, click, key) scheduled a timer (the settle said `timed`): a change may come later. */
  timed: boolean;
  /** The same for the pointer coming over an element (`timedOver`): a hover-intent menu, a tooltip. */
  timedOver: boolean;
}

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
