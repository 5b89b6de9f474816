import * as v from "valibot";
import { TAB_ID, tabIdArg, tabSchema } from "./common.ts";
import { defineCommand, flag, ok, okPlain, once, optText, text } from "./define.ts";
import { openText, withLook } from "./human-snapshot.ts";
import { lookArgs } from "./look-args.ts";
import { observationSchemas } from "./observation.ts";
import { closeText, historyText, profileText, profilesText, tabReleaseText, tabText, tabsText } from "./human.ts";

/** Lean: the selected tab is not named; url and title only when they changed; navigated only when false (no entry to go to). */
/** A dialog the page opened while it loaded: the navigation answered as it opened. */
const loadDialog = () =>
  v.optional(
    v.pipe(
      v.object({ id: v.string(), type: v.string(), message: v.string() }),
      v.description(
        "A dialog the page opened while loading (the load waits on it); answer it with 'bp dialog <id> --accept|--dismiss'",
      ),
    ),
  );

/**
 * With a look: the page's observation beside the navigation's fields (its title and url are the navigation's own; its
 * hints, the page's and the watchdogs', as a snapshot's: so these results are okPlain).
 */
const lookResult = () => {
  const { title: _title, url: _url, urlTruncated: _cut, ...observation } = observationSchemas().observation;
  return observation;
};

const navResult = once(() =>
  okPlain({
    dialog: loadDialog(),
    url: v.optional(v.pipe(v.string(), v.description("New URL (absent: unchanged)"))),
    title: v.optional(v.pipe(v.string(), v.description("New title (absent: unchanged)"))),
    navigated: v.optional(
      v.pipe(
        v.literal(false),
        v.description("There was no history entry to go to; nothing happened (a look still shows the page)"),
      ),
    ),
    ...lookResult(),
  }),
);

export const tabs = defineCommand({
  name: "tabs",
  group: "Tabs and navigation",
  summary: "List tabs this agent can address (managed, managed_popup, user_tab)",
  args: () => v.object({}),
  result: () => ok({ tabs: v.array(tabSchema) }),
  example: "bp tabs",
  runs: "broker",
  human: tabsText,
});

export const tab = defineCommand({
  name: "tab",
  group: "Tabs and navigation",
  summary: "Select a tab and take control of it",
  positionals: ["id"],
  args: () => v.object({ id: tabIdArg("Tab id from 'bp tabs'") }),
  result: () =>
    ok({
      tab: v.pipe(
        v.omit(tabSchema, ["id", "selected", "control"]),
        v.description("The tab now selected and controlled by this agent"),
      ),
    }),
  example: "bp tab t2",
  runs: "broker",
  human: tabText,
});

export const tabRelease = defineCommand({
  name: "tab release",
  group: "Tabs and navigation",
  summary: "Give up control of a tab (default: the selected one) so another agent may take it",
  positionals: ["id"],
  args: () =>
    v.object({
      id: v.optional(
        v.pipe(
          v.string(),
          v.regex(TAB_ID, "Tab ids look like t1, t2, …"),
          v.description("Tab id (default: selected tab)"),
        ),
      ),
    }),
  result: () =>
    ok({ released: v.optional(v.pipe(v.string(), v.description("The tab released, when none was named"))) }),
  example: "bp tab release t2",
  runs: "broker",
  human: tabReleaseText,
});

export const open = defineCommand({
  name: "open",
  topFlag: "new",
  group: "Tabs and navigation",
  summary: "Navigate the selected tab, or a new background tab (--new: managed by this agent)",
  positionals: ["url"],
  aliases: { n: "new" },
  args: () =>
    v.object({
      url: text("URL; https:// is added when it has no scheme"),
      new: flag("Open in a new managed tab (its own background window)"),
      profile: optText("Profile for the new tab, from 'bp profiles' (implies --new)"),
      ...lookArgs(),
    }),
  result: () =>
    okPlain({
      tab: v.optional(
        v.pipe(
          v.string(),
          v.description("Only for a new tab (--new, --profile, or no tab was selected): its id, now selected"),
        ),
      ),
      profile: v.optional(v.string()),
      url: v.optional(v.pipe(v.string(), v.description("Only when not the URL given (a scheme added, a redirect)"))),
      title: v.string(),
      dialog: loadDialog(),
      ...lookResult(),
    }),
  example: "bp open example.com --new --text",
  runs: "broker",
  human: openText,
  mutating: true,
});

const profileSummary = v.object({
  id: v.string(),
  label: v.string(),
  /** A context made over CDP by some tool, not one of the person's profiles. */
  kind: v.optional(v.literal("context")),
  name: v.optional(v.string()),
  account: v.optional(v.string()),
  email: v.optional(v.string()),
  directory: v.optional(v.string()),
  identity: v.optional(
    v.picklist([
      "profile_path_unavailable",
      "profile_path_unverified",
      "local_state_unavailable",
      "profile_metadata_missing",
    ]),
  ),
  selected: v.optional(v.literal(true)),
  tabCount: v.number(),
  /** Up to three; absent when the agent can address none there. */
  tabs: v.optional(v.array(v.object({ id: v.string(), title: v.string(), url: v.string() }))),
});

export const profiles = defineCommand({
  name: "profiles",
  group: "Tabs and navigation",
  summary: "The browser's open profiles (passive; --identify opens a page per profile)",
  args: () =>
    v.object({
      identify: flag(
        "Name each profile: opens a temporary chrome://version page in it (visible), reads Local State, closes it",
      ),
    }),
  result: () => ok({ profiles: v.array(profileSummary) }),
  example: "bp profiles --identify",
  runs: "broker",
  human: profilesText,
});

export const profile = defineCommand({
  name: "profile",
  group: "Tabs and navigation",
  summary: "Where this agent's new tabs open",
  positionals: ["id"],
  args: () => v.object({ id: text("Profile id from 'bp profiles', or its exact label, name or e-mail") }),
  result: () => ok({ profile: profileSummary }),
  example: "bp profile p3k9x2a",
  runs: "broker",
  human: profileText,
});

export const close = defineCommand({
  name: "close",
  group: "Tabs and navigation",
  summary: "Close the selected tab; --all closes every managed tab of this agent (never user tabs)",
  aliases: { a: "all" },
  args: () => v.object({ all: flag("Close all managed tabs of this agent") }),
  // notClosed: tabs the browser refused to close (they stay this agent's), only when there are any.
  result: () => ok({ closed: v.array(v.string()), notClosed: v.optional(v.array(v.string())), remaining: v.number() }),
  example: "bp close --all",
  runs: "broker",
  human: closeText,
  mutating: true,
});

export const back = defineCommand({
  name: "back",
  group: "Tabs and navigation",
  summary: "Go back a page (selected tab)",
  args: () => v.object(lookArgs()),
  result: navResult,
  example: "bp back --snapshot",
  runs: "broker",
  human: withLook(historyText("back")),
  mutating: true,
});

export const forward = defineCommand({
  name: "forward",
  group: "Tabs and navigation",
  summary: "Go forward a page (selected tab)",
  args: () => v.object(lookArgs()),
  result: navResult,
  example: "bp forward",
  runs: "broker",
  human: withLook(historyText("forward")),
  mutating: true,
});

export const stop = defineCommand({
  name: "stop",
  group: "Tabs and navigation",
  summary: "Give up on a slow page still loading (the shown one stays)",
  args: () => v.object({}),
  result: () =>
    ok({
      stopped: v.optional(
        v.pipe(
          v.object({ url: v.string(), ms: v.number() }),
          v.description("The navigation given up, and how long it had waited (absent: none was pending)"),
        ),
      ),
      url: v.pipe(v.string(), v.description("The page the tab shows now")),
    }),
  example: "bp stop",
  runs: "broker",
  mutating: true,
});

export const reload = defineCommand({
  name: "reload",
  group: "Tabs and navigation",
  summary: "Reload the page",
  args: () => v.object(lookArgs()),
  result: navResult,
  example: "bp reload --text",
  runs: "broker",
  human: withLook(historyText("reload")),
  mutating: true,
});
