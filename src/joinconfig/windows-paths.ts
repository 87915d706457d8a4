/**
 * Where the generated files go on the Windows node: the directories the
 * sig-windows-tools scripts use (PrepareNode.ps1: binaries and start scripts
 * in C:\k, kubeadm's files in C:\etc\kubernetes and C:\var\lib\kubelet;
 * Install-Containerd.ps1: containerd in C:\Program Files\containerd and the
 * CNI directories c:/opt/cni/bin and c:/etc/cni/net.d; flannel's start.ps1:
 * C:\etc\kube-flannel).
 */
export const K_DIR = 'C:\\k';
export const KUBELET_CONFIG = 'C:\\k\\kubelet-config.yaml';
export const KUBELET_EXE = 'C:\\k\\kubelet.exe';
export const KUBE_PROXY_EXE = 'C:\\k\\kube-proxy.exe';
export const KUBE_PROXY_KUBECONFIG = 'C:\\k\\kube-proxy.conf';
export const FLANNELD_EXE = 'C:\\flannel\\flanneld.exe';
export const CONTAINERD_DIR = 'C:\\Program Files\\containerd';
export const CNI_BIN_DIR = 'c:/opt/cni/bin';
export const CNI_CONF_DIR = 'c:/etc/cni/net.d';
export const FLANNEL_CONF_DIR = 'C:\\etc\\kube-flannel';
export const LOG_DIR = 'C:\\var\\log';
