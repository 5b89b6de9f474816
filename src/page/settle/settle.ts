/** The waits of the quiet watcher, run in the page on its own frames and mutation records, so the broker spends no message on polling. */
import { hrNow } from "./input.ts";
import { childFrames, foreignFrame, scheduledSince } from "./frames.ts";
import { heldOf, install, type Measure, type QuietArg, type QuietPoll, type Watcher } from "./quiet.ts";
import { reply, watched, type Watched } from "./watched.ts";
import { pageScheduled } from "./ledger.ts";
import { laterCause } from "./later-cause.ts";
import { frameLoop, type FrameLoop } from "./loop.ts";
import type { ActWindow } from "../act/dom.ts";

export function late(w: Watched, arg: QuietArg): Promise<{ changed: boolean }> {
  const { win, sts } = w;
  const windowMs = Number(arg.windowMs) || 0;
  const m0 = w.measure(0).mutations,
    f0 = w.measure(0).frames,
    tl = Date.now();
  const frames = Math.round(windowMs / 17);
  return new Promise((resolve) => {
    let done = false,
      timer = 0;
    const check = (): void => {
      if (done) return;
      const p = w.measure(0),
        el = Date.now() - tl;
      const changed = p.mutations > m0;
      const rendered = p.framesQuiet < 0 || p.frames - f0 >= frames;
      if (changed || el >= 2 * windowMs || (el >= windowMs && rendered)) {
        done = true;
        for (const s of sts) s.wake = null;
        win.clearTimeout(timer);
        // Kept (or lingering) either way: a request the page started may still bring the change.
        if (arg.finish) w.finish();
        else if (Number(arg.linger) > 0) w.linger(Number(arg.linger));
        resolve({ changed });
      } else {
        win.clearTimeout(timer);
        timer = win.setTimeout(check, Math.max(10, windowMs - el));
      }
    };
    for (const s of sts) s.wake = check;
    check();
  });
}

/** How long after the input a change that came before the settle call is taken as the page's own (half a frame). */
const LATE_CHANGE_MS = 8;
/**
 * A script animation (jQuery's `animate`) can skip a frame's change when its rounded value holds; this many quiet
 * frames, and this long, tell it ended. Timed too: the first frames after an idle page come closer than a display's
 * interval, and an eased start holds its rounded value over three of them (jQuery UI's accordion).
 */
const SCRIPT_ANIMATION_FRAMES = 3;
const SCRIPT_ANIMATION_MS = 50;

export function settle(
  w: Watched,
  arg: QuietArg,
): Promise<
  QuietPoll & {
    settled?: true;
    capped?: true;
    timed?: true;
    timedOver?: true;
    answered?: true;
    overDuring?: true;
    scripted?: true;
    looped?: true;
  }
> {
  const { win, sts } = w;
  const quietFor = Number(arg.quietFor) || 0,
    frames = Number(arg.frames) || 0,
    max = Number(arg.max) || 0;
  const syncQuietFor = Number(arg.syncQuietFor) || 0;
  const ts = Date.now(),
    before = w.measure(Number(arg.after)).mutations,
    fs = w.measure(0).frames;
  // The floor runs from the action's last input event when the page saw one, or from the last response to a request it started when that came later.
  const hs = hrNow(win);
  const response = arg.sinceResponse !== undefined ? Math.min(hs, hs - Math.max(0, Number(arg.sinceResponse) || 0)) : 0;
  // The frame rule's frame comes after the action's last input and after the last response.
  const lastInput = Math.max(w.inputHr, w.editHr);
  let frameAfter = Math.max(lastInput, response);
  // Without a fixed floor the page's ledger decides.
  const ledger = syncQuietFor === 0;
  const typing = ledger && arg.click !== true;
  const timerFloor = Math.max(0, Number(arg.timerQuietFor) || 0);
  const scheduled = (): boolean => sts.some((s) => pageScheduled(win, s.marks));
  // An action whose input this document never saw while it holds a child frame may have set its timers on that frame's counters.
  const unseen = ledger && !typing && w.inputHr === 0 && childFrames(win);
  // The timer floor when the page set a timer since the arm (or may have, on a child frame's counters).
  const ledgerFloor = (): number => (timerFloor > 0 && (unseen || scheduled()) ? timerFloor : 0);
  let floor = !ledger ? syncQuietFor : ledgerFloor();
  const cause = typing ? lastInput : w.inputHr;
  let from = Math.max(cause > 0 && cause <= hs ? cause : hs, response);
  // Changes that came well after the input but before this call are the page changing on its own, not the dispatch's own handlers.
  const late = cause > 0 && sts.some((s) => s.lastHr - from > LATE_CHANGE_MS);
  let base = late ? 0 : before;
  let rebased: "answer" | "over" | undefined;
  // The page's own steps from an animation-frame loop of its (jQuery's animate) end with the loop (loop.ts), not
  // 50 ms later; judged in a document of its own (a child frame's loop runs on its own counters) and by the ledger.
  const loopable = ledger && sts.length === 1 && !childFrames(win);
  let loop: FrameLoop | undefined = loopable ? frameLoop(win, sts[0] as Watcher, base, !late) : undefined;
  // A click's change right after an answer to the page's own request, or after the pointer crossed into an element,
  // is that cause's own: settled from it as when it came before this call (later-cause.ts). Typing is settled
  // from its last key (the broker sends it no response either).
  const rebase = (p: Measure): boolean => {
    if (!ledger || typing || p.mutations <= base) return false;
    const c = laterCause(win, sts, from, LATE_CHANGE_MS);
    if (!c) return false;
    from = c.at;
    frameAfter = Math.max(frameAfter, c.at);
    base = p.mutations;
    // The page changed: a floor held only because the click had changed nothing yet no longer applies.
    floor = ledgerFloor();
    // What the floor's own timer and the idle task told was about the old cause.
    timed = false;
    bounded = false;
    idleHr = 0;
    framedHr = 0;
    rebased = rebased === "answer" ? "answer" : c.kind;
    loop = loopable ? frameLoop(win, sts[0] as Watcher, base, true) : undefined;
    return true;
  };
  const framedSince = (): boolean => {
    for (const s of sts) if (s.tickHr > frameAfter) return true;
    return false;
  };
  // The floor's frame, and a click's frame after a change that touched no node (a checkbox toggled, a select set):
  // one after the cause (an input event the page took, our setter's edit, or a response) is enough when no frame
  // callback of the page's (nor a child frame's) waits for the next one, also when it rendered before this call (the
  // watchers ask for a frame at each input event and change, between the dispatch and this call). Text that changed nothing has its own
  // quicker end (`frameless`). A settle again after a response (the watchers stop ticking between settles) then needs
  // no frame of its own when one rendered after the response during the call before.
  const framedOnce = (): boolean => frameAfter > 0 && framedSince() && !childFrames(win) && !foreignFrame(win);
  // The next task without a timer's clamp (a timer set from a timer past the fifth is held 4 ms).
  const channel = win.MessageChannel ? new win.MessageChannel() : undefined;
  const nextTask = channel ? () => channel.port2.postMessage(0) : undefined;
  // Typing into a visible page that did nothing observable since the watcher was armed.
  const frameless = typing && floor === 0 && win.document.visibilityState === "visible" && !childFrames(win);
  const idle = (p: Measure): boolean => p.mutations === 0 && !foreignFrame(win) && !scheduled();
  // `idle`: after its frame the frame rule also waits for a task of ours that runs only once the main thread has no other task pending.
  const idleWait =
    ledger &&
    arg.idle === true &&
    (typeof win.scheduler?.postTask === "function" || typeof win.requestIdleCallback === "function");
  let idleAsked = false,
    idleHr = 0,
    framedHr = 0,
    bounded = false,
    timed = false,
    // The settle was held at least once for an animation by script (bench/phases.ts).
    scripted = false,
    // Ended with the page's animation-frame loop (bench/phases.ts).
    looped = false;
  return new Promise((resolve) => {
    let done = false,
      timer = 0,
      pending = false,
      fromTimer = false,
      looked = false;
    const end = (p: ReturnType<Watched["measure"]>, extra: { settled: true; capped?: true }): void => {
      done = true;
      if (channel) channel.port1.onmessage = null;
      for (const s of sts) s.wake = null;
      win.clearTimeout(timer);
      if (arg.finish) w.finish();
      else if (Number(arg.linger) > 0) w.linger(Number(arg.linger));
      // `timed`, `timedOver`: the action's input handlers scheduled a timer.
      resolve({
        ...reply(p, extra),
        ...(w.timedHr > 0 ? { timed: true as const } : {}),
        ...(w.timedOverHr > 0 ? { timedOver: true as const } : {}),
        // `answered`, `overDuring`: settled from an answer or the pointer's over events that came during this call (bench/phases.ts).
        ...(rebased === "answer"
          ? { answered: true as const }
          : rebased === "over"
            ? { overDuring: true as const }
            : {}),
        ...(scripted ? { scripted: true as const } : {}),
        ...(looped ? { looped: true as const } : {}),
      });
    };
    const askIdle = (): void => {
      if (idleAsked || done) return;
      idleAsked = true;
      const ran = (): void => {
        idleAsked = false;
        if (done) return;
        idleHr = hrNow(win);
        check();
      };
      // An idle callback's id is ours in the ledger (its wrapper keeps it).
      if (win.scheduler?.postTask) void win.scheduler.postTask(ran, { priority: "background" }).catch(() => undefined);
      else win.requestIdleCallback?.(ran);
    };
    const check = (): void => {
      pending = false;
      const byTimer = fromTimer;
      fromTimer = false;
      if (done) return;
      // Whether this look runs in a task after the call's own (the first look runs inside it).
      const later = looked;
      looked = true;
      const now = Date.now(),
        p = w.measure(0),
        el = now - ts;
      rebase(p);
      loop?.look(p.mutations);
      const sinceCause = hrNow(win) - from;
      // A click (any action but typing) that changed nothing yet is held to the floor too; a checkbox or radio it
      // toggled, or a native select `select` set, that still shows the new state is a change (one a controlled widget
      // put back is not: its own state may come later).
      if (floor === 0 && ledger && timerFloor > 0 && (scheduled() || (!typing && p.mutations === 0 && !w.toggled())))
        floor = timerFloor;
      // A timer the action started that is due before the floor's end must have run when the floor ends.
      if (byTimer && sinceCause >= floor - 1) timed = true;
      const moved = p.mutations > base;
      let ok: boolean;
      let idling = false;
      if (p.animating > 0) ok = false;
      else if (!moved && frameless && later && idle(p)) ok = true;
      else if (!moved) {
        ok =
          p.framesQuiet < 0
            ? el >= quietFor
            : floor > 0
              ? sinceCause >= floor && (p.frames - fs >= 1 || framedOnce())
              : (p.mutations > 0 ? p.framesQuiet >= 1 : p.frames - fs >= 1 || (!typing && framedOnce())) &&
                framedSince();
        // An inline style changed a frame or two ago and the page asked for another frame: an animation by script is still running.
        if (
          ok &&
          p.framesQuiet >= 0 &&
          (p.styleQuiet < SCRIPT_ANIMATION_FRAMES || p.styleQuietMs < SCRIPT_ANIMATION_MS) &&
          foreignFrame(win)
        ) {
          ok = false;
          scripted = true;
        }
        if (ok && floor === 0 && idleWait && p.framesQuiet >= 0) {
          // The frame's time: an idle task that began after it saw what the frame started.
          if (framedHr === 0) for (const s of sts) framedHr = Math.max(framedHr, s.tickHr);
          idling = idleHr <= framedHr && !(byTimer && bounded);
          ok = !idling;
          if (idling) askIdle();
        }
      } else {
        ok = p.quietFor >= quietFor && (p.framesQuiet < 0 || p.framesQuiet >= frames);
        // The loop's last frame asked for no next one: settled once a task of ours ran after that frame, as the frame
        // rule is, and not before the floor of a timer the action's handlers set.
        if (!ok && loop && p.framesQuiet >= 1 && sinceCause >= floor && loop.ended()) {
          let lastFrame = 0;
          for (const s of sts) lastFrame = Math.max(lastFrame, s.tickHr);
          if (idleWait && idleHr <= lastFrame) askIdle();
          else ok = looped = true;
        }
      }
      if (ok && !moved && floor > 0 && p.framesQuiet >= 0 && !timed) {
        win.clearTimeout(timer);
        timer = win.setTimeout(onTimer, 1);
        return;
      }
      if (ok) {
        end(p, { settled: true });
        return;
      }
      if (el >= max) {
        end(p, { settled: true, capped: true });
        return;
      }
      // Look again after the next frame's task, or by time when the page renders no frames.
      win.clearTimeout(timer);
      // Waiting for our idle task: at the latest when the floor would have ended, at its end or in a timer task of ours after the frame, as the floor's end is.
      if (idling) {
        timer = win.setTimeout(onTimer, Math.max(1, Math.ceil(Math.min(max - el, timerFloor - sinceCause))));
        bounded = true;
        return;
      }
      const wait = moved
        ? quietFor - p.quietFor
        : p.framesQuiet < 0
          ? quietFor - el
          : floor > 0
            ? floor - sinceCause
            : quietFor - el;
      // The floor's end is known to the fraction of a ms.
      const floorLeft =
        !moved && p.framesQuiet >= 0 && floor > 0 && p.animating === 0 ? Math.min(max - el, floor - sinceCause) : 0;
      // Until a timer of ours ran at the floor's last whole ms, the fraction waits on a timer too.
      if (floorLeft > 0 && floorLeft < 1 && nextTask && timed) nextTask();
      else
        timer = win.setTimeout(
          onTimer,
          floorLeft > 0
            ? nextTask
              ? Math.max(1, Math.floor(floorLeft))
              : Math.ceil(floorLeft)
            : Math.max(5, Math.min(max - el, wait)),
        );
      // Frameless typing looks again in the next task, not after the frame.
      if (frameless && !later && !moved && p.mutations === 0) wake();
    };
    const onTimer = (): void => {
      fromTimer = true;
      check();
    };
    // A frame or a mutation wakes the check; the task after it runs once the frame's own callbacks have.
    const wake = (): void => {
      if (!pending && !done) {
        pending = true;
        if (nextTask) nextTask();
        else win.setTimeout(check, 0);
      }
    };
    for (const s of sts) s.wake = wake;
    if (channel) channel.port1.onmessage = check;
    win.clearTimeout(timer);
    timer = win.setTimeout(onTimer, quietFor);
    // Without a time floor the frame that follows the change may already have run (this call is a task after it).
    check();
  });
}

/** "hold" (after a focusing click, before its focus is proved). */
export function hold(w: Watched, arg: QuietArg): { scheduled?: true } | Promise<{ scheduled: true }> {
  const { win, sts } = w;
  if (!sts.some((s) => scheduledSince(win, s.marks))) return {};
  const floor = Math.max(0, Number(arg.timerQuietFor) || 0),
    hs = hrNow(win);
  const from = w.inputHr > 0 && w.inputHr <= hs ? w.inputHr : hs;
  return new Promise((resolve) => {
    const step = (): void => {
      const left = floor - (hrNow(win) - from);
      if (left <= 0) resolve({ scheduled: true });
      else win.setTimeout(step, Math.max(1, Math.ceil(left)));
    };
    step();
  });
}

/** The quiet watcher as the page runtime calls it: install, poll, settle, late or hold. */
export function pageQuiet(
  win: ActWindow,
  arg: QuietArg,
): QuietPoll | { scheduled?: true } | Promise<unknown> | true | null {
  const held = heldOf(win);
  if (arg.op === "install") return install(win, held, Number(arg.id));
  const ids = arg.ids || [];
  const sts: Watcher[] = [];
  for (const id of ids) {
    const s = held[id];
    if (s) sts.push(s);
  }
  if (!sts.length) return null;
  // Any later call on these watchers cancels a pending linger.
  for (const s of sts) {
    s.linger = (s.linger || 0) + 1;
    if (arg.op === "late" || arg.op === "settle") s.resume();
  }
  const w = watched(win, held, ids, sts);
  if (arg.op === "late") return late(w, arg);
  if (arg.op === "settle") return settle(w, arg);
  if (arg.op === "hold") return hold(w, arg);
  const p = w.measure(Number(arg.after));
  if (arg.finish) w.finish();
  return reply(p);
}
