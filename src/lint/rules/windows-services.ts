/**
 * Services whose backends are Windows pods. Source:
 * concepts/services-networking/windows-networking.md, "Limitations" (not
 * supported: more than 64 backend pods for a single Service; IPv6 between
 * Windows pods on overlay networks; Local traffic policy in non-DSR mode)
 * and its "Load balancing and Services" table (client IP preservation needs
 * externalTrafficPolicy: Local and DSR).
 */
import { isObject } from '../../meta/json.js';
import { windowsNodes } from '../cluster-description.js';
import { podTarget } from '../pod-os.js';
import { feasibleNodes, scheduling } from '../schedule.js';
import { objectRef, podTemplateOf } from '../workload.js';
import type { Manifest, Obj, Rule, RuleContext } from '../types.js';

/** The Windows workloads among the manifests whose pods the Service selects, with how many pods each runs. */
function windowsBackends(svc: Obj, ctx: RuleContext): Array<{ name: string; pods: number }> {
  const selector: unknown = svc.spec?.selector;
  if (!isObject(selector) || Object.keys(selector).length === 0) return [];
  const ns = svc.metadata?.namespace;
  const out: Array<{ name: string; pods: number }> = [];
  for (const m of ctx.manifests) {
    const t = podTemplateOf(m);
    if (!t || m.obj.metadata?.namespace !== ns) continue;
    const labels: Obj = isObject(t.meta.labels) ? t.meta.labels : {};
    if (!Object.entries(selector).every(([k, v]) => labels[k] === v)) continue;
    if (podTarget(t, ctx.manifests).os !== 'windows') continue;
    out.push({ name: `${t.kind}/${objectRef(m.obj).name}`, pods: podCount(m, ctx) });
  }
  return out;
}

function podCount(m: Manifest, ctx: RuleContext): number {
  const spec: Obj = isObject(m.obj.spec) ? m.obj.spec : {};
  switch (m.obj.kind) {
    case 'Pod': return 1;
    case 'DaemonSet': {
      const t = podTemplateOf(m);
      if (!t) return 0;
      const feasible = feasibleNodes(scheduling(t, m.obj.metadata?.namespace, ctx.cluster));
      return windowsNodes(ctx.cluster).filter((n) => feasible.has(n.name)).length;
    }
    case 'Job': return typeof spec.parallelism === 'number' ? spec.parallelism : 1;
    case 'CronJob': return typeof spec.jobTemplate?.spec?.parallelism === 'number' ? spec.jobTemplate.spec.parallelism : 1;
    default: return typeof spec.replicas === 'number' ? spec.replicas : 1;
  }
}

const isService = (m: Manifest): boolean => m.obj.kind === 'Service' && m.obj.apiVersion === 'v1';

export const ipv6OnOverlay: Rule = {
  id: 'WK114', severity: 'warning',
  title: 'IPv6 Service for Windows pods on an overlay network',
  help: 'IPv6 communication between Windows pods connected to overlay networks is not supported (dual-stack on Windows needs l2bridge). '
    + 'Source: concepts/services-networking/windows-networking.md, "Limitations"; concepts/services-networking/dual-stack.md (Windows support).',
  check: (m, ctx) => {
    if (!isService(m) || ctx.cluster.network?.mode !== 'overlay') return [];
    const spec: Obj = isObject(m.obj.spec) ? m.obj.spec : {};
    const families: unknown[] = Array.isArray(spec.ipFamilies) ? spec.ipFamilies : [];
    const v6 = families.includes('IPv6') ? 'spec.ipFamilies' : spec.ipFamilyPolicy === 'RequireDualStack' ? 'spec.ipFamilyPolicy' : undefined;
    if (!v6) return [];
    const backends = windowsBackends(m.obj, ctx);
    if (!backends.length) return [];
    return [{
      path: v6,
      message: `IPv6 to Windows pods (${backends.map((b) => b.name).join(', ')}) is not supported on the cluster's overlay network`,
      fix: 'use IPv4 (ipFamilies: [IPv4], ipFamilyPolicy: SingleStack), or an l2bridge network',
    }];
  },
};

export const localPolicyWithoutDSR: Rule = {
  id: 'WK115', severity: 'warning',
  title: 'externalTrafficPolicy Local to Windows pods without DSR',
  help: 'On Windows, Local traffic policy works only in DSR mode (kube-proxy --enable-dsr, the WinDSR gate in v1.32): without it neither the client IP is kept nor the traffic kept local. '
    + 'Source: concepts/services-networking/windows-networking.md, "Limitations" and "Load balancing and Services".',
  check: (m, ctx) => {
    if (!isService(m) || m.obj.spec?.externalTrafficPolicy !== 'Local' || !ctx.cluster.network || ctx.cluster.network.dsr) return [];
    const backends = windowsBackends(m.obj, ctx);
    if (!backends.length) return [];
    return [{
      path: 'spec.externalTrafficPolicy',
      message: `externalTrafficPolicy Local to Windows pods (${backends.map((b) => b.name).join(', ')}) needs DSR, which kube-proxy on the cluster's Windows nodes does not run`,
      fix: 'enable DSR in kube-proxy on the Windows nodes (--enable-dsr, feature gate WinDSR), or use externalTrafficPolicy Cluster',
    }];
  },
};

/** The docs' limit for the v1.21-v1.34 line: "More than 64 backend pods (or unique destination addresses) for a single Service". */
const MAX_WINDOWS_BACKENDS = 64;

export const tooManyWindowsBackends: Rule = {
  id: 'WK116', severity: 'warning',
  title: 'Service with more than 64 Windows backends',
  help: `Windows nodes do not support more than ${MAX_WINDOWS_BACKENDS} backend pods for a single Service: kube-proxy fails to program the load balancer ("invalid number of destinations") and the Service is unreachable from that node. `
    + 'Source: concepts/services-networking/windows-networking.md, "Limitations".',
  check: (m, ctx) => {
    if (!isService(m)) return [];
    const backends = windowsBackends(m.obj, ctx);
    const total = backends.reduce((s, b) => s + b.pods, 0);
    if (total <= MAX_WINDOWS_BACKENDS) return [];
    return [{
      path: 'spec.selector',
      message: `the Service selects ${total} Windows pods (${backends.map((b) => `${b.name}: ${b.pods}`).join(', ')}); Windows supports at most ${MAX_WINDOWS_BACKENDS} backends per Service`,
      fix: `split the backends over several Services of at most ${MAX_WINDOWS_BACKENDS} pods each`,
    }];
  },
};
