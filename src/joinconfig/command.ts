/**
 * The command line side of `winkube join-config`: reads the cluster,
 * prints the warnings, and writes the files, or prints the errors and
 * writes nothing.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readCluster } from './cluster-reader.js';
import { joinConfig } from './join-config.js';
import type { JoinFlags } from './join-settings.js';
import { DEFAULT_KUBELET_OPTIONS, parseReservation, type KubeletOptions } from './kubelet-files.js';

/** The options as commander names them (`--service-cidr` is serviceCidr). */
export interface JoinConfigOptions extends Omit<JoinFlags, 'serviceCIDR' | 'podCIDR' | 'clusterDNS'> {
  kubeconfig: string;
  serviceCidr?: string;
  podCidr?: string;
  clusterDns?: string;
  out: string;
  systemReserved?: string;
  kubeReserved?: string;
  windowsPriorityclass?: string;
}

export interface CommandOutput { stdout: string; stderr: string; code: number }

export async function runJoinConfig(o: JoinConfigOptions): Promise<CommandOutput> {
  let kubelet: KubeletOptions;
  try {
    kubelet = {
      systemReserved: o.systemReserved === undefined ? DEFAULT_KUBELET_OPTIONS.systemReserved : parseReservation('--system-reserved', o.systemReserved),
      kubeReserved: o.kubeReserved === undefined ? DEFAULT_KUBELET_OPTIONS.kubeReserved : parseReservation('--kube-reserved', o.kubeReserved),
      windowsPriorityClass: o.windowsPriorityclass ?? DEFAULT_KUBELET_OPTIONS.windowsPriorityClass,
    };
  } catch (e) {
    return { stdout: '', stderr: `error: ${(e as Error).message}\n`, code: 1 };
  }
  const { objects, server } = await readCluster(o.kubeconfig);
  const { serviceCidr, podCidr, clusterDns, ...rest } = o;
  const flags: JoinFlags = {
    ...rest,
    ...(serviceCidr !== undefined ? { serviceCIDR: serviceCidr } : {}),
    ...(podCidr !== undefined ? { podCIDR: podCidr } : {}),
    ...(clusterDns !== undefined ? { clusterDNS: clusterDns } : {}),
  };
  const r = joinConfig(flags, kubelet, objects, server);
  const warnings = r.warnings.map((w) => `warning: ${w}\n`).join('');
  if (r.errors.length) return { stdout: '', stderr: warnings + r.errors.map((e) => `error: ${e}\n`).join(''), code: 1 };
  mkdirSync(o.out, { recursive: true });
  const written = r.files.map((f) => {
    const path = join(o.out, f.name);
    writeFileSync(path, f.content, { mode: f.name === 'kube-proxy.conf' ? 0o600 : 0o644 });
    return `wrote ${path}\n`;
  });
  return { stdout: written.join(''), stderr: warnings, code: 0 };
}
