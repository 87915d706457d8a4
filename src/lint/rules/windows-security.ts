/**
 * Security settings that do nothing, or something else, on Windows. Source:
 * concepts/windows/intro.md ("Field compatibility for Pod specifications":
 * privileged, runAsUser, readOnlyRootFilesystem are not supported; host
 * networking is not supported), concepts/security/windows-security.md
 * (runAsUserName, ContainerUser/ContainerAdministrator), tasks/configure-pod-container/
 * create-hostprocess-pod.md (hostNetwork, NT AUTHORITY accounts) and
 * tasks/configure-pod-container/configure-gmsa.md (the webhook that fills
 * gmsaCredentialSpec). WK119 quotes validateWindowsHostProcessPod (pkg/apis/core/validation).
 */
import { formatFieldErrors } from '../../apimachinery/field-errors.js';
import { isHostProcessContainer, isHostProcessPod, validateWindowsHostProcessPod } from '../../os/windows-rules.js';
import { isObject } from '../../meta/json.js';
import { containersOf } from '../workload.js';
import type { Hit, Obj, Rule } from '../types.js';
import { apiRefusesWindowsFields, onTemplates, onWindowsTemplates } from './template-rule.js';

export const hostNetworkOnWindows: Rule = {
  id: 'WK106', severity: 'warning',
  title: 'hostNetwork on a Windows pod that is not HostProcess',
  help: 'Host networking mode is not supported for Windows pods (only HostProcess pods share the node network; the WindowsHostNetwork gate is alpha). '
    + 'Source: concepts/services-networking/windows-networking.md, "Limitations".',
  check: onWindowsTemplates((t) => (t.spec.hostNetwork === true && !isHostProcessPod(t.spec) ? [{
    path: `${t.specPath}.hostNetwork`,
    message: 'hostNetwork is not supported for Windows pods other than HostProcess pods',
    fix: 'remove hostNetwork, or make every container a HostProcess container (securityContext.windowsOptions.hostProcess: true)',
  }] : [])),
};

function containerField(field: string, message: string, fix: string) {
  return onWindowsTemplates((t) => {
    if (apiRefusesWindowsFields(t)) return [];
    return containersOf(t).flatMap((c): Hit[] => {
      const sc: unknown = c.container.securityContext;
      if (!isObject(sc) || sc[field] === undefined || sc[field] === null) return [];
      return [{ path: `${c.path}.securityContext.${field}`, message, fix }];
    });
  });
}

export const privilegedOnWindows: Rule = {
  id: 'WK107', severity: 'warning',
  title: 'privileged on a Windows container',
  help: 'Privileged containers are not supported on Windows; HostProcess containers give host access instead. '
    + 'Source: concepts/windows/intro.md, "Field compatibility for Pod specifications" (securityContext.privileged).',
  check: containerField('privileged', 'securityContext.privileged has no effect on Windows: privileged containers are not supported',
    'remove privileged; for host access use a HostProcess pod (windowsOptions.hostProcess: true, hostNetwork: true)'),
};

export const runAsUserOnWindows: Rule = {
  id: 'WK108', severity: 'warning',
  title: 'runAsUser or runAsGroup on a Windows pod',
  help: 'Windows has no numeric user or group IDs: runAsUser and runAsGroup are not supported; runAsUserName sets the user. '
    + 'Source: concepts/windows/intro.md, "Field compatibility for Pod specifications"; concepts/security/windows-security.md.',
  check: onWindowsTemplates((t) => {
    if (apiRefusesWindowsFields(t)) return [];
    const fix = 'remove it and set securityContext.windowsOptions.runAsUserName (ContainerUser or ContainerAdministrator)';
    const hits: Hit[] = [];
    const scan = (sc: unknown, path: string) => {
      if (!isObject(sc)) return;
      for (const f of ['runAsUser', 'runAsGroup']) {
        if (sc[f] !== undefined && sc[f] !== null) hits.push({ path: `${path}.securityContext.${f}`, message: `securityContext.${f} is not supported on Windows (no numeric user IDs)`, fix });
      }
    };
    scan(t.spec.securityContext, t.specPath);
    for (const c of containersOf(t)) scan(c.container.securityContext, c.path);
    return hits;
  }),
};

export const readOnlyRootOnWindows: Rule = {
  id: 'WK109', severity: 'warning',
  title: 'readOnlyRootFilesystem on a Windows container',
  help: 'A read-only root filesystem is not supported for Windows containers: Windows needs a writable container layer (registry, temp). '
    + 'Source: concepts/windows/intro.md, "Field compatibility for Pod specifications" (securityContext.readOnlyRootFilesystem).',
  check: containerField('readOnlyRootFilesystem', 'securityContext.readOnlyRootFilesystem is not supported on Windows',
    'remove readOnlyRootFilesystem from the Windows container'),
};

const HOST_ACCOUNTS = /^nt authority\\(system|local ?service|network ?service)$/i;
const CONTAINER_ACCOUNTS = /^(containeruser|containeradministrator)$/i;

function runAsUserNames(t: { spec: Obj; specPath: string }, containers: ReturnType<typeof containersOf>):
  Array<{ name: string; path: string; hostProcess: boolean }> {
  const out: Array<{ name: string; path: string; hostProcess: boolean }> = [];
  const podName: unknown = t.spec.securityContext?.windowsOptions?.runAsUserName;
  if (typeof podName === 'string') out.push({ name: podName, path: `${t.specPath}.securityContext.windowsOptions.runAsUserName`, hostProcess: isHostProcessPod(t.spec) });
  for (const c of containers) {
    const n: unknown = c.container.securityContext?.windowsOptions?.runAsUserName;
    if (typeof n === 'string') out.push({ name: n, path: `${c.path}.securityContext.windowsOptions.runAsUserName`, hostProcess: isHostProcessContainer(t.spec, c.container) });
  }
  return out;
}

export const runAsUserNameConvention: Rule = {
  id: 'WK118', severity: 'warning',
  title: 'runAsUserName that does not exist where the container runs',
  help: 'Inside a Windows container the built-in accounts are ContainerUser and ContainerAdministrator; a HostProcess container runs on the host, '
    + 'as NT AUTHORITY\\SYSTEM, NT AUTHORITY\\Local service, NT AUTHORITY\\NetworkService or a local group, where the container accounts do not exist. '
    + 'Source: concepts/security/windows-security.md; tasks/configure-pod-container/create-hostprocess-pod.md ("Choosing a user account").',
  check: onWindowsTemplates((t) => runAsUserNames(t, containersOf(t)).flatMap((u): Hit[] => {
    if (u.hostProcess && CONTAINER_ACCOUNTS.test(u.name)) {
      return [{ path: u.path, message: `HostProcess containers run on the host, where the container account ${u.name} does not exist`,
        fix: 'use NT AUTHORITY\\SYSTEM, NT AUTHORITY\\Local service, NT AUTHORITY\\NetworkService or a local group' }];
    }
    if (!u.hostProcess && HOST_ACCOUNTS.test(u.name)) {
      return [{ path: u.path, message: `${u.name} is a host account: a container that is not HostProcess runs as ContainerUser or ContainerAdministrator`,
        fix: 'use ContainerUser (or ContainerAdministrator), or make the pod a HostProcess pod' }];
    }
    return [];
  })),
};

export const hostProcessWithoutHostNetwork: Rule = {
  id: 'WK119', severity: 'error',
  title: 'HostProcess pod without hostNetwork',
  help: 'A pod with any HostProcess container must set hostNetwork: true; the API server refuses it otherwise (validateWindowsHostProcessPod). '
    + 'A StatefulSet template is not validated in v1.32: its pods are refused when the controller creates them.',
  check: onTemplates((t) => {
    if (!isHostProcessPod(t.spec) || t.spec.hostNetwork === true) return [];
    return validateWindowsHostProcessPod(t.spec, t.specPath).filter((e) => e.field.endsWith('hostNetwork'))
      .map((e) => ({ path: e.field, message: formatFieldErrors([e]), fix: `set ${t.specPath}.hostNetwork: true` }));
  }),
};

export const gmsaWithoutWebhook: Rule = {
  id: 'WK120', severity: 'warning',
  title: 'GMSA credential spec name without the GMSA webhook',
  help: "gmsaCredentialSpecName is resolved into gmsaCredentialSpec by sig-windows' GMSA admission webhook; without it the container starts "
    + 'without the domain identity. Source: tasks/configure-pod-container/configure-gmsa.md.',
  check: onTemplates((t, target, _m, ctx) => {
    if (ctx.cluster.gmsaWebhook !== false || target.os === 'linux') return [];
    const names: Array<{ path: string; name: unknown }> = [
      { path: `${t.specPath}.securityContext.windowsOptions`, name: t.spec.securityContext?.windowsOptions?.gmsaCredentialSpecName },
      ...containersOf(t).map((c) => ({ path: `${c.path}.securityContext.windowsOptions`, name: c.container.securityContext?.windowsOptions?.gmsaCredentialSpecName })),
    ];
    return names.filter((n) => typeof n.name === 'string' && n.name !== '').map((n) => ({
      path: `${n.path}.gmsaCredentialSpecName`,
      message: `gmsaCredentialSpecName ${String(n.name)} is never resolved: the cluster (${ctx.cluster.origin}) runs no GMSA admission webhook`,
      fix: "install sig-windows' GMSA webhook (winkube up --gmsa), or set gmsaCredentialSpec inline",
    }));
  }),
};
