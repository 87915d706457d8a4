/**
 * What `winkube node add|remove|stop|start` changed, kept in the data
 * directory (`nodes.json`) so a restarted server finds the machines as they
 * were left: nodes added at run time keep heartbeating (with their pod CIDR),
 * removed ones stay gone, stopped ones stay stopped. The cluster file (or
 * the default cluster) stays the starting point.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NodeConfig } from '../pool.js';

export type IndexedNodeConfig = NodeConfig & { index: number };

export interface NodeChanges { added: IndexedNodeConfig[]; removed: string[]; stopped: string[] }

export const NODE_CHANGES_FILE = 'nodes.json';

export function loadNodeChanges(dataDir: string): NodeChanges {
  const file = join(dataDir, NODE_CHANGES_FILE);
  if (!existsSync(file)) return { added: [], removed: [], stopped: [] };
  const doc = JSON.parse(readFileSync(file, 'utf8')) as Partial<NodeChanges>;
  return { added: doc.added ?? [], removed: doc.removed ?? [], stopped: doc.stopped ?? [] };
}

export function saveNodeChanges(dataDir: string, changes: NodeChanges): void {
  const file = join(dataDir, NODE_CHANGES_FILE);
  writeFileSync(`${file}.tmp`, JSON.stringify(changes, null, 2) + '\n', { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
}

/** The farm's nodes: the configured ones not removed, then the added ones; and which are stopped. */
export function applyNodeChanges(configured: readonly NodeConfig[], changes: NodeChanges): {
  nodes: Array<NodeConfig & { index?: number }>; stopped: Set<string>;
} {
  const removed = new Set(changes.removed);
  const added = new Set(changes.added.map((n) => n.name));
  // A configured node keeps its position as index, so its pod CIDR does not move when another is removed.
  const nodes: Array<NodeConfig & { index?: number }> = configured
    .map((n, index) => ({ ...n, index }))
    .filter((n) => !removed.has(n.name) && !added.has(n.name));
  nodes.push(...changes.added);
  return { nodes, stopped: new Set(changes.stopped) };
}
