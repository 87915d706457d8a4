/**
 * rules.IsExemptAdmissionConfigurationResource: writes of the admission configuration kinds
 * themselves never go to webhooks (a broken webhook could otherwise lock itself in).
 */
const EXEMPT_KINDS = new Set([
  'ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding',
  'MutatingAdmissionPolicy', 'MutatingAdmissionPolicyBinding',
]);

export function isExemptConfigurationResource(def: { group: string; kind: string }): boolean {
  return def.group === 'admissionregistration.k8s.io' && EXEMPT_KINDS.has(def.kind);
}
