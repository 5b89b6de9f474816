/** A page chooses its title and URL and can make them megabytes long: every reply bounds them the same way. */
export const MAX_TITLE = 300;
export const MAX_URL = 500;

/** The first `max` UTF-16 units of `s`, never ending on half a surrogate pair (it would print as `\ud83d`). */
export function cutString(s: string, max: number): string {
  if (s.length <= max) return s;
  const last = s.charCodeAt(max - 1);
  return s.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}

export function boundTitle(title: string): string {
  return title.length > MAX_TITLE ? `${cutString(title, MAX_TITLE)}…` : title;
}

export function boundUrl(url: string): string {
  return url.length > MAX_URL ? `${cutString(url, MAX_URL)}…` : url;
}
