/**
 * A Service's endpoints as the traffic view groups them: the EndpointSlices labelled
 * `kubernetes.io/service-name` with it, each endpoint under its node (`nodeName`), nodes under their OS and
 * Windows build column (the cluster map's), so a Service backed by Linux and Windows pods shows both.
 */
import type { Node } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { columnOf } from './os-columns.js';

export interface EndpointAddress {
  address: string;
  /** The pod behind it (targetRef), namespace/name. */
  target?: string;
  ready: boolean;
  serving: boolean;
  terminating: boolean;
}

export interface NodeEndpoints { node: string; endpoints: EndpointAddress[] }

export interface OsEndpoints { key: string; title: string; nodes: NodeEndpoints[] }

export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

export function slicesOf(slices: Iterable<EndpointSlice>, namespace: string, service: string): EndpointSlice[] {
  return [...slices].filter((s) => s.metadata?.namespace === namespace && s.metadata?.labels?.[SERVICE_NAME_LABEL] === service);
}

/** The ports the slices publish, as `name port/protocol` (a slice's ports apply to all its endpoints). */
export function slicePorts(slices: readonly EndpointSlice[]): string[] {
  const out = new Set<string>();
  for (const s of slices) for (const p of s.ports ?? []) out.add(`${p.name ? `${p.name} ` : ''}${p.port ?? ''}/${p.protocol ?? 'TCP'}`);
  return [...out].sort();
}

export function endpointsByOs(slices: readonly EndpointSlice[], nodes: ReadonlyMap<string, Node>): OsEndpoints[] {
  const groups = new Map<string, OsEndpoints & { order: number; byNode: Map<string, EndpointAddress[]> }>();
  for (const slice of slices) {
    for (const e of slice.endpoints) {
      const nodeName = e.nodeName ?? '';
      const node = nodes.get(nodeName);
      // An endpoint outside any node (the API server's own address behind default/kubernetes) has no nodeName.
      const column = node ? columnOf(node) : nodeName ? { key: 'unknown', title: 'Node unknown', order: 3_000_000 }
        : { key: 'none', title: 'Not on a node', order: 4_000_000 };
      let group = groups.get(column.key);
      if (!group) groups.set(column.key, group = { key: column.key, title: column.title, order: column.order, nodes: [], byNode: new Map() });
      let list = group.byNode.get(nodeName);
      if (!list) group.byNode.set(nodeName, list = []);
      // EndpointConditions: a nil ready means ready, a nil serving follows ready (discovery/v1 types.go).
      const ready = e.conditions?.ready ?? true;
      for (const address of e.addresses) {
        list.push({
          address, ready, serving: e.conditions?.serving ?? ready, terminating: e.conditions?.terminating ?? false,
          ...(e.targetRef?.name ? { target: `${e.targetRef.namespace ?? slice.metadata?.namespace ?? ''}/${e.targetRef.name}` } : {}),
        });
      }
    }
  }
  return [...groups.values()]
    .sort((a, b) => a.order - b.order || a.key.localeCompare(b.key))
    .map((g) => ({
      key: g.key, title: g.title,
      nodes: [...g.byNode.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([node, endpoints]) => ({
        node: node || '(no node)', endpoints: endpoints.sort((x, y) => x.address.localeCompare(y.address, undefined, { numeric: true })),
      })),
    }));
}
