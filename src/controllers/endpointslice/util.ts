/**
 * What the endpoints and EndpointSlice controllers share
 * (staging/src/k8s.io/endpointslice/util, pkg/api/v1/pod, v1.32).
 */
import type { KObject } from '../../apimachinery/object.js';

type Pod = KObject & { spec?: any; status?: any };
type Service = KObject & { spec?: any };

/** podutil.IsPodReady: the Ready condition is True. */
export function isPodReady(pod: Pod): boolean {
  return (pod.status?.conditions ?? []).some((c: any) => c?.type === 'Ready' && c.status === 'True');
}

/** podutil.IsPodTerminal: Succeeded or Failed. */
export function isPodTerminal(pod: Pod): boolean {
  return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
}

/** The pod's IPs (status.podIPs, else status.podIP). */
export function podIPs(pod: Pod): string[] {
  const ips = (pod.status?.podIPs ?? []).map((p: any) => p?.ip).filter((ip: unknown): ip is string => typeof ip === 'string' && ip !== '');
  if (ips.length) return ips;
  return pod.status?.podIP ? [pod.status.podIP] : [];
}

/**
 * ShouldPodBeInEndpoints: terminal pods and pods without an IP never are;
 * terminating pods only when the caller includes them.
 */
export function shouldPodBeInEndpoints(pod: Pod, includeTerminating: boolean): boolean {
  if (isPodTerminal(pod)) return false;
  if (podIPs(pod).length === 0) return false;
  if (!includeTerminating && pod.metadata.deletionTimestamp) return false;
  return true;
}

/** ShouldSetHostname: the pod names the service as its subdomain and has a hostname. */
export function shouldSetHostname(pod: Pod, svc: Service): boolean {
  return !!pod.spec?.hostname && pod.spec?.subdomain === svc.metadata.name && pod.metadata.namespace === svc.metadata.namespace;
}

/** helper.IsServiceIPSet: a cluster IP that is neither empty nor None. */
export function isServiceIPSet(svc: Service): boolean {
  const ip = svc.spec?.clusterIP;
  return !!ip && ip !== 'None';
}

/** The address family the service's endpoints carry (its first ipFamily; IPv4 by default). */
export function serviceFamily(svc: Service): 'IPv4' | 'IPv6' {
  const fam = svc.spec?.ipFamilies?.[0];
  if (fam === 'IPv6') return 'IPv6';
  if (!fam && typeof svc.spec?.clusterIP === 'string' && svc.spec.clusterIP.includes(':')) return 'IPv6';
  return 'IPv4';
}

/** The pod IP of one family. */
export function podIPOfFamily(pod: Pod, family: 'IPv4' | 'IPv6'): string | undefined {
  return podIPs(pod).find((ip) => (family === 'IPv6') === ip.includes(':'));
}

/**
 * podutil.FindPort: a numeric targetPort as is; a named one resolved against
 * the pod's container ports (sidecar init containers included) of the
 * service port's protocol. Undefined when the pod has no such port.
 */
export function findPort(pod: Pod, svcPort: any): number | undefined {
  const target = svcPort?.targetPort ?? svcPort?.port;
  if (typeof target === 'number') return target;
  if (typeof target === 'string' && /^\d+$/.test(target)) return Number(target);
  const protocol = svcPort?.protocol ?? 'TCP';
  const containers = [
    ...(pod.spec?.containers ?? []),
    ...(pod.spec?.initContainers ?? []).filter((c: any) => c?.restartPolicy === 'Always'),
  ];
  for (const c of containers) {
    for (const p of c?.ports ?? []) {
      if (p?.name === target && (p.protocol ?? 'TCP') === protocol) return p.containerPort;
    }
  }
  return undefined;
}

/** The selector of a service as a predicate on labels (every key equal). */
export function selectsPod(selector: Record<string, string>, labels: Record<string, string> | undefined): boolean {
  for (const [k, v] of Object.entries(selector)) if ((labels ?? {})[k] !== v) return false;
  return true;
}

/**
 * TriggerTimeTracker (pkg/controller/util/endpoint): the time of the change
 * that led to an endpoints write, for the
 * `endpoints.kubernetes.io/last-change-trigger-time` annotation. A service
 * seen for the first time reports its creation; later syncs the earliest
 * pod Ready transition (or service creation) that changed since the last
 * sync, or nothing.
 */
export class TriggerTimeTracker {
  private readonly states = new Map<string, { pods: Map<string, number>; service: number }>();

  compute(svc: Service, pods: Pod[]): number | undefined {
    const key = `${svc.metadata.namespace}/${svc.metadata.name}`;
    const prior = this.states.get(key);
    let min: number | undefined;
    const podTimes = new Map<string, number>();
    for (const pod of pods) {
      const ready = (pod.status?.conditions ?? []).find((c: any) => c?.type === 'Ready');
      const t = ready?.lastTransitionTime ? Date.parse(ready.lastTransitionTime) : NaN;
      if (Number.isNaN(t)) continue;
      podTimes.set(pod.metadata.name!, t);
      if (t > (prior?.pods.get(pod.metadata.name!) ?? -Infinity)) min = min === undefined ? t : Math.min(min, t);
    }
    const svcTime = Date.parse(svc.metadata.creationTimestamp ?? '');
    if (!Number.isNaN(svcTime) && svcTime > (prior?.service ?? -Infinity)) min = min === undefined ? svcTime : Math.min(min, svcTime);
    this.states.set(key, { pods: podTimes, service: Number.isNaN(svcTime) ? 0 : svcTime });
    if (!prior) return Number.isNaN(svcTime) ? undefined : svcTime;
    return min;
  }

  delete(namespace: string, name: string): void {
    this.states.delete(`${namespace}/${name}`);
  }
}


export const LAST_CHANGE_TRIGGER_TIME = 'endpoints.kubernetes.io/last-change-trigger-time';
export const HEADLESS_LABEL = 'service.kubernetes.io/headless';
