/**
 * `winkube describe-node-network NODE`'s text: the node's network model in
 * kubectl describe's layout (labels padded to one column, nested sections
 * indented two spaces).
 */
import type { ClusterNetwork } from '../network.js';
import type { HNSEndpoint } from './hns-network.js';
import type { LinuxEndpoint, NodeNetworkModel } from './node-network-model.js';

export interface DescribedNode { name: string; os: 'linux' | 'windows'; osDetail: string; internalIP: string; podCIDR: string }

function fields(rows: [string, string][], indent: string): string[] {
  const width = Math.max(...rows.map(([k]) => k.length)) + 2;
  return rows.map(([k, v]) => `${indent}${`${k}:`.padEnd(width)}${v}`.trimEnd());
}

function table(header: string[], rows: string[][], indent: string): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => indent + cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]! + 3))).join('');
  return [line(header), ...rows.map(line)];
}

function isHNS(e: HNSEndpoint | LinuxEndpoint): e is HNSEndpoint { return 'MacAddress' in e; }

export function formatNodeNetwork(node: DescribedNode, net: ClusterNetwork, m: NodeNetworkModel): string {
  const out: string[] = [];
  out.push(...fields([
    ['Name', node.name],
    ['OS', node.osDetail],
    ['InternalIP', node.internalIP],
    ['PodCIDR', node.podCIDR],
    ['Network', `${net.plugin} ${net.mode} (${m.backend})`],
  ], ''));
  if (m.hns) {
    const h = m.hns;
    out.push('HNS Network:');
    out.push(...fields([
      ['Name', h.Name], ['Type', h.Type], ['AddressPrefix', h.AddressPrefix], ['GatewayAddress', h.GatewayAddress],
      ['ManagementIP', h.ManagementIP],
      ...(h.DrMacAddress ? [['DrMacAddress', h.DrMacAddress] as [string, string]] : []),
      ...(h.VSID !== undefined ? [['VSID', String(h.VSID)] as [string, string], ['VxlanPort', String(h.VxlanPort)] as [string, string]] : []),
      [h.Type === 'Overlay' && h.HostEndpoint.Name === '(source VIP)' ? 'SourceVIP' : 'HostEndpoint',
        h.HostEndpoint.Name === '(source VIP)' ? h.HostEndpoint.IPAddress : `${h.HostEndpoint.Name} ${h.HostEndpoint.IPAddress}`],
    ], '  '));
  } else {
    out.push('Devices:');
    out.push(...(m.devices.length
      ? table(['NAME', 'KIND', 'ADDRESS', 'MTU', 'DETAIL'], m.devices.map((d) => [d.name, d.kind, d.address, String(d.mtu), d.detail ?? '']), '  ').map((l) => l.trimEnd())
      : ['  <none>']));
  }
  out.push('Endpoints:');
  const eps = m.endpoints as (HNSEndpoint | LinuxEndpoint)[];
  if (!eps.length) out.push('  <none>');
  else if (isHNS(eps[0]!)) out.push(...table(['POD', 'IP', 'MAC', 'NAME'], (eps as HNSEndpoint[]).map((e) => [e.Pod, e.IPAddress, e.MacAddress, e.Name]), '  '));
  else out.push(...table(['POD', 'IP', 'INTERFACE'], (eps as LinuxEndpoint[]).map((e) => [e.Pod, e.IPAddress, e.bridge ? `${e.name}@${e.bridge}` : e.name]), '  '));
  out.push('CNI Files:');
  if (!m.files.length) out.push(`  <not modelled for ${net.plugin}>`);
  for (const f of m.files) {
    out.push(`  ${f.path}:`);
    for (const l of f.content.replace(/\r\n/g, '\n').replace(/\n$/, '').split('\n')) out.push(`    ${l}`.trimEnd());
  }
  out.push('kube-proxy:');
  const kp = m.kubeProxy;
  out.push(...fields([
    ['Mode', kp.mode],
    ...(node.os === 'windows' ? [['DSR', kp.dsr ? 'on' : 'off'] as [string, string]] : []),
    ['Feature Gates', Object.entries(kp.featureGates).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => `${k}=${v}`).join(',') || '<none>'],
    ...Object.entries(kp.env).map(([k, v]) => ['Env', `${k}=${v}`] as [string, string]),
    ['Command', kp.command.join(' ')],
  ], '  '));
  if (m.notes.length) {
    out.push('Windows Support:');
    for (const n of m.notes) out.push(`  - ${n}`);
  }
  return out.join('\n') + '\n';
}
