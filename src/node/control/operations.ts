/**
 * `winkube node add|remove|stop|start`: machines joining, leaving, powering
 * off and booting while the cluster runs. Every change goes through the
 * farm (which tells its listeners) and is remembered in the data directory.
 */
import { errors } from '../../apimachinery/errors.js';
import { parsePool } from '../cluster-file.js';
import type { NodeFarm, FarmNode } from '../farm.js';
import { DEFAULT_NETWORK, type ClusterNetwork } from '../network.js';
import { PoolError, expandPools, type NodeConfig, type NodePool } from '../pool.js';
import { loadNodeChanges, saveNodeChanges, type IndexedNodeConfig, type NodeChanges } from './node-changes.js';

/** `winkube node add`: from a pool (`--pool`, `--count`), and/or with explicit fields (the cluster file's pool fields). */
export interface AddRequest { pool?: string; count?: number; name?: string; fields?: Record<string, unknown> }

/** Pool fields a new node copies from its pool. */
function poolFields(p: NodePool): Record<string, unknown> {
  const { name: _n, count: _c, exactName: _e, network: _net, ...rest } = p;
  return rest;
}

export class NodeOperations {
  private changes: NodeChanges;

  constructor(private readonly farm: NodeFarm, private readonly dataDir?: string) {
    this.changes = dataDir ? loadNodeChanges(dataDir) : { added: [], removed: [], stopped: [] };
  }

  list(): FarmNode[] { return this.farm.list().sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)); }

  async add(req: AddRequest): Promise<string[]> {
    const count = req.count ?? 1;
    if (!Number.isInteger(count) || count < 1) throw errors.badRequest('count must be a positive integer');
    if (req.name !== undefined && count !== 1) throw errors.badRequest('a node name can only be given with count 1');
    let base: Record<string, unknown> = {};
    if (req.pool !== undefined) {
      const pool = this.farm.pools.find((p) => p.name === req.pool);
      if (!pool) {
        throw errors.badRequest(`node pool "${req.pool}" not found (pools: ${this.farm.pools.map((p) => p.name).join(', ')})`);
      }
      base = poolFields(pool);
    } else if (req.name === undefined) {
      throw errors.badRequest('give a pool (--pool) or a node name');
    }
    const poolName = req.pool ?? req.name!;
    let template: NodeConfig | undefined;
    try {
      const pool = parsePool({ ...base, ...(req.fields ?? {}), name: req.name ?? poolName }, 0, this.network());
      [template] = expandPools([{ ...pool, count: 1, exactName: true }]);
    } catch (e) {
      if (e instanceof PoolError) throw errors.badRequest(e.message);
      throw e;
    }
    // A pool of one node expands to that node.
    if (!template) throw errors.internal(`the pool ${poolName} expanded to no node`);
    const names = req.name !== undefined ? [req.name] : this.nextNames(poolName, count);
    const configs = names.map((name) => ({ ...template, name, pool: poolName }));
    await this.farm.addNodes(configs);
    for (const cfg of configs) {
      this.changes.added.push({ ...cfg, index: this.farm.indexOf(cfg.name)! } as IndexedNodeConfig);
      this.changes.removed = this.changes.removed.filter((n) => n !== cfg.name);
    }
    this.save();
    return names;
  }

  async remove(name: string): Promise<void> {
    await this.farm.removeNode(name);
    const before = this.changes.added.length;
    this.changes.added = this.changes.added.filter((n) => n.name !== name);
    if (this.changes.added.length === before && !this.changes.removed.includes(name)) this.changes.removed.push(name);
    this.changes.stopped = this.changes.stopped.filter((n) => n !== name);
    this.save();
  }

  async stop(name: string): Promise<void> {
    await this.farm.stopNode(name);
    if (!this.changes.stopped.includes(name)) this.changes.stopped.push(name);
    this.save();
  }

  async start(name: string): Promise<void> {
    await this.farm.startNode(name);
    this.changes.stopped = this.changes.stopped.filter((n) => n !== name);
    this.save();
  }

  /** The cluster's network: every node has the same (pool.ts refuses pools that differ). */
  private network(): ClusterNetwork {
    const n = this.farm.nodeConfigs[0]?.network ?? this.farm.pools[0]?.network;
    return n ? { plugin: n.plugin, mode: n.mode, ...(n.podSubnet ? { podSubnet: n.podSubnet } : {}) } : { ...DEFAULT_NETWORK };
  }

  /** `<pool>-<n>` after the highest n among the farm's nodes of the pool. */
  private nextNames(pool: string, count: number): string[] {
    const re = new RegExp(`^${pool.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-(\\d+)$`);
    let max = 0;
    for (const n of this.farm.nodeNames) { const m = re.exec(n); if (m) max = Math.max(max, Number(m[1])); }
    return Array.from({ length: count }, (_, i) => `${pool}-${max + i + 1}`);
  }

  private save(): void { if (this.dataDir) saveNodeChanges(this.dataDir, this.changes); }
}
