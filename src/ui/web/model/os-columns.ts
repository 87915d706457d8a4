/**
 * The cluster map's columns: one per OS and Windows build, as the nodes' labels say
 * (`kubernetes.io/os`, `node.kubernetes.io/windows-build`, set by the kubelet on Windows as 10.0.<build>).
 */
import type { Node } from 'kubernetes-types/core/v1.js';

export interface OsColumn { key: string; title: string; nodes: Node[] }

/** The Windows Server releases whose builds the docs' version-compatibility table names. */
const WINDOWS_RELEASES: Record<string, string> = { '17763': 'Windows Server 2019', '20348': 'Windows Server 2022', '26100': 'Windows Server 2025' };

export function columnOf(node: Node): { key: string; title: string; order: number } {
  const labels = node.metadata?.labels ?? {};
  const os = labels['kubernetes.io/os'] ?? labels['beta.kubernetes.io/os'] ?? 'unknown';
  if (os === 'linux') return { key: 'linux', title: 'Linux', order: 0 };
  if (os !== 'windows') return { key: `os-${os}`, title: os, order: 2_000_000 };
  const full = labels['node.kubernetes.io/windows-build'] ?? '';
  const build = /^\d+\.\d+\.(\d+)/.exec(full)?.[1];
  if (!build) return { key: 'windows', title: 'Windows (build not labelled)', order: 1_000_000 };
  const release = WINDOWS_RELEASES[build];
  return { key: `windows-${build}`, title: release ? `${release} / ${build}` : `Windows / ${build}`, order: Number(build) };
}

/** Linux first, then Windows by build (oldest first), nodes by name within a column. */
export function osColumns(nodes: Iterable<Node>): OsColumn[] {
  const columns = new Map<string, OsColumn & { order: number }>();
  for (const node of nodes) {
    const c = columnOf(node);
    let column = columns.get(c.key);
    if (!column) columns.set(c.key, column = { ...c, nodes: [] });
    column.nodes.push(node);
  }
  return [...columns.values()]
    .sort((a, b) => a.order - b.order || a.key.localeCompare(b.key))
    .map(({ key, title, nodes: members }) => ({ key, title, nodes: members.sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? '')) }));
}
