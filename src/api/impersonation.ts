/**
 * The Impersonate-* headers (k8s.io/apiserver/pkg/endpoints/filters/impersonation.go):
 * each thing asked for (user or service account, groups, extras, uid) must be
 * allowed to the requestor with the `impersonate` verb; then the request goes
 * on as the impersonated user.
 */
import type { IncomingMessage } from 'node:http';
import { forbiddenError } from '../authorization/forbidden.js';
import { resourceAttributes, type Authorizer, type UserInfo } from '../authorization/types.js';
import { isDNS1123Label, isDNS1123Subdomain } from '../meta/names.js';
import { serviceAccountGroups, serviceAccountUsername } from '../apimachinery/service-account-user.js';

const USER_HEADER = 'impersonate-user';
const GROUP_HEADER = 'impersonate-group';
const UID_HEADER = 'impersonate-uid';
const EXTRA_PREFIX = 'impersonate-extra-';
const AUTHENTICATION_V1 = 'authentication.k8s.io/v1';

/** A request the filter cannot handle: upstream answers it with InternalError's plain-text 500. */
export class ImpersonationRequestError extends Error {}

/** One thing asked for, as upstream's ObjectReference (its %v prints the seven fields in order). */
interface Request { kind: string; namespace: string; name: string; apiVersion: string; fieldPath: string }

const describe = (r: Request) => `{${[r.kind, r.namespace, r.name, '', r.apiVersion, '', r.fieldPath].join(' ')}}`;

/** serviceaccount.SplitUsername: system:serviceaccount:<namespace>:<name> with a valid namespace and name. */
export function splitServiceAccountUsername(username: string): { namespace: string; name: string } | undefined {
  const prefix = 'system:serviceaccount:';
  if (!username.startsWith(prefix)) return undefined;
  const parts = username.slice(prefix.length).split(':');
  if (parts.length !== 2) return undefined;
  const [namespace = '', name = ''] = parts;
  if (isDNS1123Label(namespace).length || isDNS1123Subdomain(name).length) return undefined;
  return { namespace, name };
}

function unescapeExtraKey(key: string): string {
  try { return decodeURIComponent(key); } catch { return key; }
}

function impersonationRequests(req: IncomingMessage): Request[] {
  const headers = req.headersDistinct;
  const out: Request[] = [];
  const user = headers[USER_HEADER]?.[0] ?? '';
  if (user) {
    const sa = splitServiceAccountUsername(user);
    out.push(sa ? { kind: 'ServiceAccount', namespace: sa.namespace, name: sa.name, apiVersion: '', fieldPath: '' }
      : { kind: 'User', namespace: '', name: user, apiVersion: '', fieldPath: '' });
  }
  const groups = headers[GROUP_HEADER] ?? [];
  for (const g of groups) out.push({ kind: 'Group', namespace: '', name: g, apiVersion: '', fieldPath: '' });
  let hasExtra = false;
  for (const [header, values] of Object.entries(headers)) {
    if (!header.startsWith(EXTRA_PREFIX) || !values) continue;
    hasExtra = true;
    const key = unescapeExtraKey(header.slice(EXTRA_PREFIX.length));
    for (const v of values) out.push({ kind: 'UserExtra', namespace: '', name: v, apiVersion: AUTHENTICATION_V1, fieldPath: key });
  }
  const uid = headers[UID_HEADER]?.[0] ?? '';
  if (uid) out.push({ kind: 'UID', namespace: '', name: uid, apiVersion: AUTHENTICATION_V1, fieldPath: '' });
  if ((groups.length || hasExtra || uid) && !user) {
    throw new ImpersonationRequestError(`requested [${out.map(describe).join(' ')}] without impersonating a user`);
  }
  return out;
}

function asksImpersonation(req: IncomingMessage): boolean {
  for (const name in req.headers) if (name.startsWith('impersonate-')) return true;
  return false;
}

/**
 * The user the request goes on as: the requestor when no Impersonate-* header
 * is set. Throws the 403 StatusError for the first thing not allowed, or an
 * ImpersonationRequestError for headers that ask for no user.
 */
export function impersonate(req: IncomingMessage, requestor: UserInfo, authorizer: Authorizer): UserInfo {
  // Most requests ask for nothing: their header names alone say so.
  if (!asksImpersonation(req)) return requestor;
  const requests = impersonationRequests(req);
  if (requests.length === 0) return requestor;
  const groupsSpecified = (req.headersDistinct[GROUP_HEADER]?.length ?? 0) > 0;
  let username = '';
  let groups: string[] = [];
  const extra: Record<string, string[]> = {};
  let uid = '';
  for (const r of requests) {
    let resource: string;
    let subresource = '';
    let apiGroup = '';
    switch (r.kind) {
      case 'ServiceAccount':
        resource = 'serviceaccounts';
        username = serviceAccountUsername(r.namespace, r.name);
        if (!groupsSpecified) groups = serviceAccountGroups(r.namespace);
        break;
      case 'User':
        resource = 'users';
        username = r.name;
        break;
      case 'Group':
        resource = 'groups';
        groups.push(r.name);
        break;
      case 'UserExtra':
        resource = 'userextras';
        subresource = r.fieldPath;
        apiGroup = 'authentication.k8s.io';
        (extra[r.fieldPath] ??= []).push(r.name);
        break;
      default: // UID
        resource = 'uids';
        apiGroup = 'authentication.k8s.io';
        uid = r.name;
    }
    const attrs = resourceAttributes(requestor, {
      verb: 'impersonate', apiGroup, apiVersion: apiGroup ? 'v1' : '', namespace: r.namespace, resource, subresource, name: r.name,
    });
    const d = authorizer.authorize(attrs);
    if (d.decision !== 'Allow') throw forbiddenError(attrs, d.reason);
  }
  if (username !== 'system:anonymous') {
    if (!groups.some((g) => g === 'system:authenticated' || g === 'system:unauthenticated')) groups.push('system:authenticated');
  } else if (!groups.includes('system:unauthenticated')) {
    groups.push('system:unauthenticated');
  }
  const user: UserInfo = { name: username, groups };
  if (uid) user.uid = uid;
  if (Object.keys(extra).length) user.extra = extra;
  return user;
}
