/**
 * The node's own directories that hostPath volumes mount: one HostDir per
 * host path per node, so two pods of a node share what they write there and
 * pods of other nodes do not. Paths are compared as the node's filesystem
 * does: case-insensitively with either slash on Windows, exactly on Linux.
 */
import { HostDir } from '../shell/fs.js';

export class HostDirs {
  private readonly dirs = new Map<string, HostDir>();
  constructor(private readonly os: 'linux' | 'windows') {}

  /** The node's directory at `path` (created empty the first time it is mounted). */
  get(path: string): HostDir {
    const key = this.normalize(path);
    let d = this.dirs.get(key);
    if (!d) { d = new HostDir(); this.dirs.set(key, d); }
    return d;
  }

  private normalize(path: string): string {
    if (this.os === 'windows') {
      const p = path.replace(/\//g, '\\').replace(/\\+/g, '\\').replace(/\\$/, '').toLowerCase();
      return /^[a-z]:/.test(p) ? p : `c:${p.startsWith('\\') ? '' : '\\'}${p}`;
    }
    return path.replace(/\/+/g, '/').replace(/(.)\/$/, '$1');
  }
}
