/**
 * `winkube join-config`: the files a Windows node needs to join a cluster,
 * from the checked settings. Pure: the cluster's objects come in, the
 * files' names and texts, errors and warnings go out; the command line
 * reads the cluster and writes the files.
 */
import type { ClusterObjects } from './cluster-facts.js';
import { clusterFacts } from './cluster-facts.js';
import { flannelCNIConfJson, flannelNetConfJson } from './cni-files.js';
import { containerdConfigToml } from './containerd-config.js';
import { joinSettings, type JoinFlags, type JoinSettings } from './join-settings.js';
import { kubeletConfigYaml, startKubeletScript, type KubeletOptions } from './kubelet-files.js';
import { startKubeProxyScript } from './kube-proxy-files.js';
import { installScript, kubeProxyKubeconfig, startFlanneldScript } from './service-files.js';

export interface JoinFile { name: string; content: string }

export interface JoinConfig { settings?: JoinSettings; files: JoinFile[]; errors: string[]; warnings: string[] }

export function joinConfig(flags: JoinFlags, kubelet: KubeletOptions, objects: ClusterObjects, server: string): JoinConfig {
  const facts = clusterFacts(objects);
  const { settings, errors, warnings } = joinSettings(flags, facts);
  if (!settings) return { files: [], errors, warnings };
  for (const ds of facts.windowsDaemonSets.kubeProxy) {
    warnings.push(`the cluster runs kube-proxy on Windows nodes as the DaemonSet ${ds}: run install.ps1 with -SkipKubeProxy, or the node runs two`);
  }
  if (settings.plugin === 'flannel') {
    for (const ds of facts.windowsDaemonSets.cni) {
      warnings.push(`the cluster runs flannel on Windows nodes as the DaemonSet ${ds}: run install.ps1 with -SkipFlanneld, or the node runs two`);
    }
  }
  let kubeletConfig: string;
  try {
    kubeletConfig = kubeletConfigYaml(settings, kubelet);
  } catch (e) {
    return { files: [], errors: [...errors, (e as Error).message], warnings };
  }
  const files: JoinFile[] = [
    { name: 'kubelet-config.yaml', content: kubeletConfig },
    { name: 'StartKubelet.ps1', content: startKubeletScript(settings, kubelet) },
    { name: 'StartKubeProxy.ps1', content: startKubeProxyScript(settings) },
    { name: 'kube-proxy.conf', content: kubeProxyKubeconfig(server) },
    { name: 'containerd-config.toml', content: containerdConfigToml(settings) },
    ...(settings.plugin === 'flannel' ? [
      { name: 'net-conf.json', content: flannelNetConfJson(settings) },
      { name: '10-flannel.conf', content: flannelCNIConfJson(settings) },
      { name: 'StartFlanneld.ps1', content: startFlanneldScript(settings) },
    ] : []),
    { name: 'install.ps1', content: installScript(settings) },
  ];
  return { settings, files, errors, warnings };
}
