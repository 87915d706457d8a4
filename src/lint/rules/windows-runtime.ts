/**
 * Storage, DNS, lifecycle and resource settings that behave differently on
 * Windows nodes. Sources: concepts/windows/intro.md ("Storage": memory as
 * the storage medium is not supported; "Field compatibility":
 * terminationGracePeriodSeconds requires containerd), the runtime notes of
 * src/node/container-runtime.ts (Docker on Windows cannot mount single files),
 * concepts/services-networking/windows-networking.md (DNS:
 * ClusterFirstWithHostNet is not supported) and
 * concepts/configuration/windows-resource-management.md (memory: only limits
 * reach the runtime, and Windows has no OOM killer).
 */
import { isObject } from '../../meta/json.js';
import { windowsNodes } from '../cluster-description.js';
import { containersOf } from '../workload.js';
import type { ClusterDescription, Hit, Rule } from '../types.js';
import { onWindowsTemplates } from './template-rule.js';

const dockerWindowsNodes = (c: ClusterDescription): string[] => windowsNodes(c).filter((n) => n.runtime === 'docker').map((n) => n.name);

export const subPathOnDockerWindows: Rule = {
  id: 'WK110', severity: 'warning',
  title: 'subPath mount on Windows nodes running Docker',
  help: 'Docker on Windows cannot map a single file into a container: a subPath mount of a file fails on Docker (Mirantis Container Runtime) nodes; containerd mounts it. '
    + 'Source: concepts/windows/intro.md (container runtimes); src/node/container-runtime.ts.',
  check: onWindowsTemplates((t, _target, _m, ctx) => {
    const docker = dockerWindowsNodes(ctx.cluster);
    if (!docker.length) return [];
    return containersOf(t).flatMap((c) => (Array.isArray(c.container.volumeMounts) ? c.container.volumeMounts : [])
      .map((vm: unknown, i: number): Hit | undefined => (isObject(vm) && (vm.subPath || vm.subPathExpr) ? {
        path: `${c.path}.volumeMounts[${i}].${vm.subPath ? 'subPath' : 'subPathExpr'}`,
        message: `subPath mounts of single files fail on Windows nodes running Docker (${docker.join(', ')})`,
        fix: 'mount the whole volume (a directory), or run the pod on containerd nodes',
      } : undefined)).filter((h: Hit | undefined): h is Hit => h !== undefined));
  }),
};

export const memoryEmptyDirOnWindows: Rule = {
  id: 'WK111', severity: 'warning',
  title: 'emptyDir.medium Memory on a Windows pod',
  help: 'Windows nodes do not support memory as the storage medium: an emptyDir with medium Memory is not a RAM disk there. '
    + 'Source: concepts/windows/intro.md, "Storage" (not supported: memory as the storage medium, e.g. emptyDir.medium set to Memory).',
  check: onWindowsTemplates((t) => (Array.isArray(t.spec.volumes) ? t.spec.volumes : []).flatMap((v: unknown, i: number): Hit[] =>
    (isObject(v) && isObject(v.emptyDir) && v.emptyDir.medium === 'Memory' ? [{
      path: `${t.specPath}.volumes[${i}].emptyDir.medium`,
      message: 'emptyDir.medium Memory is not supported on Windows nodes',
      fix: 'remove medium: Memory (a disk-backed emptyDir)',
    }] : []))),
};

/** What Windows waits after CTRL_SHUTDOWN_EVENT under Docker, whatever the pod asks (src/node/container-runtime.ts). */
const DOCKER_WINDOWS_STOP_SECONDS = 5;
/** pkg/apis/core/v1 SetDefaults_PodSpec: what every pod gets when it asks for nothing. */
const DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS = 30;

export const gracePeriodOnDocker: Rule = {
  id: 'WK112', severity: 'warning',
  title: 'terminationGracePeriodSeconds on Windows nodes running Docker',
  help: `TerminationGracePeriod requires containerd on Windows: under Docker, Windows stops the container ${DOCKER_WINDOWS_STOP_SECONDS} seconds after the shutdown event, whatever the pod asks. `
    + 'Source: concepts/windows/intro.md, "Field compatibility for Pod specifications".',
  check: onWindowsTemplates((t, _target, m, ctx) => {
    const docker = dockerWindowsNodes(ctx.cluster);
    const grace: unknown = t.spec.terminationGracePeriodSeconds;
    if (!docker.length || typeof grace !== 'number' || grace === DOCKER_WINDOWS_STOP_SECONDS) return [];
    // Under admission every pod carries the default: only a value the user chose is theirs to hear about.
    if (m.defaulted && grace === DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS) return [];
    return [{
      path: `${t.specPath}.terminationGracePeriodSeconds`,
      message: `terminationGracePeriodSeconds ${grace} is not honoured on Windows nodes running Docker (${docker.join(', ')}): containers are stopped after ${DOCKER_WINDOWS_STOP_SECONDS} s`,
      fix: 'run the pod on containerd Windows nodes, or make shutdown fit in 5 seconds',
    }];
  }),
};

export const hostNetDnsOnWindows: Rule = {
  id: 'WK113', severity: 'warning',
  title: 'dnsPolicy ClusterFirstWithHostNet on a Windows pod',
  help: 'ClusterFirstWithHostNet is not supported for pods that run on Windows nodes. Source: concepts/services-networking/windows-networking.md, "DNS limitations".',
  check: onWindowsTemplates((t) => (t.spec.dnsPolicy === 'ClusterFirstWithHostNet' ? [{
    path: `${t.specPath}.dnsPolicy`,
    message: 'dnsPolicy ClusterFirstWithHostNet is not supported for pods on Windows nodes',
    fix: 'use dnsPolicy ClusterFirst (the default)',
  }] : [])),
};

export const memoryRequestWithoutLimit: Rule = {
  id: 'WK117', severity: 'warning',
  title: 'Windows container with a memory request but no memory limit',
  help: 'On Windows only limits reach the runtime (the job object), requests only place the pod; and Windows has no OOM killer: '
    + 'a container without a memory limit can take the node into paging. Source: concepts/configuration/windows-resource-management.md ("Memory management").',
  check: onWindowsTemplates((t) => containersOf(t).flatMap((c): Hit[] => {
    const r: unknown = c.container.resources;
    if (!isObject(r)) return [];
    const req = isObject(r.requests) ? r.requests.memory : undefined;
    const lim = isObject(r.limits) ? r.limits.memory : undefined;
    if (req === undefined || lim !== undefined) return [];
    return [{
      path: `${c.path}.resources.limits`,
      message: `memory request ${String(req)} without a memory limit: Windows enforces only limits and has no OOM killer`,
      fix: `set resources.limits.memory (e.g. equal to the request, ${String(req)})`,
    }];
  })),
};
