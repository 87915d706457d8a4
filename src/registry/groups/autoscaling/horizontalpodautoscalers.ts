/**
 * autoscaling/v2 and autoscaling/v1 horizontalpodautoscalers: one storage,
 * kept as v2 (pkg/registry/autoscaling/horizontalpodautoscaler). The v1
 * resource runs every hook on the v2 form, as upstream runs them on the
 * internal type, so v1 answers are what upstream's conversion gives.
 */
import type { HorizontalPodAutoscaler } from 'kubernetes-types/autoscaling/v2.js';
import type { KObject } from '../../../apimachinery/object.js';
import type { ResourceDef } from '../../types.js';
import { horizontalPodAutoscalerValidation as validation } from '../../../validation/horizontalpodautoscaler.js';
import { ALL_VERBS, keepStatus, replaceContents, statusSubresource } from '../shared.js';
import { DEFAULT_CPU_UTILIZATION, hpaV1ToV2, hpaV2ToV1 } from './convert.js';

const STORAGE_PREFIX = '/autoscaling/horizontalpodautoscalers';

/** The v2 status fields without omitempty (currentMetrics is a slice: null when unset). */
function emptyStatusV2(): Record<string, unknown> {
  return { desiredReplicas: 0, currentMetrics: null };
}

type Rules = { stabilizationWindowSeconds?: number; selectPolicy?: string; policies?: unknown[] };

/** GenerateHPAScaleUpRules / GenerateHPAScaleDownRules: the defaults, overridden by what was given. */
function scalingRules(given: Rules | undefined, defaults: Rules): Rules {
  const out: Rules = {};
  const window = given?.stabilizationWindowSeconds ?? defaults.stabilizationWindowSeconds;
  if (window != null) out.stabilizationWindowSeconds = window;
  out.selectPolicy = given?.selectPolicy ?? defaults.selectPolicy;
  out.policies = given?.policies ?? defaults.policies;
  return out;
}

const SCALE_UP: Rules = {
  stabilizationWindowSeconds: 0, selectPolicy: 'Max',
  policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }],
};
// No scale-down window: the controller's --horizontal-pod-autoscaler-downscale-stabilization applies.
const SCALE_DOWN: Rules = { selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] };

/** autoscaling/v2 SetDefaults_HorizontalPodAutoscaler (v1.32). */
export function defaultHpaV2(obj: any): void {
  const spec = (obj.spec ??= {});
  spec.scaleTargetRef ??= {};
  spec.scaleTargetRef.kind ??= '';
  spec.scaleTargetRef.name ??= '';
  spec.minReplicas ??= 1;
  spec.maxReplicas ??= 0;
  if (!spec.metrics?.length) {
    spec.metrics = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: DEFAULT_CPU_UTILIZATION } } }];
  }
  // Behavior is only filled in when given.
  if (spec.behavior) {
    spec.behavior = {
      scaleUp: scalingRules(spec.behavior.scaleUp, structuredClone(SCALE_UP)),
      scaleDown: scalingRules(spec.behavior.scaleDown, structuredClone(SCALE_DOWN)),
    };
  }
  if (obj.status) {
    obj.status.desiredReplicas ??= 0;
    if (obj.status.currentMetrics === undefined) obj.status.currentMetrics = null;
  }
}

export const horizontalpodautoscalersV2: ResourceDef<HorizontalPodAutoscaler> = {
  group: 'autoscaling', version: 'v2', resource: 'horizontalpodautoscalers', singular: 'horizontalpodautoscaler',
  kind: 'HorizontalPodAutoscaler', namespaced: true, shortNames: ['hpa'], categories: ['all'], verbs: ALL_VERBS,
  subresources: [statusSubresource('HorizontalPodAutoscaler')],
  storageVersionHash: 'qwQve8ut294=',
  storagePrefix: STORAGE_PREFIX,
  // No metadata.generation: the HPAGeneration gate came after v1.32.
  hasStatusSubresource: true,
  defaults: defaultHpaV2,
  prepareForCreate(obj) {
    // With the null Go writes for a nil currentMetrics, which kubernetes-types' shape does not allow.
    obj.status = emptyStatusV2() as unknown as HorizontalPodAutoscaler['status'];
  },
  prepareForUpdate(obj, old) {
    keepStatus(obj, old);
  },
  ...validation,
};

/** The stored form of a v1 object: converted, then defaulted as a v2 decode would. */
function toV2(v1: KObject): KObject {
  const v2 = hpaV1ToV2(v1);
  defaultHpaV2(v2);
  return v2;
}

export const horizontalpodautoscalersV1: ResourceDef = {
  ...horizontalpodautoscalersV2,
  version: 'v1',
  defaults(obj) {
    // autoscaling/v1 SetDefaults_HorizontalPodAutoscaler; the CPU default comes in conversion.
    (obj.spec ??= {}).minReplicas ??= 1;
    replaceContents(obj, hpaV2ToV1(toV2(obj)));
  },
  prepareForCreate(obj) {
    const v2 = toV2(obj);
    v2.status = emptyStatusV2();
    replaceContents(obj, hpaV2ToV1(v2));
  },
  prepareForUpdate(obj, old) {
    // The old status is taken whole, annotations-carried parts included.
    const v2 = toV2(obj);
    keepStatus(v2, toV2(old));
    replaceContents(obj, hpaV2ToV1(v2));
  },
  // Validation runs on the internal (v2) form, so paths and messages are v2's.
  validate: (obj) => validation.validate(toV2(obj)),
  validateUpdate: (obj, old, subresource) => validation.validateUpdate(toV2(obj), toV2(old), subresource),
  toStorage: toV2,
  fromStorage: hpaV2ToV1,
};
