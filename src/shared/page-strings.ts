/**
 * A page chooses its title and URL, and can make either megabytes long. Every reply that
 * carries them (tabs, open, navigation, status, snapshot) bounds them the same way.
 */
export const MAX_TITLE = 300;
export const MAX_URL = 500;

export function boundTitle(title: string): string {
  return title.length > MAX_TITLE ? `${title.slice(0, MAX_TITLE)}…` : title;
}

export function boundUrl(url: string): string {
  return url.length > MAX_URL ? `${url.slice(0, MAX_URL)}…` : url;
}
