/**
 * audit.k8s.io/v1 Policy: reading (k8s.io/apiserver/pkg/audit/policy/reader.go)
 * and the rule evaluation (checker.go) as pure functions. The first rule that
 * matches sets the level; no match is level None.
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { field, formatFieldErrors, type FieldError } from '../../apimachinery/field-errors.js';
import { goQuote } from '../../apimachinery/go-quote.js';
import type { Attributes } from '../../authorization/types.js';

export type Level = 'None' | 'Metadata' | 'Request' | 'RequestResponse';
export type Stage = 'RequestReceived' | 'ResponseStarted' | 'ResponseComplete' | 'Panic';

export const LEVELS: readonly Level[] = ['None', 'Metadata', 'Request', 'RequestResponse'];
const STAGES: readonly Stage[] = ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'];

export interface GroupResources { group?: string; resources?: string[]; resourceNames?: string[] }

export interface PolicyRule {
  level: Level;
  users?: string[];
  userGroups?: string[];
  verbs?: string[];
  resources?: GroupResources[];
  namespaces?: string[];
  nonResourceURLs?: string[];
  omitStages?: Stage[];
  omitManagedFields?: boolean;
}

export interface Policy {
  apiVersion: string;
  kind: 'Policy';
  rules: PolicyRule[];
  omitStages?: Stage[];
  omitManagedFields?: boolean;
}

/** What the policy says of one request. */
export interface RequestAuditConfig {
  level: Level;
  omitStages: Stage[];
  omitManagedFields: boolean;
}

export class AuditPolicyError extends Error {}

/** kube-apiserver's start-up reading of --audit-policy-file, with its error texts. */
export function loadAuditPolicy(file: string): Policy {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    const why = err.code === 'ENOENT' ? 'no such file or directory' : err.code === 'EACCES' ? 'permission denied' : err.message;
    throw new AuditPolicyError(`loading audit policy file: failed to read file path ${goQuote(file)}: open ${file}: ${why}`);
  }
  try {
    return parseAuditPolicy(text);
  } catch (e) {
    throw new AuditPolicyError(`loading audit policy file: ${(e as Error).message}: from file ${file}`);
  }
}

export function parseAuditPolicy(text: string): Policy {
  const doc = (parseYaml(text) ?? {}) as Partial<Policy>;
  if (doc.kind !== 'Policy' || (doc.apiVersion !== 'audit.k8s.io/v1')) {
    throw new Error(`unknown group version field ${doc.apiVersion ?? ''}, Kind=${doc.kind ?? ''} in policy`);
  }
  const errs = validatePolicy(doc);
  if (errs.length) throw new Error(formatFieldErrors(errs));
  if (!doc.rules?.length) throw new Error('loaded illegal policy with 0 rules');
  return doc as Policy;
}

/** validation.ValidatePolicy: the levels and stages. */
export function validatePolicy(p: Partial<Policy>): FieldError[] {
  const errs: FieldError[] = validateStages(p.omitStages, 'omitStages');
  for (const [i, r] of (p.rules ?? []).entries()) {
    const path = `rules[${i}]`;
    if (!r.level) errs.push(field.required(`${path}.level`, ''));
    else if (!LEVELS.includes(r.level)) errs.push(field.notSupported(`${path}.level`, r.level, [...LEVELS]));
    if (r.nonResourceURLs?.length && (r.resources?.length || r.namespaces?.length)) {
      errs.push(field.invalid(`${path}.nonResourceURLs`, { goSyntax: `[]string{${r.nonResourceURLs.map(goQuote).join(', ')}}` },
        'rules cannot apply to both regular resources and non-resource URLs'));
    }
    errs.push(...validateStages(r.omitStages, `${path}.omitStages`));
  }
  return errs;
}

function validateStages(stages: Stage[] | undefined, path: string): FieldError[] {
  return (stages ?? []).flatMap((s, i) => STAGES.includes(s) ? [] : [field.notSupported(`${path}[${i}]`, s, [...STAGES])]);
}

/** policy.NewPolicyRuleEvaluator(...).EvaluatePolicyRule. */
export function evaluatePolicy(policy: Policy, attrs: Attributes): RequestAuditConfig {
  for (const rule of policy.rules) {
    if (!ruleMatches(rule, attrs)) continue;
    return {
      level: rule.level,
      omitStages: [...new Set([...(policy.omitStages ?? []), ...(rule.omitStages ?? [])])],
      omitManagedFields: rule.omitManagedFields ?? policy.omitManagedFields ?? false,
    };
  }
  return { level: 'None', omitStages: [], omitManagedFields: false };
}

function ruleMatches(r: PolicyRule, attrs: Attributes): boolean {
  if (r.users?.length && !r.users.includes(attrs.user.name)) return false;
  if (r.userGroups?.length && !attrs.user.groups.some((g) => r.userGroups!.includes(g))) return false;
  if (r.verbs?.length && !r.verbs.includes(attrs.verb)) return false;
  if (r.namespaces?.length || r.resources?.length) return ruleMatchesResource(r, attrs);
  if (r.nonResourceURLs?.length) return ruleMatchesNonResource(r, attrs);
  return true;
}

function ruleMatchesResource(r: PolicyRule, attrs: Attributes): boolean {
  if (!attrs.resourceRequest) return false;
  if (r.namespaces?.length && !r.namespaces.includes(attrs.namespace)) return false;
  if (!r.resources?.length) return true;
  const { resource, subresource, name } = attrs;
  const combined = subresource ? `${resource}/${subresource}` : resource;
  for (const gr of r.resources) {
    if ((gr.group ?? '') !== attrs.apiGroup) continue;
    if (!gr.resources?.length) return true;
    for (const res of gr.resources) {
      if (gr.resourceNames?.length && !gr.resourceNames.includes(name)) continue;
      if (res === combined || res === '*') return true;
      if (subresource && res.startsWith('*/') && subresource === res.slice(2)) return true;
      if (res.endsWith('/*') && resource === res.slice(0, -2)) return true;
    }
  }
  return false;
}

function ruleMatchesNonResource(r: PolicyRule, attrs: Attributes): boolean {
  if (attrs.resourceRequest) return false;
  return r.nonResourceURLs!.some((spec) => spec === '*' || spec === attrs.path || (spec.endsWith('*') && attrs.path.startsWith(spec.slice(0, -1))));
}

export function levelAtLeast(level: Level, min: Level): boolean {
  return LEVELS.indexOf(level) >= LEVELS.indexOf(min);
}
