/** Nodes: printNode. */
import type { Printer } from '../types.js';
import { ageColumn, column, nameColumn } from './columns.js';
import { ageOf, byteOrder, nameOf } from './cells.js';

const ADDRESSES_DESC = "List of addresses reachable to the node. Queried from cloud provider, if available. More info: https://kubernetes.io/docs/reference/node/node-status/#addresses Note: This field is declared as mergeable, but the merge key is not sufficiently unique, which can cause data corruption when it is merged. Callers should instead use a full-replacement patch. See https://pr.k8s.io/79391 for an example. Consumers should assume that addresses can change during the lifetime of a Node. However, there are some exceptions where this may not be possible, such as Pods that inherit a Node's address in its own status or consumers of the downward API (status.hostIP).";

const ROLE_PREFIX = 'node-role.kubernetes.io/';

/** findNodeRoles: node-role.kubernetes.io/<role> keys and kubernetes.io/role values. */
function roles(node: any): string {
  const set = new Set<string>();
  for (const [k, v] of Object.entries<string>(node?.metadata?.labels ?? {})) {
    if (k.startsWith(ROLE_PREFIX)) {
      if (k.length > ROLE_PREFIX.length) set.add(k.slice(ROLE_PREFIX.length));
    } else if (k === 'kubernetes.io/role' && v !== '') set.add(v);
  }
  return [...set].sort(byteOrder).join(',') || '<none>';
}

/** Ready/NotReady from the Ready condition (the last of that type wins), else Unknown. */
function nodeStatus(node: any): string {
  let ready: any;
  for (const c of node?.status?.conditions ?? []) if (c?.type === 'Ready') ready = c;
  const status = [ready ? (ready.status === 'True' ? 'Ready' : 'NotReady') : 'Unknown'];
  if (node?.spec?.unschedulable) status.push('SchedulingDisabled');
  return status.join(',');
}

function address(node: any, type: string): string {
  const a = (node?.status?.addresses ?? []).find((x: any) => x?.type === type);
  return a ? a.address ?? '' : '<none>';
}

export const nodePrinter: Printer = {
  columns: [
    nameColumn,
    column('Status', 'string', 'The status of the node'),
    column('Roles', 'string', 'The roles of the node'),
    ageColumn,
    column('Version', 'string', 'Kubelet Version reported by the node.'),
    column('Internal-IP', 'string', ADDRESSES_DESC, 1),
    column('External-IP', 'string', ADDRESSES_DESC, 1),
    column('OS-Image', 'string', 'OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).', 1),
    column('Kernel-Version', 'string', "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).", 1),
    column('Container-Runtime', 'string', 'ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).', 1),
  ],
  cells(obj: any, now: number): unknown[] {
    const info = obj?.status?.nodeInfo ?? {};
    return [
      nameOf(obj), nodeStatus(obj), roles(obj), ageOf(obj, now), info.kubeletVersion ?? '',
      address(obj, 'InternalIP'), address(obj, 'ExternalIP'),
      info.osImage || '<unknown>', info.kernelVersion || '<unknown>', info.containerRuntimeVersion || '<unknown>',
    ];
  },
};
