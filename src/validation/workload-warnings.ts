/**
 * The workloads' WarningsOnCreate / WarningsOnUpdate (pkg/registry/apps/*,
 * pkg/registry/batch/*, pkg/registry/core/replicationcontroller, v1.32): a
 * name that is not a DNS label (it becomes part of pod names and
 * hostnames), then GetWarningsForPodTemplate on the template, and for jobs
 * WarningsForJobSpec. Upstream adds them once strategy validation passed,
 * and on update only when the generation moves (a spec change).
 */
import { isDNS1123Label } from '../meta/names.js';
import type { WriteContext } from '../apimachinery/write-context.js';
import { deepEqual, isObj, num, str, type Obj } from './common.js';
import { podTemplateWarnings } from './pod-warnings.js';

const specOf = (o: Obj): Obj => (isObj(o.spec) ? o.spec : {});

/** The name warning of the workloads whose names may still be DNS subdomains. */
export function nameWarnings(obj: Obj): string[] {
  const msgs = isDNS1123Label(str(obj.metadata?.name));
  return msgs.length ? [`metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: [${msgs.join(' ')}]`] : [];
}

/** job.WarningsForJobSpec */
export function jobSpecWarnings(spec: Obj, path: string): string[] {
  const w: string[] = [];
  if (spec.completionMode === 'Indexed' && num(spec.completions) > 100000 && num(spec.parallelism) > 10000) {
    w.push(`${path}: In Indexed Jobs with a number of completions higher than 10^5 and a parallelism higher than 10^4, ` +
      'Kubernetes might not be able to track completedIndexes when a big number of indexes fail');
  }
  return [...w, ...podTemplateWarnings(spec.template, `${path}.template`)];
}

/** What each kind warns about (create; the update warnings are the same minus the name). */
export const WORKLOAD_WARNINGS = {
  Deployment: { name: true, spec: (o) => podTemplateWarnings(specOf(o).template, 'spec.template') },
  ReplicaSet: { name: true, spec: (o) => podTemplateWarnings(specOf(o).template, 'spec.template') },
  DaemonSet: { name: true, spec: (o) => podTemplateWarnings(specOf(o).template, 'spec.template') },
  StatefulSet: { name: false, spec: (o) => podTemplateWarnings(specOf(o).template, 'spec.template') },
  ReplicationController: { name: true, spec: (o) => podTemplateWarnings(specOf(o).template, 'spec.template') },
  Job: { name: true, spec: (o) => jobSpecWarnings(specOf(o), 'spec') },
  CronJob: { name: true, spec: (o) => jobSpecWarnings(isObj(specOf(o).jobTemplate?.spec) ? specOf(o).jobTemplate.spec : {}, 'spec.jobTemplate.spec') },
} satisfies Record<string, { name: boolean; spec: (obj: Obj) => string[] }>;

/** The kind's warnings, which the store adds once validation has passed. */
export function workloadWarnings(kind: keyof typeof WORKLOAD_WARNINGS) {
  const w = WORKLOAD_WARNINGS[kind];
  return {
    warnCreate(obj: Obj, ctx: WriteContext): void {
      for (const m of [...(w.name ? nameWarnings(obj) : []), ...w.spec(obj)]) ctx.warn(m);
    },
    warnUpdate(obj: Obj, old: Obj, ctx: WriteContext): void {
      if (deepEqual(obj.spec, old.spec)) return;
      for (const m of w.spec(obj)) ctx.warn(m);
    },
  };
}
