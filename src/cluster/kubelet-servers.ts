/**
 * The kubelet servers of the farm's nodes, as nodes/NAME/proxy reaches them:
 * a running node's configuration and boot time, its pods from the store and
 * its runtime's images; nothing for a stopped node (its kubelet does not answer).
 */
import type { KubeletServers } from '../api/node-proxy.js';
import type { NodeFarm } from '../node/farm.js';
import type { Store } from '../registry/store.js';
import type { ClusterDNS } from '../node/kubelet-server/kubelet-config.js';
import { serveKubelet, type KubeletView } from '../node/kubelet-server/kubelet-mux.js';
import { NodeCPUCounter } from '../node/kubelet-server/node-cpu-counter.js';
import { NODE_IDLE } from '../node/usage/idle-usage.js';
import type { ServedWorkStore } from '../node/usage/served-work.js';

export function farmKubeletServers(farm: NodeFarm, store: Store, dns: ClusterDNS, served?: ServedWorkStore): KubeletServers {
  // One CPU counter per boot of each node: it restarts from zero when the machine does.
  const counters = new Map<string, NodeCPUCounter>();
  return (name) => {
    const node = farm.runningNode(name);
    if (!node) return undefined;
    const key = `${name}@${node.bootedAt.getTime()}`;
    let counter = counters.get(key);
    if (!counter) {
      for (const k of counters.keys()) if (k.startsWith(`${name}@`)) counters.delete(k);
      counters.set(key, counter = new NodeCPUCounter(node.bootedAt.getTime(), NODE_IDLE[node.cfg.os].nanoCores));
    }
    const cpu = counter;
    const view: KubeletView = {
      cfg: node.cfg, index: node.index, bootTime: node.bootedAt, kubeletStartTime: node.bootedAt, dns,
      pods: async () => (await store.listAll('', 'pods', ''))
        .filter((p) => (p.spec as { nodeName?: string } | undefined)?.nodeName === name),
      imageBytes: () => farm.heldImages(name).reduce((sum, i) => sum + i.sizeBytes, 0),
      nodeCPUTime: (nowMs, nanoCores) => cpu.read(nowMs, nanoCores),
      ...(served ? { served } : {}),
    };
    return (path, query, now, method) => serveKubelet(view, path, query, now, method);
  };
}
