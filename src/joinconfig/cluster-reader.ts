/**
 * Reads what join-config needs from a live cluster through the API, with
 * the kubeconfig's credentials, as any client would (no winkube-only
 * endpoint, so any conformant cluster answers). An object the cluster does
 * not have, or the credentials may not read, is left out: the checks then
 * warn about it instead of failing.
 */
import type { ConfigMap, Node, Pod, Service } from 'kubernetes-types/core/v1.js';
import type { DaemonSet } from 'kubernetes-types/apps/v1.js';
import { reasonOf } from '../apimachinery/errors.js';
import { HttpsClient } from '../client/https.js';
import { configmaps, daemonsets, nodes, pods, services } from '../client/resources.js';
import { targetFromKubeconfig } from '../node/control/client.js';
import type { ClusterObjects } from './cluster-facts.js';

/** NotFound and Forbidden both mean: not visible to us. */
async function visible<T>(read: Promise<T>): Promise<T | undefined> {
  try {
    return await read;
  } catch (e) {
    const reason = reasonOf(e);
    if (reason === 'NotFound' || reason === 'Forbidden') return undefined;
    throw e;
  }
}

export interface ReadCluster { objects: ClusterObjects; server: string }

export async function readCluster(kubeconfigPath: string): Promise<ReadCluster> {
  const target = targetFromKubeconfig(kubeconfigPath);
  const client = new HttpsClient(target, { name: 'join-config', groups: [] }, 'winkube-join-config');
  const ks = 'kube-system';
  try {
    const cm = (ns: string, name: string) => visible(client.resource<ConfigMap>(configmaps).get(ns, name));
    const [version, kubernetesService, kubeDnsService, kubeadmConfig, kubeletConfig, flannelKS, flannelNS, kubeProxyConfig, calicoNode,
      apiServerPods, nodeList, daemonSetList] = await Promise.all([
      client.call('GET', '/version').then((v) => (v as { gitVersion?: string }).gitVersion),
      visible(client.resource<Service>(services).get('default', 'kubernetes')),
      visible(client.resource<Service>(services).get(ks, 'kube-dns')),
      cm(ks, 'kubeadm-config'),
      cm(ks, 'kubelet-config'),
      // Older flannel manifests install into kube-system, current ones into kube-flannel.
      cm(ks, 'kube-flannel-cfg'),
      cm('kube-flannel', 'kube-flannel-cfg'),
      cm(ks, 'kube-proxy'),
      visible(client.resource<DaemonSet>(daemonsets).get(ks, 'calico-node')),
      visible(client.resource<Pod>(pods).list(ks, { labelSelector: 'component=kube-apiserver' })),
      visible(client.resource<Node>(nodes).list('')),
      visible(client.resource<DaemonSet>(daemonsets).list('')),
    ]);
    return {
      objects: {
        version, kubernetesService, kubeDnsService, kubeadmConfig, kubeletConfig, flannelConfig: flannelKS ?? flannelNS, kubeProxyConfig,
        calicoNode, apiServerPods: apiServerPods?.items ?? [], nodes: nodeList?.items ?? [], daemonSets: daemonSetList?.items ?? [],
      },
      server: target.server.toString().replace(/\/$/, ''),
    };
  } finally {
    client.close();
  }
}
