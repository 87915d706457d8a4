/**
 * The kubelet version skew policy: a kubelet must not be newer than
 * kube-apiserver, and may be up to three minor versions older.
 */
import type { Check, DoctorFinding } from '../types.js';
import { clusterFacts } from '../cluster-facts.js';
import { VERSION_SKEW_KUBELET } from '../references.js';

/** Major and minor of `v1.32.0`, `v1.29.8-eks-a737599`, `1.30.2`. */
export function minorVersion(v: string | undefined): { major: number; minor: number } | undefined {
  const m = /^v?(\d+)\.(\d+)/.exec(v ?? '');
  return m ? { major: Number(m[1]), minor: Number(m[2]) } : undefined;
}

/** How many minor versions the kubelet is behind the server (negative when newer); undefined when either is unknown or majors differ. */
export function kubeletSkew(server: string | undefined, kubelet: string | undefined): number | undefined {
  const s = minorVersion(server);
  const k = minorVersion(kubelet);
  if (!s || !k || s.major !== k.major) return undefined;
  return s.minor - k.minor;
}

export const MAX_KUBELET_MINOR_SKEW = 3;

export const kubeletVersionSkew: Check = {
  id: 'kubelet-version-skew',
  title: 'kubelets newer than kube-apiserver, or more than three minor versions older',
  run(c) {
    const out: DoctorFinding[] = [];
    for (const n of clusterFacts(c).nodes) {
      const kubelet = n.node.status?.nodeInfo?.kubeletVersion;
      const skew = kubeletSkew(c.serverVersion, kubelet);
      if (skew === undefined || (skew >= 0 && skew <= MAX_KUBELET_MINOR_SKEW)) continue;
      const newer = skew < 0;
      out.push({
        check: this.id, severity: 'error', object: { apiVersion: 'v1', kind: 'Node', name: n.name },
        evidence: [`status.nodeInfo.kubeletVersion: ${kubelet ?? ''}`, `kube-apiserver /version: ${c.serverVersion ?? ''}`],
        message: newer
          ? `the kubelet on ${n.name} (${kubelet ?? ''}) is newer than kube-apiserver (${c.serverVersion ?? ''})`
          : `the kubelet on ${n.name} (${kubelet ?? ''}) is ${skew} minor versions older than kube-apiserver (${c.serverVersion ?? ''})`,
        explanation: 'kubelet must not be newer than kube-apiserver, and may be up to three minor versions older.',
        fix: newer
          ? `upgrade the control plane first, or install the kubelet of the control plane's version on ${n.name}`
          : `upgrade the kubelet (and kube-proxy) on ${n.name} to within three minor versions of the control plane`,
        reference: VERSION_SKEW_KUBELET,
      });
    }
    return out;
  },
};
