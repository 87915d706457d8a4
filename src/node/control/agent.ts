/**
 * `winkube agent`: the node farm as its own process against a remote
 * winkube server over HTTPS, KWOK-style: its machines register, post status
 * and renew Leases through the API like any kubelet. Each new node takes the
 * lowest /24 of the pod subnet no node of the cluster holds; a node the
 * cluster already knows (an agent restart) keeps its own.
 */
import { X509Certificate } from 'node:crypto';
import { HttpsClient, IdentityCredentials, type ServerTarget } from '../../client/https.js';
import { nodeUser } from '../../client/identities.js';
import { nodes as nodeResource } from '../../client/resources.js';
import type { UserInfo } from '../../client/types.js';
import { EventRecorder } from '../../events/recorder.js';
import { NodeFarm } from '../farm.js';
import { DEFAULT_POD_SUBNET, podCIDRIndex, podSubnetCapacity } from '../network.js';
import { expandPools, PoolError, type NodePool } from '../pool.js';
import { requestNodeCredentials } from './node-credentials.js';

export interface RunningAgent { nodeNames: string[]; stop(): Promise<void> }

/** Who the kubeconfig's credentials name: a client certificate's CN and O (the token's user is the server's to know). */
function kubeconfigUser(target: ServerTarget): UserInfo {
  if (!target.cert) return { name: '', groups: ['system:authenticated'] };
  const subject = new X509Certificate(target.cert).subject.split('\n');
  const field = (key: string) => subject.filter((l) => l.startsWith(`${key}=`)).map((l) => l.slice(key.length + 1));
  return { name: field('CN')[0] ?? '', groups: [...field('O'), 'system:authenticated'] };
}

/** How many nodes request their certificates at once. */
const CREDENTIAL_REQUESTS_IN_FLIGHT = 16;

export async function runAgent(target: ServerTarget, pools: NodePool[], log: (m: string) => void): Promise<RunningAgent> {
  // The agent's own reads and writes use the kubeconfig's credentials; each node's kubelet (farm.ts)
  // acts as system:node:<name> with the client certificate it obtained for itself.
  const identities = new IdentityCredentials(target);
  const client = new HttpsClient(target, kubeconfigUser(target), 'winkube-agent', undefined, identities);
  const configs = expandPools(pools);
  const subnet = configs[0]?.network.podSubnet ?? DEFAULT_POD_SUBNET;
  const existing = (await client.resource(nodeResource).list('')).items;
  const held = new Map<string, number>();
  const used = new Set<number>();
  for (const n of existing) {
    const i = podCIDRIndex(subnet, n.spec?.podCIDR ?? '');
    if (i === undefined) continue;
    used.add(i);
    held.set(n.metadata?.name ?? '', i);
  }
  let next = 0;
  const room = podSubnetCapacity(subnet)!;
  const nodes = configs.map((cfg) => {
    let index = held.get(cfg.name);
    if (index === undefined) {
      while (used.has(next)) next++;
      if (next >= room) throw new PoolError(`the pod subnet ${subnet} has no /24 left for node ${cfg.name}`);
      index = next;
      used.add(next);
    }
    return { ...cfg, index };
  });
  const pending = nodes.map((n) => n.name);
  await Promise.all(Array.from({ length: CREDENTIAL_REQUESTS_IN_FLIGHT }, async () => {
    for (let name = pending.shift(); name !== undefined; name = pending.shift()) {
      identities.set(nodeUser(name).name, await requestNodeCredentials(client, name, log));
    }
  }));
  const events = new EventRecorder(client, log);
  const farm = new NodeFarm(client, nodes, log, undefined, pools, events);
  await farm.start();
  // The farm's timer wheel does not hold the process open (in the server, the listening socket does): this does.
  const alive = setInterval(() => {}, 60_000);
  return {
    nodeNames: farm.nodeNames,
    async stop() { clearInterval(alive); await farm.stop(); client.close(); },
  };
}
