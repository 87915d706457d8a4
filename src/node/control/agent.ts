/**
 * `winkube agent`: the node farm as its own process against a remote
 * winkube server over HTTPS, KWOK-style: its machines register, post status
 * and renew Leases through the API like any kubelet. Each new node takes the
 * lowest /24 of the pod subnet no node of the cluster holds; a node the
 * cluster already knows (an agent restart) keeps its own.
 */
import { EventRecorder } from '../../events/recorder.js';
import { HttpsClient } from '../../client/https.js';
import { NodeFarm, type FarmStore } from '../farm.js';
import { DEFAULT_POD_SUBNET, podCIDRIndex, podSubnetCapacity } from '../network.js';
import { expandPools, PoolError, type NodePool } from '../pool.js';
import type { ServerTarget } from './client.js';
import { RemoteStore } from './remote-store.js';

/** Who the agent's kubeconfig (`winkube up`'s admin credentials) authenticates as. */
const AGENT_USER = { name: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] };

export interface RunningAgent { nodeNames: string[]; stop(): Promise<void> }

export async function runAgent(target: ServerTarget, pools: NodePool[], log: (m: string) => void): Promise<RunningAgent> {
  const remote = new RemoteStore(target);
  const configs = expandPools(pools);
  const subnet = configs[0]?.network.podSubnet ?? DEFAULT_POD_SUBNET;
  const existing = (await remote.list(remote.find('', 'v1', 'nodes')!, '')).items;
  const held = new Map<string, number>();
  const used = new Set<number>();
  for (const n of existing) {
    const i = podCIDRIndex(subnet, (n.spec as any)?.podCIDR ?? '');
    if (i === undefined) continue;
    used.add(i);
    held.set(n.metadata.name!, i);
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
  const eventClient = new HttpsClient(target, AGENT_USER, 'kubelet');
  const events = new EventRecorder(eventClient, log);
  const farm = new NodeFarm(remote as unknown as FarmStore, nodes, log, undefined, pools, events);
  await farm.start();
  // The farm's timer wheel does not hold the process open (in the server, the listening socket does): this does.
  const alive = setInterval(() => {}, 60_000);
  return {
    nodeNames: farm.nodeNames,
    async stop() { clearInterval(alive); await farm.stop(); remote.close(); eventClient.close(); },
  };
}
