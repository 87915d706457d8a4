/**
 * The container runtime's port-forward into a pod's network namespace
 * (containerd's internal/cri/server/sandbox_portforward_linux.go): a
 * connection to localhost:<port> inside the pod, which is the pod's own
 * listener on that port in the cluster network model.
 */
import { createHash } from 'node:crypto';
import type { KObject } from '../../apimachinery/object.js';
import type { PortForwardResult } from '../../apimachinery/port-forward.js';
import type { ClusterNetwork } from '../net/cluster-network.js';
import type { HttpReply } from '../shell/net-types.js';
import type { Pending } from '../shell/pending.js';
import { portForwardSandboxError } from '../../os/wincat.js';

/** The pod's sandbox as its node's runtime made it: the node's OS and its sandbox (pause) image. */
export interface PodSandbox { os: 'linux' | 'windows'; image: string }

/** The pod's sandbox id as the CRI runtime names it (64 hex digits, stable per pod). */
export function sandboxID(pod: KObject): string {
  return createHash('sha256').update(`sandbox/${pod.metadata.uid ?? pod.metadata.name}`).digest('hex');
}

/** The CNI network namespace the runtime created for the sandbox. */
function netnsPath(pod: KObject): string {
  const h = createHash('sha256').update(`netns/${pod.metadata.uid ?? pod.metadata.name}`).digest('hex');
  return `/var/run/netns/cni-${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

/** A Pending's value as a Promise (for relays outside the shells' runners). */
export function settled<T>(p: Pending<T>): Promise<T> {
  return new Promise((resolve) => { p.onSettle(() => resolve(p.value)); });
}

/** Dials `port` on localhost inside the pod (through wincat in a Windows sandbox, which must have it). */
export function dialPodPort(network: ClusterNetwork | undefined, pod: KObject, port: number, sandbox?: PodSandbox): PortForwardResult {
  const sandboxErr = sandbox && portForwardSandboxError(sandbox.os, sandbox.image);
  if (sandboxErr) return { kind: 'failed', message: sandboxErr };
  const podIP = (pod.status as { podIP?: string } | undefined)?.podIP;
  const conn = network && podIP ? network.connect(podIP, podIP, port) : { kind: 'refused' as const };
  if (conn.kind === 'connected') {
    return { kind: 'connected', exchange: (req) => settled<HttpReply>(conn.exchange(req)) as Promise<HttpReply> };
  }
  const id = sandboxID(pod);
  const v4 = `dial tcp4 127.0.0.1:${port}: connect: connection refused`;
  const v6 = `dial tcp6 [::1]:${port}: connect: connection refused`;
  return {
    kind: 'failed',
    message: `failed to execute portforward in network namespace ${JSON.stringify(netnsPath(pod))}: ` +
      `failed to connect to localhost:${port} inside namespace ${JSON.stringify(id)}, IPv4: ${v4} IPv6 ${v6} `,
  };
}
