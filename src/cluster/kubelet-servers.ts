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

export function farmKubeletServers(farm: NodeFarm, store: Store, dns: ClusterDNS): KubeletServers {
  return (name) => {
    const node = farm.runningNode(name);
    if (!node) return undefined;
    const view: KubeletView = {
      cfg: node.cfg, index: node.index, bootTime: node.bootedAt, kubeletStartTime: node.bootedAt, dns,
      pods: async () => (await store.listAll('', 'pods', ''))
        .filter((p) => (p.spec as { nodeName?: string } | undefined)?.nodeName === name),
      imageBytes: () => farm.heldImages(name).reduce((sum, i) => sum + i.sizeBytes, 0),
    };
    return (path, query, now, method) => serveKubelet(view, path, query, now, method);
  };
}
