/**
 * The machine identity a kubelet reads from its host, per OS, stable per
 * node name (machine and system UUIDs) and new at every farm start (boot ID).
 * - Linux (cadvisor): machineID is /etc/machine-id (32 hex digits),
 *   systemUUID the DMI product UUID, bootID /proc/sys/kernel/random/boot_id (a UUID).
 * - Windows (pkg/kubelet/winstats): machineID is the host name, systemUUID
 *   the SMBIOS UUID as `wmic csproduct get UUID` prints it (upper case),
 *   bootID the registry's `BootId` counter (a small decimal integer).
 */
import { createHash, randomUUID } from 'node:crypto';
import type { PoolOS } from './pool.js';

export interface MachineIdentity { machineID: string; systemUUID: string; bootID: string }

function hex(seed: string): string {
  return createHash('sha256').update(seed).digest('hex');
}

function uuidOf(h: string): string {
  // A version-4 shaped UUID from hash bits.
  const v = `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${((parseInt(h.charAt(16), 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
  return v;
}

export function machineIdentity(name: string, os: PoolOS, boot = 1): MachineIdentity {
  if (os === 'windows') {
    return { machineID: name, systemUUID: uuidOf(hex(`systemUUID/${name}`)).toUpperCase(), bootID: String(boot) };
  }
  return { machineID: hex(`machineID/${name}`).slice(0, 32), systemUUID: uuidOf(hex(`systemUUID/${name}`)), bootID: randomUUID() };
}
