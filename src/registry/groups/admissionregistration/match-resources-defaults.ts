/**
 * SetDefaults_MatchResources and SetDefaults_Rule (pkg/apis/admissionregistration/v1/defaults.go,
 * v1.32), shared by the policy's matchConstraints and a binding's matchResources.
 */
type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export function defaultMatchResources(mr: unknown): void {
  if (!isObj(mr)) return;
  mr.matchPolicy ??= 'Equivalent';
  mr.namespaceSelector ??= {};
  mr.objectSelector ??= {};
  for (const key of ['resourceRules', 'excludeResourceRules']) {
    const rules = mr[key];
    if (!Array.isArray(rules)) continue;
    for (const r of rules) if (isObj(r)) r.scope ??= '*';
  }
}
