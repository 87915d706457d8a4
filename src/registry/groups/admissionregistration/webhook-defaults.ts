/**
 * admissionregistration/v1 defaulting of a webhook (pkg/apis/admissionregistration/v1/defaults.go:
 * SetDefaults_ValidatingWebhook, SetDefaults_MutatingWebhook, SetDefaults_Rule,
 * SetDefaults_ServiceReference), shared by both configuration kinds.
 */
type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

export function defaultWebhooks(cfg: Obj, mutating: boolean): void {
  if (!Array.isArray(cfg.webhooks)) return;
  for (const hook of cfg.webhooks as unknown[]) {
    if (!isObj(hook)) continue;
    hook.failurePolicy ??= 'Fail';
    hook.matchPolicy ??= 'Equivalent';
    hook.namespaceSelector ??= {};
    hook.objectSelector ??= {};
    hook.timeoutSeconds ??= 10;
    if (mutating) hook.reinvocationPolicy ??= 'Never';
    if (Array.isArray(hook.rules)) for (const r of hook.rules as unknown[]) if (isObj(r)) r.scope ??= '*';
    const svc = isObj(hook.clientConfig) ? hook.clientConfig.service : undefined;
    if (isObj(svc)) svc.port ??= 443;
  }
}
