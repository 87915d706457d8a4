/**
 * FlowSchema and PriorityLevelConfiguration validation
 * (pkg/apis/flowcontrol/validation/validation.go, v1 requests).
 */
import { field, type FieldError } from '../apimachinery/field-errors.js';
import { nameIsDNSLabel, nameIsDNSSubdomain } from './object-meta.js';
import { MAX_HASH_BITS, requiredEntropyBits } from '../apimachinery/shuffle-sharding.js';
import { arr, goStrings, isObj, raw, str, type Obj } from './common.js';

/** flowcontrol.FlowSchemaMaxMatchingPrecedence */
const MAX_MATCHING_PRECEDENCE = 10000;
/** priorityLevelConfigurationQueuingMaxQueues */
const MAX_QUEUES = 10_000_000;
const SUPPORTED_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'proxy', 'update', 'watch'];
const NS_ERR_INTRO = "each member of this list must be '*' or a DNS-1123 label; ";

const hasWildcard = (list: unknown[]) => list.includes('*');

function validateVerbs(verbs: unknown, path: string): FieldError[] {
  const list = arr<string>(verbs);
  if (!list.length) return [field.required(`${path}.verbs`, 'verbs must contain at least one value')];
  if (hasWildcard(list)) return list.length > 1 ? [field.invalid(`${path}.verbs`, goStrings(list), "if '*' is present, must not specify other verbs")] : [];
  if (!list.every((v) => SUPPORTED_VERBS.includes(v))) return [field.notSupported(`${path}.verbs`, goStrings(list), SUPPORTED_VERBS)];
  return [];
}

/** ValidateNonResourceURLPath */
function nonResourceURLError(p: string, path: string): FieldError | undefined {
  if (!p) return field.invalid(path, p, 'must not be empty');
  if (p === '/') return undefined;
  if (!p.startsWith('/')) return field.invalid(path, p, 'must start with slash');
  if (p.includes(' ')) return field.invalid(path, p, 'must not contain white-space');
  if (p.includes('//')) return field.invalid(path, p, 'must not contain double slash');
  const stars = p.split('*').length - 1;
  if (stars > 1 || (stars === 1 && p.slice(-2) !== '/*')) return field.invalid(path, p, 'wildcard can only do suffix matching');
  return undefined;
}

function validateResourceRule(r: Obj, path: string): FieldError[] {
  const errs = validateVerbs(r.verbs, path);
  const groups = arr<string>(r.apiGroups);
  if (!groups.length) errs.push(field.required(`${path}.apiGroups`, 'resource rules must supply at least one api group'));
  else if (groups.length > 1 && hasWildcard(groups)) errs.push(field.invalid(`${path}.apiGroups`, goStrings(groups), "if '*' is present, must not specify other api groups"));
  const resources = arr<string>(r.resources);
  if (!resources.length) errs.push(field.required(`${path}.resources`, 'resource rules must supply at least one resource'));
  else if (resources.length > 1 && hasWildcard(resources)) errs.push(field.invalid(`${path}.resources`, goStrings(resources), "if '*' is present, must not specify other resources"));
  const namespaces = arr<string>(r.namespaces);
  if (!namespaces.length && r.clusterScope !== true) {
    errs.push(field.required(`${path}.namespaces`, 'resource rules that are not cluster scoped must supply at least one namespace'));
  } else if (hasWildcard(namespaces)) {
    if (namespaces.length > 1) errs.push(field.invalid(`${path}.namespaces`, goStrings(namespaces), "if '*' is present, must not specify other namespaces"));
  } else {
    namespaces.forEach((ns, i) => {
      for (const m of nameIsDNSLabel(ns, false)) errs.push(field.invalid(`${path}.namespaces[${i}]`, ns, NS_ERR_INTRO + m));
    });
  }
  return errs;
}

function validateNonResourceRule(r: Obj, path: string): FieldError[] {
  const errs = validateVerbs(r.verbs, path);
  const urls = arr<string>(r.nonResourceURLs);
  if (!urls.length) errs.push(field.required(`${path}.nonResourceURLs`, 'nonResourceURLs must contain at least one value'));
  else if (hasWildcard(urls)) {
    if (urls.length > 1) errs.push(field.invalid(`${path}.nonResourceURLs`, goStrings(urls), "if '*' is present, must not specify other non-resource URLs"));
  } else {
    urls.forEach((u, i) => { const e = nonResourceURLError(str(u), `${path}.nonResourceURLs[${i}]`); if (e) errs.push(e); });
  }
  return errs;
}

function validateSubject(s: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const notKind = (k: 'user' | 'group' | 'serviceAccount', kind: string) => {
    if (s[k] != null) errs.push(field.forbidden(`${path}.${k}`, `${k} is forbidden when subject kind is not '${kind}'`));
  };
  switch (s.kind) {
    case 'ServiceAccount': {
      const sa = s.serviceAccount;
      if (!isObj(sa)) errs.push(field.required(`${path}.serviceAccount`, "serviceAccount is required when subject kind is 'ServiceAccount'"));
      else {
        const name = str(sa.name);
        if (!name) errs.push(field.required(`${path}.serviceAccount.name`));
        else if (name !== '*') for (const m of nameIsDNSSubdomain(name, false)) errs.push(field.invalid(`${path}.serviceAccount.name`, name, m));
        const ns = str(sa.namespace);
        if (ns) for (const m of nameIsDNSLabel(ns, false)) errs.push(field.invalid(`${path}.serviceAccount.namespace`, ns, m));
        else errs.push(field.required(`${path}.serviceAccount.namespace`, 'must specify namespace for service account'));
      }
      notKind('user', 'User'); notKind('group', 'Group');
      break;
    }
    case 'User':
      if (!isObj(s.user)) errs.push(field.required(`${path}.user`, "user is required when subject kind is 'User'"));
      else if (!str(s.user.name)) errs.push(field.required(`${path}.user.name`));
      notKind('serviceAccount', 'ServiceAccount'); notKind('group', 'Group');
      break;
    case 'Group':
      if (!isObj(s.group)) errs.push(field.required(`${path}.group`, "group is required when subject kind is 'Group'"));
      else if (!str(s.group.name)) errs.push(field.required(`${path}.group.name`));
      notKind('serviceAccount', 'ServiceAccount'); notKind('user', 'User');
      break;
    default:
      errs.push(field.notSupported(`${path}.kind`, str(s.kind), ['Group', 'ServiceAccount', 'User']));
  }
  return errs;
}

function validateRule(rule: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const subjects = arr<Obj>(rule.subjects);
  if (subjects.length) subjects.forEach((s, i) => errs.push(...validateSubject(s ?? {}, `${path}.subjects[${i}]`)));
  else errs.push(field.required(`${path}.subjects`, 'subjects must contain at least one value'));
  const rr = arr<Obj>(rule.resourceRules);
  const nr = arr<Obj>(rule.nonResourceRules);
  if (!rr.length && !nr.length) errs.push(field.required(path, 'at least one of resourceRules and nonResourceRules has to be non-empty'));
  rr.forEach((r, i) => errs.push(...validateResourceRule(r ?? {}, `${path}.resourceRules[${i}]`)));
  nr.forEach((r, i) => errs.push(...validateNonResourceRule(r ?? {}, `${path}.nonResourceRules[${i}]`)));
  return errs;
}

function validateConditions(status: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  arr<Obj>(isObj(status) ? status.conditions : undefined).forEach((c, i) => {
    const type = str(c?.type);
    if (seen.has(type)) errs.push(field.duplicate(`${path}.conditions[${i}].type`, type));
    seen.add(type);
    if (!type) errs.push(field.required(`${path}.conditions[${i}].type`, 'must not be empty'));
  });
  return errs;
}

/** ValidateFlowSchemaSpec and ValidateFlowSchemaStatus. */
export function validateFlowSchema(obj: Obj): FieldError[] {
  const spec: Obj = isObj(obj.spec) ? obj.spec : {};
  const name = str(obj.metadata?.name);
  const errs: FieldError[] = [];
  const mp = typeof spec.matchingPrecedence === 'number' ? spec.matchingPrecedence : 0;
  if (mp <= 0) errs.push(field.invalid('spec.matchingPrecedence', mp, 'must be a positive value'));
  if (mp > MAX_MATCHING_PRECEDENCE) errs.push(field.invalid('spec.matchingPrecedence', mp, `must not be greater than ${MAX_MATCHING_PRECEDENCE}`));
  if (mp === 1 && name !== 'exempt') errs.push(field.invalid('spec.matchingPrecedence', mp, "only the schema named 'exempt' may have matchingPrecedence 1"));
  const dm = spec.distinguisherMethod;
  if (isObj(dm) && dm.type !== 'ByNamespace' && dm.type !== 'ByUser') {
    errs.push(field.notSupported('spec.distinguisherMethod.type', raw(`flowcontrol.FlowDistinguisherMethod{Type:${JSON.stringify(str(dm.type))}}`), ['ByNamespace', 'ByUser']));
  }
  const plName = str(spec.priorityLevelConfiguration?.name);
  if (plName) for (const m of nameIsDNSSubdomain(plName, false)) errs.push(field.invalid('spec.priorityLevelConfiguration.name', plName, m));
  else errs.push(field.required('spec.priorityLevelConfiguration.name', 'must reference a priority level'));
  arr<Obj>(spec.rules).forEach((r, i) => errs.push(...validateRule(r ?? {}, `spec.rules[${i}]`)));
  errs.push(...validateConditions(obj.status, 'status'));
  return errs;
}

export function validateFlowSchemaStatus(obj: Obj): FieldError[] {
  return validateConditions(obj.status, 'status');
}

function validateQueuing(q: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const n = (v: unknown) => (typeof v === 'number' ? v : 0);
  const qll = n(q.queueLengthLimit);
  const queues = n(q.queues);
  const hand = n(q.handSize);
  if (qll <= 0) errs.push(field.invalid(`${path}.queueLengthLimit`, qll, 'must be positive'));
  if (queues <= 0) errs.push(field.invalid(`${path}.queues`, queues, 'must be positive'));
  else if (queues > MAX_QUEUES) errs.push(field.invalid(`${path}.queues`, queues, `must not be greater than ${MAX_QUEUES}`));
  if (hand <= 0) errs.push(field.invalid(`${path}.handSize`, hand, 'must be positive'));
  else if (hand > queues) errs.push(field.invalid(`${path}.handSize`, hand, `should not be greater than queues (${queues})`));
  else if (requiredEntropyBits(queues, hand) > MAX_HASH_BITS) {
    errs.push(field.invalid(`${path}.handSize`, hand, `required entropy bits of deckSize ${queues} and handSize ${hand} should not be greater than ${MAX_HASH_BITS}`));
  }
  return errs;
}

function validateLimitResponse(lr: Obj, path: string): FieldError[] {
  switch (lr.type) {
    case 'Reject':
      return lr.queuing != null ? [field.forbidden(`${path}.queuing`, 'must be nil if limited.limitResponse.type is not Limited')] : [];
    case 'Queue':
      return isObj(lr.queuing) ? validateQueuing(lr.queuing, `${path}.queuing`)
        : [field.required(`${path}.queuing`, 'must not be empty if limited.limitResponse.type is Limited')];
    default:
      return [field.notSupported(`${path}.type`, str(lr.type), ['Queue', 'Reject'])];
  }
}

const PERCENT = 'must be between 0 and 100, inclusive';

/** ValidatePriorityLevelConfigurationSpec and its status. */
export function validatePriorityLevelConfiguration(obj: Obj): FieldError[] {
  const spec: Obj = isObj(obj.spec) ? obj.spec : {};
  const name = str(obj.metadata?.name);
  const errs: FieldError[] = [];
  const type = str(spec.type);
  if ((name === 'exempt') !== (type === 'Exempt')) errs.push(field.invalid('spec.type', type, "type must be 'Exempt' if and only if name is 'exempt'"));
  switch (type) {
    case 'Exempt': {
      if (spec.limited != null) errs.push(field.forbidden('spec.limited', 'must be nil if the type is not Limited'));
      const ex = spec.exempt;
      if (isObj(ex)) {
        if (typeof ex.nominalConcurrencyShares === 'number' && ex.nominalConcurrencyShares < 0) {
          errs.push(field.invalid('spec.exempt.nominalConcurrencyShares', ex.nominalConcurrencyShares, 'must be a non-negative integer'));
        }
        if (typeof ex.lendablePercent === 'number' && (ex.lendablePercent < 0 || ex.lendablePercent > 100)) {
          errs.push(field.invalid('spec.exempt.lendablePercent', ex.lendablePercent, PERCENT));
        }
      }
      break;
    }
    case 'Limited': {
      if (spec.exempt != null) errs.push(field.forbidden('spec.exempt', 'must be nil if the type is Limited'));
      const l = spec.limited;
      if (!isObj(l)) { errs.push(field.required('spec.limited', 'must not be empty when type is Limited')); break; }
      const ncs = typeof l.nominalConcurrencyShares === 'number' ? l.nominalConcurrencyShares : 0;
      if (ncs < 0) errs.push(field.invalid('spec.limited.nominalConcurrencyShares', ncs, 'must be a non-negative integer'));
      errs.push(...validateLimitResponse(isObj(l.limitResponse) ? l.limitResponse : {}, 'spec.limited.limitResponse'));
      if (typeof l.lendablePercent === 'number' && (l.lendablePercent < 0 || l.lendablePercent > 100)) {
        errs.push(field.invalid('spec.limited.lendablePercent', l.lendablePercent, PERCENT));
      }
      if (typeof l.borrowingLimitPercent === 'number' && l.borrowingLimitPercent < 0) {
        errs.push(field.invalid('spec.limited.borrowingLimitPercent', l.borrowingLimitPercent, 'if specified, must be a non-negative integer'));
      }
      break;
    }
    default:
      errs.push(field.notSupported('spec.type', type, ['Exempt', 'Limited']));
  }
  errs.push(...validateConditions(obj.status, 'status'));
  return errs;
}

export function validatePriorityLevelConfigurationStatus(obj: Obj): FieldError[] {
  return validateConditions(obj.status, 'status');
}
