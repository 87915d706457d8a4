/**
 * kube-apiserver's --authorization-mode (pkg/kubeapiserver/authorizer/modes):
 * a comma-separated list of the modes served here, validated as
 * pkg/kubeapiserver/options/authorization.go validates it.
 */
import { goQuote } from '../apimachinery/go-quote.js';

export const MODE_ALWAYS_ALLOW = 'AlwaysAllow';
export const MODE_ALWAYS_DENY = 'AlwaysDeny';
export const MODE_RBAC = 'RBAC';
export const MODE_NODE = 'Node';
export const MODE_ABAC = 'ABAC';
export const MODE_WEBHOOK = 'Webhook';

/** modes.AuthorizationModeChoices, in upstream's order. */
export const AUTHORIZATION_MODE_CHOICES = [MODE_ALWAYS_ALLOW, MODE_ALWAYS_DENY, MODE_ABAC, MODE_WEBHOOK, MODE_RBAC, MODE_NODE];

/** The modes this server implements. */
export const SUPPORTED_MODES = [MODE_ALWAYS_ALLOW, MODE_ALWAYS_DENY, MODE_RBAC, MODE_NODE];

export type AuthorizationMode = typeof MODE_ALWAYS_ALLOW | typeof MODE_ALWAYS_DENY | typeof MODE_RBAC | typeof MODE_NODE;

/** What kubeadm runs kube-apiserver with (and winkube by default): the Node authorizer, then RBAC. */
export const DEFAULT_AUTHORIZATION_MODES: readonly AuthorizationMode[] = [MODE_NODE, MODE_RBAC];

/** Parses the flag's value; throws an Error with the text to print. */
export function parseAuthorizationModes(value: string): AuthorizationMode[] {
  // pflag's string slice: CSV fields as given (an empty value is no mode at all).
  const modes = value === '' ? [] : value.split(',');
  if (modes.length === 0) throw new Error('at least one authorization-mode must be passed');
  for (const m of modes) {
    if (!AUTHORIZATION_MODE_CHOICES.includes(m)) throw new Error(`authorization-mode ${goQuote(m)} is not a valid mode`);
  }
  if (new Set(modes).size !== modes.length) {
    throw new Error(`authorization-mode [${modes.map(goQuote).join(' ')}] has mode specified more than once`);
  }
  for (const m of modes) {
    if (!SUPPORTED_MODES.includes(m)) throw new Error(`authorization-mode ${goQuote(m)} is not supported by winkube (supported: ${SUPPORTED_MODES.join(', ')})`);
  }
  return modes as AuthorizationMode[];
}
