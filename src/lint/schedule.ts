/**
 * The scheduler's verdict on a pod template against the cluster's nodes:
 * kube-scheduler's own profile and Filter plugins (src/scheduler/explain.ts)
 * on a pod made from the template as the API server would store it
 * (defaulted). Volumes the lint cannot know the fate of (claims, generic
 * ephemeral volumes) are left out, so VolumeBinding never rejects a claim
 * that the same manifests create.
 */
import { defaultPodTemplateSpec } from '../component-helpers/pod-defaults.js';
import { explain, type Explanation } from '../scheduler/explain.js';
import { defaultConfig } from '../scheduler/profile.js';
import { FitError, type Framework } from '../scheduler/framework.js';
import { SchedulerCache } from '../scheduler/cache.js';
import { InformerListers } from '../scheduler/listers.js';
import { PodInfo } from '../scheduler/pod-info.js';
import { preempt } from '../scheduler/preemption.js';
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
  defaultPodTemplateSpec(copy);
  return copy;
}

/** The pod the scheduler would get for the template (its claims left out, see above). */
function podFor(t: PodTemplate, namespace: string | undefined): Obj {
  const tpl = defaultedTemplate(t);
  const spec: Obj = { ...tpl.spec, nodeName: undefined };
  if (Array.isArray(spec.volumes)) spec.volumes = spec.volumes.filter((v: Obj) => !v?.persistentVolumeClaim && !v?.ephemeral);
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name: 'lint', namespace: namespace ?? 'default', uid: 'lint', labels: tpl.metadata?.labels ?? {} },
    spec,
  };
}

/**
 * The FailedScheduling message kube-scheduler records for the template's pod
 * on an otherwise empty cluster (schedule_one.go: the FitError's text after
 * the PostFilter, i.e. preemption, has added its part); undefined when a
 * node fits.
 */
export function failedScheduling(t: PodTemplate, namespace: string | undefined, cluster: ClusterDescription): string | undefined {
  const listers = InformerListers.fromLists({});
  const cache = new SchedulerCache(listers.namespaceLabels, listers);
  for (const n of [...cluster.nodes].sort((a, b) => (a.name < b.name ? -1 : 1))) cache.setNode(n.node);
  const pod = new PodInfo(podFor(t, namespace));
  const fw = defaultFramework();
  try {
    fw.schedule(pod, cache);
    return undefined;
  } catch (e) {
    if (!(e instanceof FitError)) throw e;
    if (e.numAllNodes === 0) return 'no nodes available to schedule pods';
    // Preemption runs (the default profile has it) and finds no victims: the cluster holds no other pods.
    e.diagnosis.postFilterMsg = preempt(fw, pod, cache, e.diagnosis, [], () => 0).message;
    return e.text();
  }
}

const verdicts = new WeakMap<Obj, WeakMap<ClusterDescription, Explanation>>();

/** The scheduler's explanation for the template (memoized: several rules read it). */
export function scheduling(t: PodTemplate, namespace: string | undefined, cluster: ClusterDescription): Explanation {
  let byCluster = verdicts.get(t.spec);
  if (!byCluster) verdicts.set(t.spec, (byCluster = new WeakMap()));
  const known = byCluster.get(cluster);
  if (known) return known;
  const e = explain(defaultFramework(), podFor(t, namespace), { nodes: cluster.nodes.map((n) => n.node), pods: [], others: {} });
  byCluster.set(cluster, e);
  return e;
}

/** The nodes the scheduler's filters accept for the template. */
export function feasibleNodes(e: Explanation): Set<string> {
  return new Set(e.preFilter ? [] : e.verdicts.filter((v) => v.rejections.length === 0).map((v) => v.node));
}
