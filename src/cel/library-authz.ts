/**
 * The authorizer library admission expressions call through `authorizer` (apiserver pkg/cel/library/
 * authz.go, v1.32): `authorizer.group(g).resource(r)[.subresource(s)][.namespace(n)][.name(x)]
 * [.fieldSelector(f)][.labelSelector(l)].check(verb)`, `authorizer.path(p).check(verb)`,
 * `authorizer.serviceAccount(ns, name)`, `authorizer.requestResource` (the request's own resource)
 * and a Decision's `allowed()`, `reason()`, `errored()`, `error()`.
 *
 * The evaluator has no object types, so each value is a map under keys no JSON value has (as
 * optional.ts does); the authorizer itself is found through the session the value names, which
 * lives as long as one evaluation (authorizerSession).
 */
import { celMethod, CelScalar, isCelMap, type CelFunc, type CelInput, type CelMap, type CelValue } from '@bufbuild/cel';
import type { Authorizer, Attributes, FieldRequirement, UserInfo } from '../authorization/types.js';
import { serviceAccountGroups, serviceAccountUsername } from '../apimachinery/service-account-user.js';

const KIND = '\u0000authz.kind';
const SESSION = '\u0000authz.session';
const USER = '\u0000authz.user';
const GROUPS = '\u0000authz.groups';

type Kind = 'Authorizer' | 'PathCheck' | 'GroupCheck' | 'ResourceCheck' | 'Decision';

/** What a session decides with: the authorizer, and the field selector parser (from the layer that has one). */
interface Session { authorizer: Authorizer; parseFieldSelector(s: string): FieldRequirement[] | undefined }

const sessions = new Map<number, Session>();
let nextSession = 1;

/** What a value is built from: another value (a CelMap) or the session's root map. */
interface Source { has(k: string): boolean; get(k: string): unknown }

function value(kind: Kind, from: Source | undefined, fields: Record<string, CelInput>): CelInput {
  const m = new Map<string, CelInput>([[KIND, kind]]);
  if (from) for (const k of [SESSION, USER, GROUPS, 'group', 'resource', 'subresource', 'namespace', 'name', 'path', 'fieldSelector', 'labelSelector']) {
    if (from.has(k)) m.set(k, from.get(k) as CelInput);
  }
  for (const [k, v] of Object.entries(fields)) m.set(k, v);
  return m;
}

function of(v: CelValue, kind: Kind): CelMap {
  if (!isCelMap(v) || v.get(KIND) !== kind) throw new Error('no such overload');
  return v;
}

const text = (m: CelMap, k: string): string => {
  const v = m.get(k);
  return typeof v === 'string' ? v : '';
};

function userOf(m: CelMap): UserInfo {
  const groups = m.get(GROUPS);
  return { name: text(m, USER), groups: groups && typeof groups === 'object' && Symbol.iterator in groups ? [...(groups as Iterable<unknown>)].map(String) : [] };
}

function sessionOf(m: CelMap): Session {
  const id = m.get(SESSION);
  const session = typeof id === 'bigint' || typeof id === 'number' ? sessions.get(Number(id)) : undefined;
  if (!session) throw new Error('authorizer is not available');
  return session;
}

function decide(m: CelMap, attrs: Omit<Attributes, 'user'>): CelInput {
  const r = sessionOf(m).authorizer.authorize({ ...attrs, user: userOf(m) });
  return value('Decision', undefined, { decision: r.decision, reason: r.reason, error: r.error ?? '' });
}

const setter = (name: string) => celMethod(name, CelScalar.DYN, [CelScalar.STRING], CelScalar.DYN, function (v) {
  return value('ResourceCheck', of(this, 'ResourceCheck'), { [name]: v });
});

export const authzCelFuncs: CelFunc[] = [
  celMethod('path', CelScalar.DYN, [CelScalar.STRING], CelScalar.DYN, function (p) { return value('PathCheck', of(this, 'Authorizer'), { path: p }); }),
  celMethod('group', CelScalar.DYN, [CelScalar.STRING], CelScalar.DYN, function (g) { return value('GroupCheck', of(this, 'Authorizer'), { group: g }); }),
  celMethod('serviceAccount', CelScalar.DYN, [CelScalar.STRING, CelScalar.STRING], CelScalar.DYN, function (ns, name) {
    // serviceaccount.ServiceAccountInfo.UserInfo(): the account's user name and its two groups.
    return value('Authorizer', of(this, 'Authorizer'), {
      [USER]: serviceAccountUsername(ns, name), [GROUPS]: serviceAccountGroups(ns),
    });
  }),
  celMethod('resource', CelScalar.DYN, [CelScalar.STRING], CelScalar.DYN, function (r) { return value('ResourceCheck', of(this, 'GroupCheck'), { resource: r }); }),
  setter('subresource'), setter('namespace'), setter('name'), setter('fieldSelector'), setter('labelSelector'),
  celMethod('check', CelScalar.DYN, [CelScalar.STRING], CelScalar.DYN, function (verb) {
    if (isCelMap(this) && this.get(KIND) === 'PathCheck') {
      return decide(this, { verb, resourceRequest: false, path: text(this, 'path'), apiGroup: '', apiVersion: '', namespace: '', resource: '', subresource: '', name: '' });
    }
    const m = of(this, 'ResourceCheck');
    const attrs: Omit<Attributes, 'user'> = {
      verb, resourceRequest: true, path: '', apiGroup: text(m, 'group'), apiVersion: '*', namespace: text(m, 'namespace'),
      resource: text(m, 'resource'), subresource: text(m, 'subresource'), name: text(m, 'name'),
    };
    const fs = text(m, 'fieldSelector');
    // A selector that does not parse authorizes as none (FieldSelectorParsingErr).
    const requirements = fs ? sessionOf(m).parseFieldSelector(fs) : undefined;
    if (requirements) attrs.fieldSelector = requirements;
    return decide(m, attrs);
  }),
  celMethod('allowed', CelScalar.DYN, [], CelScalar.BOOL, function () { return of(this, 'Decision').get('decision') === 'Allow'; }),
  celMethod('reason', CelScalar.DYN, [], CelScalar.STRING, function () { return text(of(this, 'Decision'), 'reason'); }),
  celMethod('errored', CelScalar.DYN, [], CelScalar.BOOL, function () { return text(of(this, 'Decision'), 'error') !== ''; }),
  celMethod('error', CelScalar.DYN, [], CelScalar.STRING, function () { return text(of(this, 'Decision'), 'error'); }),
];

/** The resource of the request being admitted (NewResourceAuthorizerVal's Resource). */
export interface RequestResource { group: string; resource: string; subresource: string; namespace: string; name: string }

/**
 * The `authorizer` variable for one evaluation: the request's user and the server's authorizer,
 * with `requestResource`. Call `release` once the evaluation is done.
 */
export function authorizerSession(user: UserInfo, session: Session, request: RequestResource): { value: CelInput; release(): void } {
  const id = nextSession++;
  sessions.set(id, session);
  const base = new Map<string, CelInput>([[KIND, 'Authorizer'], [SESSION, BigInt(id)], [USER, user.name], [GROUPS, user.groups]]);
  const requestResource = value('ResourceCheck', base, {
    group: request.group, resource: request.resource, subresource: request.subresource, namespace: request.namespace, name: request.name,
  });
  base.set('requestResource', requestResource);
  return { value: base, release: () => { sessions.delete(id); } };
}
