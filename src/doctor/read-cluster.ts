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

/** A list's items, or why it could not be read (forbidden, not served). */
async function list<T>(t: ServerTarget, path: string): Promise<{ items: T[]; unreadable?: string }> {
  const r = await callControl(t, 'GET', path);
  if (r.status === 200 && Array.isArray(r.body?.items)) return { items: r.body.items as T[] };
  return { items: [], unreadable: `GET ${path}: ${typeof r.body?.message === 'string' ? r.body.message : `HTTP ${r.status}`}` };
}

export async function readCluster(kubeconfig: string): Promise<ReadResult> {
  const t = targetFromKubeconfig(kubeconfig);
  const version = await callControl(t, 'GET', '/version');
  // Nodes are the one list every check needs: without them there is nothing to diagnose.
  const nodes = await callControl(t, 'GET', '/api/v1/nodes');
  if (nodes.status !== 200) throw new Error(`listing nodes at ${t.server.origin}: ${String(nodes.body?.message ?? `HTTP ${nodes.status}`)}`);
  const [pods, events, daemonSets, services, runtimeClasses] = await Promise.all([
    list<Pod>(t, '/api/v1/pods'),
    list<Event>(t, '/api/v1/events'),
    list<DaemonSet>(t, '/apis/apps/v1/daemonsets'),
    list<Service>(t, '/api/v1/services'),
    list<RuntimeClass>(t, '/apis/node.k8s.io/v1/runtimeclasses'),
  ]);
  // In the order the lists are named above, whatever order their answers came in.
  const unreadable = [pods, events, daemonSets, services, runtimeClasses].flatMap((l) => (l.unreadable ? [l.unreadable] : []));
  const serverVersion = version.status === 200 && typeof version.body?.gitVersion === 'string' ? version.body.gitVersion as string : undefined;
  return {
    origin: t.server.origin, unreadable,
    snapshot: { ...(serverVersion ? { serverVersion } : {}), nodes: (nodes.body?.items ?? []) as Node[], pods: pods.items, events: events.items, daemonSets: daemonSets.items,
      services: services.items, runtimeClasses: runtimeClasses.items },
  };
}
