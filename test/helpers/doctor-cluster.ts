/**
 * Object fixtures for `winkube doctor`'s checks: Node, Pod, Event,
 * DaemonSet and Service objects shaped as a v1.32 API server lists them,
 * with only the fields the checks read.
 */
import type { DaemonSet } from 'kubernetes-types/apps/v1.js';
import type { Event, Node, Pod, PodSpec, Service, Taint } from 'kubernetes-types/core/v1.js';
import type { ClusterSnapshot } from '../../src/doctor/types.js';

export function node(name: string, os: 'linux' | 'windows', opts: { build?: number; kubelet?: string; ready?: 'True' | 'False' | 'Unknown'; reason?: string; message?: string; taints?: Taint[]; images?: string[] } = {}): Node {
  const build = opts.build ?? 17763;
  return {
    apiVersion: 'v1', kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/os': os, 'kubernetes.io/hostname': name, ...(os === 'windows' ? { 'node.kubernetes.io/windows-build': `10.0.${build}` } : {}) } },
    spec: { ...(opts.taints ? { taints: opts.taints } : {}) },
    status: {
      conditions: [{ type: 'Ready', status: opts.ready ?? 'True', reason: opts.reason ?? 'KubeletReady', message: opts.message ?? 'kubelet is posting ready status' }],
      nodeInfo: {
        operatingSystem: os, architecture: 'amd64', kubeletVersion: opts.kubelet ?? 'v1.32.0', kubeProxyVersion: '', containerRuntimeVersion: 'containerd://1.7.22',
        kernelVersion: os === 'windows' ? `10.0.${build}.1879` : '6.8.0', osImage: '', machineID: '', systemUUID: '', bootID: '',
      },
      images: (opts.images ?? []).map((n) => ({ names: [`${n.split(':')[0] ?? n}@sha256:${'0'.repeat(64)}`, n], sizeBytes: 1 })),
    },
  };
}

export function pod(name: string, nodeName: string | undefined, spec: Partial<PodSpec> = {}, opts: { namespace?: string; labels?: Record<string, string>; owner?: { kind: string; name: string; uid: string }; phase?: string; waiting?: { reason: string; message?: string }; running?: boolean; ready?: boolean } = {}): Pod {
  const containers = spec.containers ?? [{ name: 'app', image: 'mcr.microsoft.com/windows/nanoserver:ltsc2019' }];
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: {
      name, namespace: opts.namespace ?? 'default', uid: `uid-${name}`, ...(opts.labels ? { labels: opts.labels } : {}),
      ...(opts.owner ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: opts.owner.kind, name: opts.owner.name, uid: opts.owner.uid, controller: true }] } : {}),
    },
    spec: { ...spec, containers, ...(nodeName ? { nodeName } : {}) },
    status: {
      phase: opts.phase ?? 'Running',
      conditions: [{ type: 'Ready', status: opts.ready === false || opts.waiting ? 'False' : 'True' }],
      containerStatuses: containers.map((c) => ({
        name: c.name, image: c.image ?? '', imageID: '', ready: !opts.waiting && opts.ready !== false, restartCount: 0,
        state: opts.waiting ? { waiting: opts.waiting } : opts.running === false ? {} : { running: { startedAt: '2025-01-01T00:00:00Z' } },
      })),
    },
  };
}

export function podEvent(p: Pod, reason: string, message: string, at = '2025-01-01T00:00:00Z', count = 1): Event {
  return {
    apiVersion: 'v1', kind: 'Event', metadata: { name: `${p.metadata?.name ?? ''}.${reason}.${at}`, namespace: p.metadata?.namespace ?? 'default' },
    involvedObject: { kind: 'Pod', name: p.metadata?.name ?? '', namespace: p.metadata?.namespace ?? 'default', uid: p.metadata?.uid ?? '' },
    reason, message, type: 'Warning', count, lastTimestamp: at, firstTimestamp: at,
  };
}

export function daemonSet(name: string, os: 'linux' | 'windows' | undefined, image: string, status: { desired?: number; ready?: number } = {}, namespace = 'kube-system'): DaemonSet {
  return {
    apiVersion: 'apps/v1', kind: 'DaemonSet',
    metadata: { name, namespace, uid: `uid-${name}`, labels: { 'k8s-app': name } },
    spec: {
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { ...(os ? { nodeSelector: { 'kubernetes.io/os': os } } : {}), containers: [{ name: 'c', image }] } },
    },
    status: { desiredNumberScheduled: status.desired ?? 1, numberReady: status.ready ?? status.desired ?? 1, currentNumberScheduled: status.desired ?? 1, numberMisscheduled: 0 },
  };
}

export function service(name: string, type: 'ClusterIP' | 'NodePort' | 'LoadBalancer', selector: Record<string, string>, nodePort = 30080): Service {
  return {
    apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default' },
    spec: { type, selector, ports: [{ port: 80, ...(type === 'ClusterIP' ? {} : { nodePort }) }] },
  };
}

/** A mixed cluster: a Linux node, a tainted Windows Server 2019 node and a tainted 2022 node, unless told otherwise. */
export function snapshot(parts: Partial<ClusterSnapshot> = {}): ClusterSnapshot {
  const taints = [{ key: 'os', value: 'windows', effect: 'NoSchedule' as const }];
  return {
    serverVersion: 'v1.32.0',
    nodes: [node('lin-1', 'linux'), node('win2019-1', 'windows', { build: 17763, taints }), node('win2022-1', 'windows', { build: 20348, taints })],
    pods: [], events: [], daemonSets: [], services: [], runtimeClasses: [],
    ...parts,
  };
}
