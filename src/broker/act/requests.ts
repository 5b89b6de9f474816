import { ActionPolls, type Clock, isRedirectHop, type NetEvents } from "../net/polling.ts";

/**
 * The requests an action starts, from the session's network events: the documents, XHRs and
 * fetches it is waited for, less the page's own polling (net/polling.ts). Part of the action's
 * watch (watch.ts), which reads `pending` and `responded`.
 */
export class ActionRequests {
  /** The action's requests still in flight. */
  readonly pending = new Set<string>();
  /** When the last of the action's requests ended (Date.now()); 0: none yet. */
  responded = 0;
  /** Requests to addresses the page polls, taken for the poll's and still in flight (a later start may show one was the action's). */
  private readonly background = new Set<string>();
  /** Told when the action's inputs go out and when it waits between them (its windows near an input). */
  readonly polls: ActionPolls;
  readonly offs: (() => void)[];

  /** `effects.requests` counts the action's requests. */
  constructor(session: NetEvents, effects: { requests: number }, poke: () => void, now?: Clock) {
    const polls = new ActionPolls(session, now);
    this.polls = polls;
    const done = (p: { requestId: string; timestamp: number }) => {
      polls.ended(p);
      this.background.delete(p.requestId);
      if (this.pending.delete(p.requestId)) this.responded = Date.now();
      poke();
    };
    this.offs = [
      () => polls.stop(),
      session.on("Network.requestWillBeSent", (p) => {
        // A redirect hop is the same request again: it was judged at its first start.
        if ((p.type !== "Document" && p.type !== "XHR" && p.type !== "Fetch") || isRedirectHop(p)) return;
        // A request to an address the page polls on its own is background unless it is shown to be this action's.
        const mine = p.type === "Document" ? [p.requestId] : polls.claim(p);
        if (!mine.includes(p.requestId)) this.background.add(p.requestId);
        for (const id of mine) {
          effects.requests++;
          // An earlier start, shown to be the action's only now, may have ended already: its response counts as landed.
          if (id === p.requestId || this.background.delete(id)) this.pending.add(id);
          else this.responded = Date.now();
        }
        poke();
      }),
      session.on("Network.loadingFinished", done),
      session.on("Network.loadingFailed", done),
    ];
  }
}
