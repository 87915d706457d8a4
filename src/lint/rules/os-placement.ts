/**
 * Where pods land in a mixed cluster: OS pinning, Linux workloads on
 * untainted Windows nodes, images of the other OS, Windows build mismatches
 * and pods no node accepts. Sources: "Windows containers in Kubernetes"
 * (concepts/windows/intro.md) and "Guide for Running Windows Containers in
 * Kubernetes" (concepts/windows/user-guide.md, "Ensuring OS-specific
 * workloads land on the appropriate container host": taints and
 * tolerations, the kubernetes.io/os nodeSelector, RuntimeClass).
 */
import { processIsolationCompatible } from '../../os/windows-versions.js';
import { HCS_OS_MISMATCH, HCS_OS_MISMATCH_HRESULT } from '../../os/images.js';
import { isHostProcessContainer } from '../../os/windows-rules.js';
import { windowsNodes } from '../cluster-description.js';
import { imageOS } from '../image-os.js';
import { failedScheduling, feasibleNodes, scheduling } from '../schedule.js';
import { containersOf } from '../workload.js';
import type { Rule } from '../types.js';
import { onTemplates } from './template-rule.js';

const OS_SELECTOR_FIX = 'add nodeSelector kubernetes.io/os: windows to the pod template (or a RuntimeClass whose scheduling.nodeSelector sets it)';

export const windowsUnpinned: Rule = {
  id: 'WK101', severity: 'warning',
  title: 'Windows pod template without a kubernetes.io/os nodeSelector or RuntimeClass',
  help: 'A Windows pod that nothing pins to Windows nodes can be scheduled on a Linux node, where its image cannot run. '
    + 'Source: concepts/windows/user-guide.md, "Ensuring OS-specific workloads land on the appropriate container host".',
  check: onTemplates((t, target, m, ctx) => {
    if (target.os !== 'windows' || target.pinnedBy || !target.inferredFrom) return [];
    const feasible = feasibleNodes(scheduling(t, m.obj.metadata?.namespace, ctx.cluster));
    const linux = ctx.cluster.nodes.filter((n) => n.os === 'linux' && feasible.has(n.name)).map((n) => n.name);
    return [{
      path: `${t.specPath}.nodeSelector`,
      message: `Windows pod (${target.inferredFrom}) has no kubernetes.io/os nodeSelector, node affinity or RuntimeClass`
        + (linux.length ? `: the scheduler can place it on the Linux nodes ${linux.join(', ')}` : ''),
      fix: OS_SELECTOR_FIX,
    }];
  }),
};

export const linuxOnWindowsNodes: Rule = {
  id: 'WK102', severity: 'warning',
  title: 'Linux workload that can land on untainted Windows nodes',
  help: 'Windows nodes are untainted unless their operator taints them (e.g. os=windows:NoSchedule), so a Linux pod with no OS selector can be placed on one and fail to start. '
    + 'DaemonSets run a pod on every node that accepts them, Jobs and Helm hooks are retried there. '
    + 'Source: concepts/windows/user-guide.md (taints and tolerations, kubernetes.io/os); the scheduler\'s NodeAffinity and TaintToleration filters decide which nodes accept it.',
  check: onTemplates((t, target, m, ctx) => {
    if (target.os === 'windows' || target.pinnedBy) return [];
    const windows = windowsNodes(ctx.cluster);
    if (!windows.length) return [];
    const feasible = feasibleNodes(scheduling(t, m.obj.metadata?.namespace, ctx.cluster));
    const landing = windows.filter((n) => feasible.has(n.name)).map((n) => n.name);
    if (!landing.length) return [];
    const hook = m.obj.metadata?.annotations?.['helm.sh/hook'];
    const what = t.kind === 'DaemonSet' ? 'DaemonSet runs a pod on each of the Windows nodes'
      : hook ? `Helm hook (${String(hook)}) can be scheduled on the Windows nodes` : `${t.kind} can be scheduled on the Windows nodes`;
    return [{
      path: `${t.specPath}.nodeSelector`,
      severity: t.kind === 'DaemonSet' ? 'error' : 'warning',
      message: `pod template without a kubernetes.io/os nodeSelector, and nothing in it is Windows-only: the ${what} ${landing.join(', ')}`,
      fix: 'add nodeSelector kubernetes.io/os: linux to the pod template (or taint the Windows nodes os=windows:NoSchedule)',
    }];
  }),
};

export const linuxImageOnWindows: Rule = {
  id: 'WK103', severity: 'error',
  title: 'Linux-only image in a Windows pod',
  help: 'Windows nodes run Windows images only: the pull fails with "no match for platform in manifest". '
    + 'Source: concepts/windows/intro.md ("Windows nodes ... run Windows containers"); the image catalog of src/os.',
  check: onTemplates((t, target) => {
    if (target.os !== 'windows') return [];
    return containersOf(t).flatMap((c) => {
      const os = typeof c.container.image === 'string' ? imageOS(c.container.image) : undefined;
      if (!os || os.windows || !os.linux) return [];
      return [{
        path: `${c.path}.image`,
        message: `image ${String(c.container.image)} has no windows platform, and the pod targets Windows nodes`,
        fix: 'use a Windows (or multi-OS) image for this container, or run it in a separate Linux pod',
      }];
    });
  }),
};

export const windowsImageOnLinux: Rule = {
  id: 'WK104', severity: 'error',
  title: 'Windows-only image in a Linux pod',
  help: 'A pod pinned to Linux nodes cannot run a Windows image: the pull fails with "no match for platform in manifest". '
    + 'Source: concepts/windows/intro.md; the image catalog of src/os.',
  check: onTemplates((t, target) => {
    if (target.os !== 'linux' || !target.pinnedBy) return [];
    return containersOf(t).flatMap((c) => {
      const os = typeof c.container.image === 'string' ? imageOS(c.container.image) : undefined;
      if (!os || os.linux || !os.windows) return [];
      return [{
        path: `${c.path}.image`,
        message: `image ${String(c.container.image)} is a Windows image, and the pod is pinned to Linux nodes (${target.pinnedBy})`,
        fix: OS_SELECTOR_FIX,
      }];
    });
  }),
};

export const buildMismatch: Rule = {
  id: 'WK105', severity: 'error',
  title: 'Windows image whose build matches no Windows node (process isolation)',
  help: 'Under process isolation a Windows container runs only on a host of a compatible build; otherwise container creation fails with '
    + `"${HCS_OS_MISMATCH} (${HCS_OS_MISMATCH_HRESULT})". HostProcess containers and Hyper-V isolated pods (a RuntimeClass) are exempt. `
    + 'Source: Microsoft, "Windows container version compatibility"; concepts/windows/intro.md (compatibility).',
  check: onTemplates((t, target, _m, ctx) => {
    if (target.os !== 'windows' || t.spec.runtimeClassName) return [];
    const hosts = windowsNodes(ctx.cluster).filter((n) => n.build !== undefined);
    if (!hosts.length) return [];
    return containersOf(t).flatMap((c) => {
      if (isHostProcessContainer(t.spec, c.container) || typeof c.container.image !== 'string') return [];
      const os = imageOS(c.container.image);
      if (!os?.windows || !os.windowsBuilds.length) return [];
      const fits = hosts.filter((h) => os.windowsBuilds.some((b) => processIsolationCompatible(h.build as number, b)));
      if (fits.length) return [];
      return [{
        path: `${c.path}.image`,
        message: `image ${c.container.image} (Windows build ${os.windowsBuilds.join(', ')}) matches no Windows node under process isolation `
          + `(${[...new Set(hosts.map((h) => h.build))].join(', ')}): ${HCS_OS_MISMATCH} (${HCS_OS_MISMATCH_HRESULT})`,
        fix: `use the image tag for the nodes' build (${[...new Set(hosts.map((h) => h.build))].join(', ')}), or a multi-build tag`,
      }];
    });
  }),
};

/** Filter plugins whose verdict depends on the pods already placed. */
const POD_DEPENDENT = new Set(['InterPodAffinity', 'PodTopologySpread']);

export const wouldNotSchedule: Rule = {
  id: 'WK121', severity: 'error',
  title: 'no node of the cluster accepts the pod',
  help: "kube-scheduler's Filter plugins (src/scheduler, v1.32's default profile) reject every node; the message is the FailedScheduling text the scheduler would record. "
    + 'DaemonSets are not checked (a DaemonSet with no matching node runs no pod, by design), nor pods that a node refuses only for the pods on it (inter-pod affinity, topology spread).',
  check: onTemplates((t, _target, m, ctx) => {
    if (t.kind === 'DaemonSet') return [];
    // A node refused only for the pods on it (affinity to pods, spreading) may take the pod once those exist:
    // the manifests do not say what runs in the cluster, so only placement that no pod can change is reported.
    const e = scheduling(t, m.obj.metadata?.namespace, ctx.cluster);
    if (!e.failureMessage) return [];
    if (e.verdicts.some((v) => v.rejections.length && v.rejections.every((r) => r.plugin !== undefined && POD_DEPENDENT.has(r.plugin)))) return [];
    const failure = failedScheduling(t, m.obj.metadata?.namespace, ctx.cluster);
    if (!failure) return [];
    return [{
      path: t.specPath,
      message: `would not schedule: ${failure}`,
      fix: "relax the pod's node selectors, affinity, tolerations or requests to fit a node of the cluster",
    }];
  }),
};
