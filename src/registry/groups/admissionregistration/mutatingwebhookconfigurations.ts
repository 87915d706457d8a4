/** admissionregistration.k8s.io/v1 mutatingwebhookconfigurations (pkg/registry/admissionregistration/mutatingwebhookconfiguration). */
import type { MutatingWebhookConfiguration } from 'kubernetes-types/admissionregistration/v1.js';
import type { ResourceDef } from '../../types.js';
import { webhookConfigurationValidation } from '../../../validation/webhook-configuration.js';
import { ALL_VERBS } from '../shared.js';
import { defaultWebhooks } from './webhook-defaults.js';

export const mutatingwebhookconfigurations: ResourceDef<MutatingWebhookConfiguration> = {
  group: 'admissionregistration.k8s.io', version: 'v1', resource: 'mutatingwebhookconfigurations',
  singular: 'mutatingwebhookconfiguration', kind: 'MutatingWebhookConfiguration',
  namespaced: false, verbs: ALL_VERBS, categories: ['api-extensions'],
  storageVersionHash: 'Sqi0GUgDaX0=',
  storagePrefix: '/admissionregistration.k8s.io/mutatingwebhookconfigurations',
  // PrepareForUpdate bumps the generation when the webhooks change.
  hasGeneration: true,
  generationInput: (o) => o.webhooks ?? [],
  defaults(obj) { defaultWebhooks(obj, true); },
  ...webhookConfigurationValidation('mutating'),
};
