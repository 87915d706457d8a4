/**
 * Which FlowSchema a request matches (k8s.io/apiserver/pkg/util/flowcontrol/rule.go)
 * and its flow (computeFlowDistinguisher, hashFlowID in apf_controller.go).
 */
import { createHash } from 'node:crypto';
import type { FlowSchema, NonResourcePolicyRule, PolicyRulesWithSubjects, RequestDigest, ResourcePolicyRule, Subject } from './types.js';

const SA_PREFIX = 'system:serviceaccount:';

function containsString(x: string, list: string[] | null | undefined, wildcard: string): boolean {
  if (!list) return false;
  if (list.length === 1 && list[0] === wildcard) return true;
  return list.includes(x);
}

function matchesSubject(user: RequestDigest['user'], s: Subject): boolean {
  switch (s.kind) {
    case 'User': return !!s.user && (s.user.name === '*' || s.user.name === user.name);
    case 'Group': return !!s.group && (s.group.name === '*' || user.groups.includes(s.group.name));
    case 'ServiceAccount': {
      if (!s.serviceAccount) return false;
      const { namespace, name } = s.serviceAccount;
      // serviceAccountMatchesNamespace: a plain prefix test, as upstream's.
      if (name === '*') return user.name.startsWith(SA_PREFIX) && user.name.slice(SA_PREFIX.length).startsWith(namespace) &&
        user.name.slice(SA_PREFIX.length + namespace.length).startsWith(':');
      return user.name === `${SA_PREFIX}${namespace}:${name}`;
    }
    default: return false;
  }
}

function matchesResourceRule(d: RequestDigest, r: ResourcePolicyRule): boolean {
  if (!containsString(d.verb, r.verbs, '*')) return false;
  const res = d.subresource ? `${d.resource}/${d.subresource}` : d.resource;
  if (!containsString(res, r.resources, '*')) return false;
  if (!containsString(d.apiGroup, r.apiGroups, '*')) return false;
  if (!d.namespace) return r.clusterScope === true;
  return containsString(d.namespace, r.namespaces, '*');
}

function matchesNonResourceURL(urls: string[], path: string): boolean {
  for (const u of urls) {
    if (u === '*' || u === path) return true;
    let prefix = u.endsWith('*') ? u.slice(0, -1) : u;
    if (!prefix.endsWith('/')) prefix += '/';
    if (path.startsWith(prefix)) return true;
  }
  return false;
}

function matchesNonResourceRule(d: RequestDigest, r: NonResourcePolicyRule): boolean {
  return containsString(d.verb, r.verbs, '*') && matchesNonResourceURL(r.nonResourceURLs ?? [], d.path);
}

function matchesPolicyRule(d: RequestDigest, rule: PolicyRulesWithSubjects): boolean {
  if (!(rule.subjects ?? []).some((s) => matchesSubject(d.user, s))) return false;
  if (d.isResourceRequest) return (rule.resourceRules ?? []).some((r) => matchesResourceRule(d, r));
  return (rule.nonResourceRules ?? []).some((r) => matchesNonResourceRule(d, r));
}

export function matchesFlowSchema(d: RequestDigest, fs: FlowSchema): boolean {
  return (fs.spec.rules ?? []).some((r) => matchesPolicyRule(d, r));
}

/** apihelpers.FlowSchemaSequence's order: matchingPrecedence, then name. */
export function compareFlowSchemas(a: FlowSchema, b: FlowSchema): number {
  const p = a.spec.matchingPrecedence - b.spec.matchingPrecedence;
  if (p) return p;
  const an = a.metadata.name ?? '';
  const bn = b.metadata.name ?? '';
  return an < bn ? -1 : an > bn ? 1 : 0;
}

/** The first schema of the sequence the request matches, else catch-all (startRequest's fallback). */
export function selectFlowSchema(d: RequestDigest, sequence: FlowSchema[]): FlowSchema {
  let catchAll: FlowSchema | undefined;
  for (const fs of sequence) {
    if (matchesFlowSchema(d, fs)) return fs;
    if (fs.metadata.name === 'catch-all') catchAll = fs;
  }
  if (!catchAll) throw new Error('no catch-all flow schema');
  return catchAll;
}

export function flowDistinguisher(d: RequestDigest, fs: FlowSchema): string {
  switch (fs.spec.distinguisherMethod?.type) {
    case 'ByUser': return d.user.name;
    case 'ByNamespace': return d.namespace;
    default: return '';
  }
}

/** hashFlowID: the first 8 bytes (little endian) of sha256(schema name, NUL, distinguisher). */
export function hashFlowID(fsName: string, distinguisher: string): bigint {
  const sum = createHash('sha256').update(fsName).update(Buffer.from([0])).update(distinguisher).digest();
  return sum.readBigUInt64LE(0);
}
