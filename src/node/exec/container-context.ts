import type { KObject } from '../../apimachinery/object.js';
import { configmaps, secrets as secretResource, services as serviceResource } from '../../client/resources.js';
import type { Client, ResourceRef } from '../../client/types.js';
import { processEnv, podHostname, type EnvSources, type PodNetworkInfo } from '../runtime/env.js';
import { containerFS } from '../runtime/volumes.js';
import { podNetwork } from './pod-network.js';
import { processIdentity } from '../runtime/process-identity.js';
import type { Container, Pod } from 'kubernetes-types/core/v1.js';
import { posixShellOf, type ShellContext } from '../shell/index.js';

type Obj = Record<string, any>;

/** The OS of the node a pod runs on: the node's kubernetes.io/os label, else the pod's spec.os. */
export function nodeOS(pod: KObject, node: KObject | undefined): 'linux' | 'windows' {
  const label = node?.metadata.labels?.['kubernetes.io/os'] ?? (node?.status as Obj | undefined)?.nodeInfo?.operatingSystem;
  const os = label ?? (pod.spec as Obj)?.os?.name;
  return os === 'windows' ? 'windows' : 'linux';
}

/** What a kubelet offers exec about the containers it runs (Kubelet.worker(...).execContext). */
export interface RunningContainers {
  worker(namespace: string, name: string): { pod: KObject; execContext(container: string): Omit<ShellContext, 'posixShell' | 'image'> | undefined } | undefined;
}

/**
 * The running container's own context, when a kubelet of this process runs
 * it: one filesystem for the container's command and every exec into it, so
 * a file one `kubectl exec` (or `kubectl cp`) writes is there for the next.
 */
export function runningContainerContext(kubelet: RunningContainers | undefined, pod: KObject, containerName: string): ShellContext | undefined {
  const w = kubelet?.worker(pod.metadata.namespace ?? 'default', pod.metadata.name ?? '');
  if (!w || w.pod.metadata.uid !== pod.metadata.uid) return undefined;
  const live = w.execContext(containerName);
  if (!live) return undefined;
  const spec = pod.spec as Obj;
  const container = [...(spec.initContainers ?? []), ...(spec.containers ?? []), ...(spec.ephemeralContainers ?? [])].find((c: Obj) => c.name === containerName);
  const image = String(container?.image ?? '');
  return { ...live, posixShell: posixShellOf(image), image, network: live.network ?? podNetwork(pod) };
}

/**
 * The context a `kubectl exec` command runs in, built as the kubelet builds
 * the container's: its environment (env, envFrom, service links, image
 * defaults, HOSTNAME), hostname, mounted configMap/secret/projected files,
 * and its node's OS and kernel. `client` reads as the pod's kubelet.
 */
export async function execContext(client: Client, pod: KObject, containerName: string, node: KObject | undefined): Promise<ShellContext> {
  const ns = pod.metadata.namespace ?? 'default';
  const spec = pod.spec as Obj;
  const container: Obj = [...(spec.initContainers ?? []), ...(spec.containers ?? []), ...(spec.ephemeralContainers ?? [])]
    .find((c: Obj) => c.name === containerName) ?? { name: containerName };
  // The environment's sources are plain objects to the runtime (env.ts reads them as JSON).
  const list = async <T>(ref: ResourceRef<T>, namespace: string) => (await client.resource(ref).list(namespace)).items as unknown as KObject[];
  const [configMaps, secrets, services] = await Promise.all([list(configmaps, ns), list(secretResource, ns), list(serviceResource, '')]);
  const sources: EnvSources = {
    configMap: (n, name) => configMaps.find((o) => o.metadata.namespace === n && o.metadata.name === name),
    secret: (n, name) => secrets.find((o) => o.metadata.namespace === n && o.metadata.name === name),
    services: () => services,
  };
  const os = nodeOS(pod, node);
  const status = (pod.status ?? {}) as Obj;
  const nodeStatus = (node?.status ?? {}) as Obj;
  const net: PodNetworkInfo = {
    nodeName: spec.nodeName ?? '',
    hostIPs: (status.hostIPs ?? []).map((h: Obj) => h.ip).filter(Boolean).concat(status.hostIPs ? [] : status.hostIP ? [status.hostIP] : []),
    podIPs: (status.podIPs ?? []).map((p: Obj) => p.ip).filter(Boolean).concat(status.podIPs ? [] : status.podIP ? [status.podIP] : []),
    allocatable: { cpu: nodeStatus.allocatable?.cpu ?? '0', memory: nodeStatus.allocatable?.memory ?? '0' },
    os,
  };
  const hostname = podHostname(pod);
  const cpus = Math.max(1, Math.floor(Number.parseFloat(nodeStatus.capacity?.cpu ?? '1')) || 1);
  return {
    os,
    env: processEnv(pod, container, net, sources, hostname, cpus),
    hostname,
    fs: containerFS(pod, container, os, { sources, net }),
    kernelVersion: nodeStatus.nodeInfo?.kernelVersion,
    posixShell: posixShellOf(String(container.image ?? '')),
    image: String(container.image ?? ''),
    network: podNetwork(pod),
    ...(os === 'linux' ? { identity: processIdentity(pod as Pod, container as Container) } : {}),
  };
}
