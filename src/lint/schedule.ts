/**
 * The scheduler's verdict on a pod template against the cluster's nodes:
 * kube-scheduler's own profile and Filter plugins (src/scheduler/explain.ts)
 * on a pod made from the template as the API server would store it
 * (defaulted). Volumes the lint cannot know the fate of (claims, generic
 * ephemeral volumes) are left out, so VolumeBinding never rejects a claim
 * that the same manifests create.
 */
import type { PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import { defaultPodTemplateSpec } from '../component-helpers/pod-defaults.js';
import { explain, type Explanation } from '../scheduler/explain.js';
import { defaultConfig } from '../scheduler/profile.js';
import type { Framework } from '../scheduler/framework.js';
import type { PodTemplate } from './workload.js';
import type { ClusterDescription, Obj } from './types.js';

let framework: Framework | undefined;
const defaultFramework = (): Framework => {
  if (!framework) {
    const [profile] = defaultConfig().profiles;
    if (!profile) throw new Error('the default scheduler configuration has no profile');
    framework = profile.framework;
  }
  return framework;
};

/** The template as stored: a deep copy, defaulted as the API server defaults it. */
export function defaultedTemplate(t: PodTemplate): Obj {
  const copy: Obj = structuredClone({ metadata: t.meta, spec: t.spec });
  defaultPodTemplateSpec(copy as PodTemplateSpec);
  return copy;
}

const verdicts = new WeakMap<Obj, WeakMap<ClusterDescription, Explanation>>();

/** The scheduler's explanation for the template (memoized: several rules read it). */
export function scheduling(t: PodTemplate, namespace: string | undefined, cluster: ClusterDescription): Explanation {
  let byCluster = verdicts.get(t.spec);
  if (!byCluster) verdicts.set(t.spec, (byCluster = new WeakMap()));
  const known = byCluster.get(cluster);
  if (known) return known;
  const tpl = defaultedTemplate(t);
  const spec: Obj = { ...tpl.spec, nodeName: undefined };
  if (Array.isArray(spec.volumes)) spec.volumes = spec.volumes.filter((v: Obj) => !v?.persistentVolumeClaim && !v?.ephemeral);
  const pod = {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name: 'lint', namespace: namespace ?? 'default', uid: 'lint', labels: tpl.metadata?.labels ?? {} },
    spec,
  };
  const e = explain(defaultFramework(), pod, { nodes: cluster.nodes.map((n) => n.node), pods: [], others: {} });
  byCluster.set(cluster, e);
  return e;
}

/** The nodes the scheduler's filters accept for the template. */
export function feasibleNodes(e: Explanation): Set<string> {
  return new Set(e.preFilter ? [] : e.verdicts.filter((v) => v.rejections.length === 0).map((v) => v.node));
}
