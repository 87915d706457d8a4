/** apps/v1 deployments (pkg/registry/apps/deployment, pkg/apis/apps/v1 defaults and conversion). */
import type { Deployment } from 'kubernetes-types/apps/v1.js';
import type { ResourceDef } from '../../types.js';
import { deploymentValidation } from '../../../validation/deployment.js';
import { workloadWarnings } from '../../../validation/workload-warnings.js';
import { ALL_VERBS, keepStatus, defaultTemplate, dropAnnotation, scaleSubresource, statusSubresource } from '../shared.js';

/** appsv1.DeprecatedRollbackTo: the internal spec.rollbackTo, carried in an annotation by apps/v1. */
const ROLLBACK_TO = 'deprecated.deployment.rollback.to';

/** SetDefaults_Deployment plus the pod template defaults. */
export function defaultDeployment(obj: any): void {
  const spec = (obj.spec ??= {});
  spec.replicas ??= 1;
  const strategy = (spec.strategy ??= {});
  strategy.type ||= 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') {
    const ru = (strategy.rollingUpdate ??= {});
    ru.maxUnavailable ??= '25%';
    ru.maxSurge ??= '25%';
  }
  spec.revisionHistoryLimit ??= 10;
  spec.progressDeadlineSeconds ??= 600;
  defaultTemplate(spec);
  // The v1 -> internal -> v1 round trip drops an empty rollbackTo annotation
  // (only a non-empty one becomes spec.rollbackTo and comes back).
  if (obj.metadata?.annotations?.[ROLLBACK_TO] === '') dropAnnotation(obj.metadata, ROLLBACK_TO);
}

export const deployments: ResourceDef<Deployment> = {
  group: 'apps', version: 'v1', resource: 'deployments', singular: 'deployment', kind: 'Deployment',
  namespaced: true, shortNames: ['deploy'], categories: ['all'], verbs: ALL_VERBS,
  subresources: [scaleSubresource, statusSubresource('Deployment')],
  storageVersionHash: '8aSe+NMegvE=',
  storagePrefix: '/apps/deployments',
  hasGeneration: true,
  // Annotations bump the generation too: the controller copies them to ReplicaSets.
  generationInput: (obj) => ({ spec: obj.spec, annotations: obj.metadata.annotations }),
  hasStatusSubresource: true,
  // deploymentStatusStrategy resets only spec and labels: the controller writes its revision annotation with status.
  statusWritesAnnotations: true,
  defaults: defaultDeployment,
  prepareForCreate(obj) {
    obj.status = {}; // DeploymentStatus: every field omitempty
  },
  prepareForUpdate(obj, old) {
    keepStatus(obj, old);
  },
  ...deploymentValidation,
  // WarningsOnCreate / WarningsOnUpdate.
  ...workloadWarnings('Deployment'),
};
