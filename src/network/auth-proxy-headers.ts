/**
 * The front proxy's identity headers (client-go transport SetAuthProxyHeaders, v0.32): what an
 * authenticating proxy tells the server behind it about the user, read there by the request
 * header authenticator (--requestheader-username-headers and friends).
 */

export const REMOTE_USER = 'X-Remote-User';
export const REMOTE_UID = 'X-Remote-Uid';
export const REMOTE_GROUP = 'X-Remote-Group';
export const REMOTE_EXTRA_PREFIX = 'X-Remote-Extra-';

/** Headers as a request sends them: lower-case names, each with its values in order. */
export type HeaderLines = Map<string, string[]>;

/** The user the headers name. */
export interface ProxiedUser { name: string; groups: string[]; extra?: Record<string, string[]> }

/** Who the aggregator is when it asks an extension API server itself (availability and discovery checks). */
export const KUBE_AGGREGATOR_USER: ProxiedUser = { name: 'system:kube-aggregator', groups: ['system:masters'] };

/** net/http's isTokenTable: the bytes a header name may hold. */
const TOKEN = /^[!#$&'*+\-.0-9A-Z^_`a-z|~]$/;

/**
 * headerKeyEscape: an extra key as a header name suffix, every byte that is no token byte
 * (and '%', so that url.PathUnescape gives the key back) %-encoded.
 */
export function headerKeyEscape(key: string): string {
  let out = '';
  for (const b of Buffer.from(key, 'utf8')) {
    const c = String.fromCharCode(b);
    out += b < 0x80 && TOKEN.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/**
 * SetAuthProxyHeaders: any identity headers the request carries are dropped, then the user's
 * name, groups (one header each) and extra values are set. The UID header is sent only with the
 * RemoteRequestHeaderUID feature, alpha and off in v1.32, so `uid` is passed by no caller yet.
 */
export function setAuthProxyHeaders(headers: HeaderLines, user: ProxiedUser, uid = ''): void {
  for (const name of [...headers.keys()]) {
    if (name === 'x-remote-user' || name === 'x-remote-uid' || name === 'x-remote-group' || name.startsWith('x-remote-extra-')) headers.delete(name);
  }
  headers.set(REMOTE_USER.toLowerCase(), [user.name]);
  if (uid) headers.set(REMOTE_UID.toLowerCase(), [uid]);
  if (user.groups.length) headers.set(REMOTE_GROUP.toLowerCase(), [...user.groups]);
  for (const [key, values] of Object.entries(user.extra ?? {})) {
    const name = (REMOTE_EXTRA_PREFIX + headerKeyEscape(key)).toLowerCase();
    headers.set(name, [...(headers.get(name) ?? []), ...values]);
  }
}
