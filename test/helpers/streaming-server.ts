/**
 * An API server in the test process (no kubelet), so tests can put pods and
 * container logs in place directly and drive them with the real kubectl.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { createApiServer } from '../../src/api/server.js';
import { kubeletContainerStreams, type ExecShellFactory } from '../../src/node/exec/container-streams.js';
import { Authenticator } from '../../src/api/auth.js';
import { ensurePki } from '../../src/pki/certificates.js';
import { ServiceAccountTokens } from '../../src/pki/service-account-tokens.js';
import { allResources } from '../../src/registry/resources.js';
import { Store } from '../../src/registry/store.js';
import type { KObject } from '../../src/apimachinery/object.js';
import { SqliteStorage } from '../../src/storage/sqlite.js';
import { bootstrapCluster } from '../../src/cluster/bootstrap.js';
import { adminKubeconfig } from '../../src/cluster/kubeconfig.js';
import { ContainerLogs } from '../../src/node/logs/container-logs.js';
import { inProcessWriteContext } from '../../src/apimachinery/write-context.js';
import { kubectl, removeDir, type KubectlResult, type TestCluster } from './cluster.js';

export interface StreamingServer {
  port: number;
  kubeconfigPath: string;
  store: Store;
  logs: ContainerLogs;
  kubectl(args: string[], opts?: { version?: string; input?: string; env?: Record<string, string> }): Promise<KubectlResult>;
  /** Creates a pod bound to `node` and writes its status as a kubelet would. */
  pod(name: string, containers: string[], status: Record<string, unknown>, node?: string): Promise<KObject>;
  stop(): Promise<void>;
}

export async function startStreamingServer(execShell?: ExecShellFactory, opts: { readHeaderTimeoutMs?: number } = {}): Promise<StreamingServer> {
  const dir = mkdtempSync(join(tmpdir(), 'winkube-streaming-'));
  const pki = await ensurePki(dir, '10.96.0.1');
  const storage = new SqliteStorage(':memory:');
  const store = new Store(storage, allResources());
  const logs = new ContainerLogs();
  const server = createApiServer({
    store,
    tls: { key: pki.serving.key, cert: pki.serving.cert, ca: pki.ca.cert },
    authenticator: new Authenticator('test-token', new ServiceAccountTokens(join(dir, 'pki')), store),
    advertiseAddress: () => '127.0.0.1',
    ready: () => true,
    containerLogs: logs,
    containerStreams: kubeletContainerStreams(execShell, logs),
    readHeaderTimeoutMs: opts.readHeaderTimeoutMs,
  });
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', () => res()));
  const port = (server.address() as AddressInfo).port;
  await bootstrapCluster(store, { serviceIP: '10.96.0.1', port, hostIP: '127.0.0.1' });
  const kubeconfig = join(dir, 'kubeconfig.yaml');
  writeFileSync(kubeconfig, adminKubeconfig(`https://127.0.0.1:${port}`, pki));
  const cluster = { dataDir: dir, kubeconfig } as unknown as TestCluster;
  const pods = store.find('', 'v1', 'pods')!;
  const ctx = { ...inProcessWriteContext('test'), namespace: 'default' };
  await store.create(store.find('', 'v1', 'serviceaccounts')!, 'default', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } } as KObject, ctx);
  return {
    port, store, logs, kubeconfigPath: kubeconfig,
    kubectl: (args, opts = {}) => kubectl(cluster, args, { ...opts, timeoutMs: 30_000 }),
    async pod(name, containers, status, node = 'linux-1') {
      await store.create(pods, 'default', {
        apiVersion: 'v1', kind: 'Pod', metadata: { name },
        spec: { nodeName: node || undefined, automountServiceAccountToken: false, containers: containers.map((c) => ({ name: c, image: 'busybox' })) },
      } as KObject, ctx);
      return store.update(pods, 'default', name, (p: any) => { p.status = { phase: 'Running', ...status }; return p; }, ctx, 'status');
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((res) => server.close(() => res()));
      await storage.close();
      removeDir(dir);
    },
  };
}

/** A container status as the kubelet writes it. */
export function running(name: string, restartCount = 0, lastState: Record<string, unknown> = {}): Record<string, unknown> {
  return { name, ready: true, restartCount, image: 'busybox', imageID: '', containerID: `containerd://${name}${restartCount}`,
    started: true, state: { running: { startedAt: '2026-01-01T00:00:00Z' } }, lastState };
}
