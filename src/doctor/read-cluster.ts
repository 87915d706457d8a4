/**
 * The snapshot, read over HTTPS with a kubeconfig's credentials as any
 * client does (the way `winkube lint --kubeconfig` reads nodes): list calls
 * and /version only, nothing written. A list the credentials may not read
 * is left empty and named, so a narrower role still gets the other checks.
 */
import type { DaemonSet } from 'kubernetes-types/apps/v1.js';
import type { Event, Node, Pod, Service } from 'kubernetes-types/core/v1.js';
import type { RuntimeClass } from 'kubernetes-types/node/v1.js';
import { callControl, targetFromKubeconfig } from '../node/control/client.js';
import type { ServerTarget } from '../client/https.js';
import type { ClusterSnapshot } from './types.js';

export interface ReadResult {
  snapshot: ClusterSnapshot;
  origin: string;
  /** Lists that failed (forbidden, not served): `GET /apis/node.k8s.io/v1/runtimeclasses: HTTP 403 ...`. */
  unreadable: string[];
}

async function list<T>(t: ServerTarget, path: string, unreadable: string[]): Promise<T[]> {
  const r = await callControl(t, 'GET', path);
  if (r.status === 200 && Array.isArray(r.body?.items)) return r.body.items as T[];
  unreadable.push(`GET ${path}: ${typeof r.body?.message === 'string' ? r.body.message : `HTTP ${r.status}`}`);
  return [];
}

export async function readCluster(kubeconfig: string): Promise<ReadResult> {
  const t = targetFromKubeconfig(kubeconfig);
  const version = await callControl(t, 'GET', '/version');
  // Nodes are the one list every check needs: without them there is nothing to diagnose.
  const nodes = await callControl(t, 'GET', '/api/v1/nodes');
  if (nodes.status !== 200) throw new Error(`listing nodes at ${t.server.origin}: ${String(nodes.body?.message ?? `HTTP ${nodes.status}`)}`);
  const unreadable: string[] = [];
  const [pods, events, daemonSets, services, runtimeClasses] = await Promise.all([
    list<Pod>(t, '/api/v1/pods', unreadable),
    list<Event>(t, '/api/v1/events', unreadable),
    list<DaemonSet>(t, '/apis/apps/v1/daemonsets', unreadable),
    list<Service>(t, '/api/v1/services', unreadable),
    list<RuntimeClass>(t, '/apis/node.k8s.io/v1/runtimeclasses', unreadable),
  ]);
  const serverVersion = version.status === 200 && typeof version.body?.gitVersion === 'string' ? version.body.gitVersion as string : undefined;
  return {
    origin: t.server.origin, unreadable,
    snapshot: { ...(serverVersion ? { serverVersion } : {}), nodes: (nodes.body?.items ?? []) as Node[], pods, events, daemonSets, services, runtimeClasses },
  };
}
