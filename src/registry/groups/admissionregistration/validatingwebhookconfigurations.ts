/** admissionregistration.k8s.io/v1 validatingwebhookconfigurations (pkg/registry/admissionregistration/validatingwebhookconfiguration). */
import type { ValidatingWebhookConfiguration } from 'kubernetes-types/admissionregistration/v1.js';
import type { ResourceDef } from '../../types.js';
import { webhookConfigurationValidation } from '../../../validation/webhook-configuration.js';
import { ALL_VERBS } from '../shared.js';
import { defaultWebhooks } from './webhook-defaults.js';

export const validatingwebhookconfigurations: ResourceDef<ValidatingWebhookConfiguration> = {
  group: 'admissionregistration.k8s.io', version: 'v1', resource: 'validatingwebhookconfigurations',
  singular: 'validatingwebhookconfiguration', kind: 'ValidatingWebhookConfiguration',
  namespaced: false, verbs: ALL_VERBS, categories: ['api-extensions'],
  storageVersionHash: 'B0wHjQmsGNk=',
  storagePrefix: '/admissionregistration.k8s.io/validatingwebhookconfigurations',
  // PrepareForUpdate bumps the generation when the webhooks change.
  hasGeneration: true,
  generationInput: (o) => o.webhooks ?? [],
  defaults(obj) { defaultWebhooks(obj, false); },
  ...webhookConfigurationValidation('validating'),
};
