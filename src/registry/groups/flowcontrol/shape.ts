/**
 * The v1 defaults (pkg/apis/flowcontrol/v1/defaults.go) and the JSON shape Go
 * writes for FlowSchema and PriorityLevelConfiguration: fields in struct
 * order, nil slices without omitempty as null, structs never omitted.
 */
type Obj = Record<string, any>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
/** A []string field without omitempty: null when nil. */
const list = (v: unknown): unknown => (Array.isArray(v) ? v : null);
/** Copies the present keys of `from` in the given order, then any others (unknown fields are dropped by pruning elsewhere). */
function ordered(from: Obj, keys: string[]): Obj {
  const out: Obj = {};
  for (const k of keys) if (from[k] !== undefined) out[k] = from[k];
  for (const k of Object.keys(from)) if (!(k in out) && from[k] !== undefined) out[k] = from[k];
  return out;
}
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const int = (v: unknown): number => (typeof v === 'number' ? v : 0);

function conditions(status: unknown): Obj {
  if (!isObj(status)) return {};
  if (!Array.isArray(status.conditions)) return ordered(status, []);
  return {
    ...status,
    conditions: status.conditions.map((c: Obj) => ordered({ ...c, lastTransitionTime: c?.lastTransitionTime ?? null },
      ['type', 'status', 'lastTransitionTime', 'reason', 'message'])),
  };
}

function subject(s: Obj): Obj {
  if (!isObj(s)) return s;
  const out = ordered({ ...s, kind: str(s.kind) }, ['kind', 'user', 'group', 'serviceAccount']);
  if (isObj(s.user)) out.user = { ...s.user, name: str(s.user.name) };
  if (isObj(s.group)) out.group = { ...s.group, name: str(s.group.name) };
  if (isObj(s.serviceAccount)) out.serviceAccount = ordered({ ...s.serviceAccount, namespace: str(s.serviceAccount.namespace), name: str(s.serviceAccount.name) }, ['namespace', 'name']);
  return out;
}

function rule(r: Obj): Obj {
  if (!isObj(r)) return r;
  const out: Obj = ordered({ ...r, subjects: Array.isArray(r.subjects) ? r.subjects.map(subject) : null },
    ['subjects', 'resourceRules', 'nonResourceRules']);
  if (Array.isArray(r.resourceRules)) {
    out.resourceRules = r.resourceRules.map((x: Obj) => {
      const rr = ordered({ ...x, verbs: list(x?.verbs), apiGroups: list(x?.apiGroups), resources: list(x?.resources), namespaces: list(x?.namespaces) },
        ['verbs', 'apiGroups', 'resources', 'clusterScope', 'namespaces']);
      if (!rr.clusterScope) delete rr.clusterScope;
      return rr;
    });
  }
  if (Array.isArray(r.nonResourceRules)) {
    out.nonResourceRules = r.nonResourceRules.map((x: Obj) => ordered({ ...x, verbs: list(x?.verbs), nonResourceURLs: list(x?.nonResourceURLs) }, ['verbs', 'nonResourceURLs']));
  }
  return out;
}

/** SetObjectDefaults_FlowSchema, in Go's shape. */
export function defaultFlowSchema(obj: Obj): void {
  const spec: Obj = isObj(obj.spec) ? obj.spec : {};
  const out = ordered({
    ...spec,
    priorityLevelConfiguration: { ...(isObj(spec.priorityLevelConfiguration) ? spec.priorityLevelConfiguration : {}), name: str(spec.priorityLevelConfiguration?.name) },
    matchingPrecedence: int(spec.matchingPrecedence) || 1000,
  }, ['priorityLevelConfiguration', 'matchingPrecedence', 'distinguisherMethod', 'rules']);
  if (isObj(spec.distinguisherMethod)) out.distinguisherMethod = { ...spec.distinguisherMethod, type: str(spec.distinguisherMethod.type) };
  if (Array.isArray(spec.rules)) out.rules = spec.rules.map(rule);
  reshape(obj, out);
}

/** SetObjectDefaults_PriorityLevelConfiguration, in Go's shape. */
export function defaultPriorityLevelConfiguration(obj: Obj): void {
  const spec: Obj = isObj(obj.spec) ? obj.spec : {};
  const out = ordered({ ...spec, type: str(spec.type) }, ['type', 'limited', 'exempt']);
  if (isObj(spec.limited)) {
    const l = spec.limited;
    const lr: Obj = isObj(l.limitResponse) ? l.limitResponse : {};
    const limitResponse = ordered({ ...lr, type: str(lr.type) }, ['type', 'queuing']);
    if (isObj(lr.queuing)) {
      const q = lr.queuing;
      limitResponse.queuing = ordered({ ...q, queues: int(q.queues) || 64, handSize: int(q.handSize) || 8, queueLengthLimit: int(q.queueLengthLimit) || 50 },
        ['queues', 'handSize', 'queueLengthLimit']);
    }
    out.limited = ordered({ ...l, nominalConcurrencyShares: l.nominalConcurrencyShares ?? 30, limitResponse, lendablePercent: l.lendablePercent ?? 0 },
      ['nominalConcurrencyShares', 'limitResponse', 'lendablePercent', 'borrowingLimitPercent']);
  }
  if (isObj(spec.exempt)) {
    out.exempt = ordered({ ...spec.exempt, nominalConcurrencyShares: spec.exempt.nominalConcurrencyShares ?? 0, lendablePercent: spec.exempt.lendablePercent ?? 0 },
      ['nominalConcurrencyShares', 'lendablePercent']);
  }
  reshape(obj, out);
}

/** spec then status (never omitted), after whatever else the object carries. */
function reshape(obj: Obj, spec: Obj): void {
  const status = conditions(obj.status);
  delete obj.spec;
  delete obj.status;
  obj.spec = spec;
  obj.status = status;
}
