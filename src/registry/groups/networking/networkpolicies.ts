/**
 * networking.k8s.io/v1 networkpolicies (pkg/registry/networking/networkpolicy).
 * v1.32 serves no status: NetworkPolicyStatus was removed in v1.28, so
 * neither the field nor the subresource exists.
 */
import type { NetworkPolicy } from 'kubernetes-types/networking/v1.js';
import type { ResourceDef } from '../../types.js';
import { networkPolicyValidation } from '../../../validation/networkpolicy.js';
import { isObj } from '../../../validation/common.js';
import { ALL_VERBS } from '../shared.js';

/** SetDefaults_NetworkPolicyPort: an unset protocol is TCP. */
function defaultPorts(rules: unknown): void {
  if (!Array.isArray(rules)) return;
  for (const rule of rules) {
    if (!isObj(rule) || !Array.isArray(rule.ports)) continue;
    for (const port of rule.ports) if (isObj(port)) port.protocol ??= 'TCP';
  }
}

export const networkpolicies: ResourceDef<NetworkPolicy> = {
  group: 'networking.k8s.io', version: 'v1', resource: 'networkpolicies', singular: 'networkpolicy', kind: 'NetworkPolicy',
  namespaced: true, shortNames: ['netpol'], verbs: ALL_VERBS,
  storageVersionHash: 'YpfwF18m1G8=',
  storagePrefix: '/networking.k8s.io/networkpolicies',
  hasGeneration: true,
  defaults(obj) {
    // podSelector has no omitempty: Go writes the empty selector.
    const spec = (obj.spec ??= {});
    spec.podSelector ??= {};
    defaultPorts(spec.ingress);
    defaultPorts(spec.egress);
    // SetDefaults_NetworkPolicy: no policyTypes means Ingress, plus Egress when egress rules are given.
    if (!Array.isArray(spec.policyTypes) || !spec.policyTypes.length) {
      spec.policyTypes = ['Ingress'];
      if (Array.isArray(spec.egress) && spec.egress.length) spec.policyTypes.push('Egress');
    }
  },
  ...networkPolicyValidation,
};
