/**
 * Where the page keeps the user's token: taken from the login link's fragment (never sent to the server),
 * then wiped from the address bar; kept for this tab only.
 */
import type { Session } from './api.js';

const KEY = 'winkube.token';

export function sessionFromLocation(): Session | undefined {
  const fragment = new URLSearchParams(location.hash.replace(/^#/, ''));
  const fromLink = fragment.get('token');
  if (fromLink) {
    sessionStorage.setItem(KEY, fromLink);
    history.replaceState(null, '', location.pathname + location.search);
    return { token: fromLink };
  }
  const kept = sessionStorage.getItem(KEY);
  return kept ? { token: kept } : undefined;
}

export function saveSession(token: string): Session {
  sessionStorage.setItem(KEY, token);
  return { token };
}

export function forgetSession(): void { sessionStorage.removeItem(KEY); }
