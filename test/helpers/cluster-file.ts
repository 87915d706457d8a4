import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCluster, type TestCluster } from './cluster.js';

/**
 * Starts `winkube up --config` on the given cluster file (YAML text, or its lines), written into the fresh
 * data directory, so `removeDir(cluster.dataDir)` removes both.
 */
export function startClusterFromFile(clusterFile: string | readonly string[], extraArgs: string[] = []): Promise<TestCluster> {
  const dataDir = mkdtempSync(join(tmpdir(), 'winkube-test-'));
  const file = join(dataDir, 'cluster.yaml');
  writeFileSync(file, typeof clusterFile === 'string' ? clusterFile : [...clusterFile, ''].join('\n'));
  return startCluster(dataDir, ['--config', file, ...extraArgs]);
}
