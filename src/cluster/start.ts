import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { AddressInfo } from 'node:net';
import { createApiServer } from '../api/server.js';
import { Authenticator } from '../api/auth.js';
import { ServiceAccountTokens } from '../pki/service-account-tokens.js';
import { EMULATED_VERSION } from '../api/discovery.js';
import { ensurePki } from '../pki/certificates.js';
import { allResources } from '../registry/resources.js';
import { Store } from '../registry/store.js';
import { SqliteStorage } from '../storage/sqlite.js';
import { NamespaceController } from '../controllers/namespace-content.js';
import { GarbageCollector } from '../controllers/garbage-collector.js';
import { ResourceQuotaController } from '../controllers/resource-quota.js';
import { startCompactor } from '../storage/compactor.js';
import { bootstrapCluster } from './bootstrap.js';
import { NodeFarm } from '../node/farm.js';
import { DEFAULT_POOLS, expandPools, type NodePool } from '../node/pool.js';
import { adminKubeconfig } from './kubeconfig.js';
import { ContainerLogs } from '../node/logs/container-logs.js';
import { EventRecorder } from '../events/recorder.js';
import { Scheduler } from '../scheduler/scheduler.js';
import type { SchedulerConfig } from '../scheduler/profile.js';
import { Kubelet } from '../node/kubelet/kubelet.js';
import { ReplicaSetController } from '../controllers/replicaset.js';
import { DeploymentController } from '../controllers/deployment/controller.js';

/** The first address of the service CIDR (10.96.0.0/12) is the `kubernetes` Service. */
export const KUBERNETES_SERVICE_IP = '10.96.0.1';

export interface ClusterOptions {
  port: number; dataDir: string; bindAddress: string; log?: (m: string) => void;
  /** The node pools (from the cluster file); the default cluster when absent. */
  nodePools?: readonly NodePool[];
  /** The scheduler's profiles (`--scheduler-config`); the default profile when absent. */
  schedulerConfig?: SchedulerConfig;
}

export interface RunningCluster {
  port: number;
  version: string;
  kubeconfigPath: string;
  store: Store;
  stop(): Promise<void>;
}

function adminToken(dir: string): string {
  const file = join(dir, 'admin.token');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const token = randomBytes(24).toString('base64url');
  writeFileSync(file, token + '\n', { mode: 0o600 });
  return token;
}

/** Opens the data directory, starts the API server and the built-in controllers. */
export async function startCluster(opts: ClusterOptions): Promise<RunningCluster> {
  const log = opts.log ?? ((m: string) => console.error(m));
  const nodes = expandPools(opts.nodePools ?? DEFAULT_POOLS);
  const dataDir = resolve(opts.dataDir);
  mkdirSync(dataDir, { recursive: true });
  const pki = await ensurePki(dataDir, KUBERNETES_SERVICE_IP);
  const storage = new SqliteStorage(join(dataDir, 'state.db'));
  const store = new Store(storage, allResources());
  const containerLogs = new ContainerLogs();
  const events = new EventRecorder(store, log);
  let ready = false;
  let port = opts.port;
  const server = createApiServer({
    store,
    tls: { key: pki.serving.key, cert: pki.serving.cert, ca: pki.ca.cert },
    authenticator: new Authenticator(adminToken(dataDir), new ServiceAccountTokens(join(dataDir, 'pki'))),
    advertiseAddress: () => `${opts.bindAddress}:${port}`,
    ready: () => ready,
    log,
    containerLogs,
  });
  await new Promise<void>((res, rej) => {
    server.once('error', rej);
    server.listen(opts.port, opts.bindAddress, () => res());
  });
  port = (server.address() as AddressInfo).port;
  await bootstrapCluster(store, { serviceIP: KUBERNETES_SERVICE_IP, port, hostIP: opts.bindAddress });
  const namespaces = new NamespaceController(store, pki.ca.cert, log);
  await namespaces.start();
  await new GarbageCollector(store, log).start();
  await new ResourceQuotaController(store, log).start();
  // The emulated kubelets: the default cluster's nodes register Ready and start heartbeating.
  const farm = new NodeFarm(store, nodes, log);
  await farm.start();
  // Components started below (scheduler, kubelet pod workers, controllers) each add one block here.
  // kube-scheduler: binds pending pods of its profiles' schedulerNames.
  const scheduler = new Scheduler(store, events, { config: opts.schedulerConfig, log });
  await scheduler.start();
  // Workload controllers: ReplicaSets and ReplicationControllers (one controller, as upstream), Deployments.
  await new ReplicaSetController(store, events, log, 'ReplicaSet').start();
  await new ReplicaSetController(store, events, log, 'ReplicationController').start();
  const deploymentController = new DeploymentController(store, events, log);
  await deploymentController.start();
  void events;
  // The kubelets' pod workers: pods bound to the farm's nodes run in the emulated container runtime.
  const saTokens = new ServiceAccountTokens(join(dataDir, 'pki'));
  const kubelet = new Kubelet(store, nodes, {
    logs: containerLogs, events, log,
    token: (pod, audience, expirationSeconds) => {
      const sa = String((pod.spec as Record<string, unknown>)?.serviceAccountName ?? 'default');
      return saTokens.issue(pod.metadata.namespace!, sa, '', audience ? [audience] : ['https://kubernetes.default.svc.cluster.local'], expirationSeconds, new Date()).token;
    },
  });
  await kubelet.start();
  const compactor = startCompactor(storage);
  ready = true;
  const kubeconfigPath = join(dataDir, 'kubeconfig.yaml');
  writeFileSync(kubeconfigPath, adminKubeconfig(`https://${opts.bindAddress}:${port}`, pki), { mode: 0o600 });
  return {
    port,
    version: `v${EMULATED_VERSION.major}.${EMULATED_VERSION.minor}`,
    kubeconfigPath,
    store,
    async stop() {
      compactor.stop();
      await scheduler.stop();
      deploymentController.stop();
      await kubelet.stop();
      await farm.stop();
      server.closeAllConnections();
      await new Promise<void>((res) => server.close(() => res()));
      await storage.close();
    },
  };
}
