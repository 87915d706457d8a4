import { SchedulerCache } from '../../src/scheduler/cache.js';
import type { Listers } from '../../src/scheduler/framework.js';
import { PodInfo } from '../../src/scheduler/pod-info.js';

let uid = 0;

export function node(name: string, opts: { labels?: Record<string, string>; taints?: any[]; cpu?: string; memory?: string; pods?: string;
  unschedulable?: boolean; images?: { names: string[]; sizeBytes: number }[] } = {}): any {
  return {
    metadata: { name, labels: { 'kubernetes.io/hostname': name, ...opts.labels } },
    spec: { ...(opts.taints ? { taints: opts.taints } : {}), ...(opts.unschedulable ? { unschedulable: true } : {}) },
    status: { allocatable: { cpu: opts.cpu ?? '4', memory: opts.memory ?? '16Gi', pods: opts.pods ?? '110', 'ephemeral-storage': '100Gi' }, images: opts.images },
  };
}

export function pod(name: string, spec: any = {}, meta: any = {}): any {
  return {
    metadata: { name, namespace: meta.namespace ?? 'default', uid: `uid-${name}-${++uid}`, labels: meta.labels ?? {}, ...meta },
    spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec },
    status: {},
  };
}

export function requests(cpu?: string, memory?: string): any {
  const r: Record<string, string> = {};
  if (cpu) r.cpu = cpu;
  if (memory) r.memory = memory;
  return { containers: [{ name: 'c', image: 'nginx', resources: { requests: r } }] };
}

export const noListers: Listers = {
  pvc: () => undefined, pv: () => undefined, storageClass: () => undefined, defaultSelector: () => undefined,
};

export function snapshot(nodes: any[], bound: any[] = [], listers: Partial<Listers> = {}, nsLabels: Record<string, Record<string, string>> = {}): SchedulerCache {
  const cache = new SchedulerCache((ns) => nsLabels[ns], { ...noListers, ...listers });
  for (const n of nodes) cache.setNode(n);
  for (const p of bound) cache.addOrUpdatePod(new PodInfo(p));
  return cache;
}

export function bound(p: any, nodeName: string): any {
  return { ...p, spec: { ...p.spec, nodeName } };
}
