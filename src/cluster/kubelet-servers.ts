/**
 * The kubelet servers of the farm's nodes, as nodes/NAME/proxy reaches them:
 * a running node's configuration and boot time, its pods as its kubelet knows
 * them (never a list of the whole cluster's pods per request) and its runtime's images; nothing for a stopped node (its kubelet does not answer).
 */
import type { KubeletServers } from '../api/node-proxy.js';
import type { NodeFarm } from '../node/farm.js';
import type { KObject } from '../apimachinery/object.js';
import type { ClusterDNS } from '../node/kubelet-server/kubelet-config.js';
import { resourceMetrics, serveKubelet, type KubeletView } from '../node/kubelet-server/kubelet-mux.js';
import type { MetricFamily } from '../exposition/prometheus-text.js';
import { NodeCPUCounter } from '../node/kubelet-server/node-cpu-counter.js';
import { NODE_IDLE } from '../node/usage/idle-usage.js';
import type { ServedWorkStore } from '../node/usage/served-work.js';

export interface FarmKubelets {
  /** Each running node's kubelet server, as nodes/NAME/proxy reaches it. */
  servers: KubeletServers;
  /** A running node's `/metrics/resource` samples, for metrics-server in this process; undefined for a stopped node. */
  resourceMetrics(nodeName: string, now: Date): Promise<MetricFamily[] | undefined>;
}

export function farmKubelets(farm: NodeFarm, podsOn: (node: string) => KObject[], dns: ClusterDNS, served?: ServedWorkStore): FarmKubelets {
  // One CPU counter per boot of each node: it restarts from zero when the machine does.
  const counters = new Map<string, { bootMs: number; counter: NodeCPUCounter }>();
  const viewOf = (name: string): KubeletView | undefined => {
    const node = farm.runningNode(name);
    if (!node) return undefined;
    const bootMs = node.bootedAt.getTime();
    let c = counters.get(name);
    if (c?.bootMs !== bootMs) counters.set(name, c = { bootMs, counter: new NodeCPUCounter(bootMs, NODE_IDLE[node.cfg.os].nanoCores) });
    const { counter } = c;
    return {
      cfg: node.cfg, index: node.index, bootTime: node.bootedAt, kubeletStartTime: node.bootedAt, dns,
      pods: () => Promise.resolve(podsOn(name)),
      imageBytes: () => farm.heldImages(name).reduce((sum, i) => sum + i.sizeBytes, 0),
      nodeCPUTime: (nowMs, nanoCores) => counter.read(nowMs, nanoCores),
      ...(served ? { served } : {}),
    };
  };
  return {
    servers: (name) => {
      const view = viewOf(name);
      return view && ((path, query, now, method) => serveKubelet(view, path, query, now, method));
    },
    async resourceMetrics(name, now) {
      const view = viewOf(name);
      return view && resourceMetrics(view, now);
    },
  };
}
