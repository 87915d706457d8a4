/** apps/v1 daemonsets (pkg/registry/apps/daemonset, SetDefaults_DaemonSet, apps/v1 conversion). */
import type { DaemonSet } from 'kubernetes-types/apps/v1.js';
import type { ResourceDef } from '../../types.js';
import { daemonSetValidation } from '../../../validation/daemonset.js';
import { workloadWarnings } from '../../../validation/workload-warnings.js';
import { ALL_VERBS, keepStatus, defaultTemplate, semanticEqual, statusSubresource, zeroFields } from '../shared.js';

/** appsv1.DeprecatedTemplateGeneration: the internal spec.templateGeneration, carried in an annotation by apps/v1. */
export const TEMPLATE_GENERATION = 'deprecated.daemonset.template.generation';

/** The four counters of DaemonSetStatus without omitempty. */
const STATUS_ZEROS = { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 };

export function defaultDaemonSet(obj: any): void {
  const spec = (obj.spec ??= {});
  const us = (spec.updateStrategy ??= {});
  us.type ||= 'RollingUpdate';
  if (us.type === 'RollingUpdate') {
    const ru = (us.rollingUpdate ??= {});
    ru.maxUnavailable ??= 1;
    ru.maxSurge ??= 0;
  }
  spec.revisionHistoryLimit ??= 10;
  defaultTemplate(spec);
  if (obj.status) zeroFields(obj.status, STATUS_ZEROS);
}

function templateGeneration(obj: any): number {
  const n = Number.parseInt(obj.metadata?.annotations?.[TEMPLATE_GENERATION] ?? '', 10);
  return Number.isNaN(n) ? 0 : n;
}

/** Convert_apps_DaemonSet_To_v1_DaemonSet always writes the annotation. */
function setTemplateGeneration(obj: any, n: number): void {
  const meta = (obj.metadata ??= {});
  meta.annotations = { ...(meta.annotations ?? {}), [TEMPLATE_GENERATION]: String(n) };
}

export const daemonsets: ResourceDef<DaemonSet> = {
  group: 'apps', version: 'v1', resource: 'daemonsets', singular: 'daemonset', kind: 'DaemonSet',
  namespaced: true, shortNames: ['ds'], categories: ['all'], verbs: ALL_VERBS,
  subresources: [statusSubresource('DaemonSet')],
  storageVersionHash: 'dd7pWHUlMKQ=',
  storagePrefix: '/apps/daemonsets',
  hasGeneration: true,
  hasStatusSubresource: true,
  defaults: defaultDaemonSet,
  prepareForCreate(obj) {
    obj.status = { ...STATUS_ZEROS };
    setTemplateGeneration(obj, Math.max(templateGeneration(obj), 1));
  },
  prepareForUpdate(obj, old) {
    keepStatus(obj, old);
    // The client may not set templateGeneration; a template change bumps it.
    const prev = templateGeneration(old);
    setTemplateGeneration(obj, semanticEqual(obj.spec?.template, old.spec?.template) ? prev : prev + 1);
  },
  ...daemonSetValidation,
  // WarningsOnCreate / WarningsOnUpdate.
  ...workloadWarnings('DaemonSet'),
};
