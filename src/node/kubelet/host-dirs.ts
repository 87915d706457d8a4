/**
 * The node's own directories that hostPath volumes mount: one HostDir per
 * host path per node, so two pods of a node share what they write there and
 * pods of other nodes do not. Paths are compared as the node's filesystem
 * does: case-insensitively with either slash on Windows, exactly on Linux.
 * A directory holds, when first mounted, the node's own files below it
 * (what the CNI wrote there), so a pod mounting /etc/cni/net.d reads them.
 */
import { HostDir } from '../shell/fs.js';
import type { NodeFile } from '../net/flannel-files.js';

export class HostDirs {
  private readonly dirs = new Map<string, HostDir>();
  /** `nodeFiles` is asked when a directory is first mounted: the node's files by then. */
  constructor(private readonly os: 'linux' | 'windows', private readonly nodeFiles: () => readonly NodeFile[] = () => []) {}

  /** The node's directory at `path` (created the first time it is mounted, with the node's files below it). */
  get(path: string): HostDir {
    const key = this.normalize(path);
    let d = this.dirs.get(key);
    if (!d) { d = new HostDir(); this.seed(d, key); this.dirs.set(key, d); }
    return d;
  }

  private seed(d: HostDir, key: string): void {
    const sep = this.os === 'windows' ? '\\' : '/';
    const root = key === '/' ? '' : key;
    for (const f of this.nodeFiles()) {
      const k = this.normalize(f.path);
      if (!k.startsWith(root + sep)) continue;
      const original = (this.os === 'windows' ? f.path.replace(/\//g, '\\') : f.path).slice(-(k.length - root.length));
      const parts = original.split(sep).filter(Boolean);
      let rel = '';
      for (const [i, part] of parts.entries()) {
        rel += sep + part;
        const relKey = this.os === 'windows' ? rel.toLowerCase() : rel;
        if (i === parts.length - 1) d.entries.set(relKey, { type: 'file', content: f.content, readOnly: false });
        else if (!d.entries.has(relKey)) d.entries.set(relKey, { type: 'dir', readOnly: false });
        if (!d.names.has(relKey)) d.names.set(relKey, rel);
      }
    }
  }

  private normalize(path: string): string {
    if (this.os === 'windows') {
      const p = path.replace(/\//g, '\\').replace(/\\+/g, '\\').replace(/\\$/, '').toLowerCase();
      return /^[a-z]:/.test(p) ? p : `c:${p.startsWith('\\') ? '' : '\\'}${p}`;
    }
    return path.replace(/\/+/g, '/').replace(/(.)\/$/, '$1');
  }
}
