import { APIServiceAutoRegistration } from './apiservice-autoregistration.js';
import { LocalAPIServiceAvailability } from '../controllers/apiservice-local-availability.js';
import { randomBytes } from 'node:crypto';
import { DEFAULT_AUTHORIZATION_MODES, MODE_NODE, type AuthorizationMode } from '../authorization/modes.js';
import { newAuthorizationPolicy } from '../authorization/authorizers.js';
import { RbacIndex } from '../registry/auth/rbac-index.js';
import { NodeGraph } from '../registry/auth/node-graph.js';
import { nodeRules } from '../registry/rbac/bootstrap-policy.js';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { prepareDataDir } from './data-dir.js';
import { join, resolve } from 'node:path';
import type { AddressInfo } from 'node:net';
import { createApiServer } from '../api/server.js';
import { Authenticator } from '../api/auth.js';
import { anonymousAuthAllowed } from '../authorization/anonymous-auth.js';
import { ServiceAccountTokens, TOKEN_ISSUER } from '../pki/service-account-tokens.js';
import { EMULATED_VERSION } from '../apimachinery/version.js';
import { ensurePki } from '../pki/certificates.js';
import { installGMSAWebhook } from './gmsa-webhook.js';
import { installMetricsServer } from './metrics-server.js';
import { hpaApi } from './hpa-metrics.js';
import { ServedWorkStore } from '../node/usage/served-work.js';
import { parseDuration } from '../apimachinery/duration.js';
import { CustomResourceDefinitionController } from '../registry/apiextensions/index.js';
import { allResources } from '../registry/resources.js';
import { Store } from '../registry/store.js';
import { openStorageBackend, type StorageBackendOptions } from './storage-backend.js';
import { startCompactor } from '../storage/compactor.js';
import { bootstrapCluster, reconcileOwnEndpoints } from './bootstrap.js';
import { FlowControl } from '../flowcontrol/controller.js';
import { ensureFlowControlObjects, startFlowControlConfig } from './flowcontrol-config.js';
import { ensureRBACPolicy } from './rbac-policy.js';
import { NodeFarm } from '../node/farm.js';
import { apiServerEndpoint } from '../node/net/apiserver-endpoint.js';
import { PodTokenIssuer } from '../registry/auth/pod-tokens.js';
import { DEFAULT_POOLS, expandPools, type NodePool } from '../node/pool.js';
import { adminKubeconfig } from './kubeconfig.js';
import { NodeOperations } from '../node/control/operations.js';
import { nodeControlHandler, type NodeControlHandler } from './node-control-endpoint.js';
import { NET_CHECK_PATH, netCheckHandler } from './net-check-endpoint.js';
import { applyNodeChanges, loadNodeChanges } from '../node/control/node-changes.js';
import { DEFAULT_NETWORK } from '../node/network.js';
import { ContainerLogs } from '../node/logs/container-logs.js';
import { EventRecorder } from '../events/recorder.js';
import { DEFAULT_LB_POOL, LBPool } from '../network/lb-pool.js';
import { SCHEDULER, Scheduler } from '../scheduler/scheduler.js';
import { LoopbackClient } from '../client/loopback.js';
import { APISERVER_LOOPBACK, KUBE_CONTROLLER_MANAGER, KUBE_SCHEDULER, nodeUser, serviceAccountUser } from '../client/identities.js';
import type { SchedulerConfig } from '../scheduler/profile.js';
import { execContext, runningContainerContext } from '../node/exec/container-context.js';
import { execShellFor } from '../node/exec/shell-exec.js';
import { kubeletContainerStreams } from '../node/exec/container-streams.js';
import { Kubelet } from '../node/kubelet/kubelet.js';
import { evictionTimingsFromEnv } from '../node/kubelet/eviction/timings.js';
import { farmKubelets } from './kubelet-servers.js';
import { CLUSTER_DNS_IP, DNS_DOMAIN } from '../node/network.js';
import { serveClusterDNS } from './cluster-dns.js';
import { startServiceExposer } from './service-exposer.js';
import { parseControllersFlag, runControllerManager } from '../controllers/manager.js';
import { DEFAULT_CONTROLLERS } from '../controllers/runtime/controller-flags.js';
import { newControllerContext } from '../controllers/runtime/controller-context.js';
import { APIServiceAvailabilityController } from '../controllers/apiservice-availability.js';
import { APIServiceProxy } from '../api/aggregation-proxy.js';
import { ClusterAuthenticationTrustController, kubeadmAuthenticationInfo } from './cluster-authentication-trust.js';
import { TransformingStorage } from '../storage/transformers/transforming-storage.js';
import type { EncryptionConfiguration } from '../storage/transformers/encryption-config.js';
import { openAuditLog, type AuditLogOptions } from '../api/audit/log-backend.js';
import { loginLink, uiRoutes } from '../ui/routes.js';
import { onlyInNodeFarmHolder } from './node-farm-holder.js';
import { clusterNetworkDialer } from './pod-endpoint-dialer.js';
import { electorFor, leaseTimingsFromEnv, NODE_FARM_LEASE, runLeaderElected } from './leader-elected.js';
import { endpointReconcilerTimingsFromEnv, LeaseEndpointReconciler } from './lease-endpoint-reconciler.js';

/** The first address of the service CIDR (10.96.0.0/12) is the `kubernetes` Service. */
export const KUBERNETES_SERVICE_IP = '10.96.0.1';

export interface ClusterOptions {
  port: number; dataDir: string; bindAddress: string; log?: (m: string) => void;
  /** The node pools (from the cluster file); the default cluster when absent. */
  nodePools?: readonly NodePool[];
  /** Addresses for LoadBalancer services (a range or CIDR list); DEFAULT_LB_POOL when absent. */
  lbPool?: string;
  /** The scheduler's profiles (`--scheduler-config`); the default profile when absent. */
  schedulerConfig?: SchedulerConfig;
  /** Serve the API only: no emulated nodes, scheduler or workload/service/node controllers. */
  apiOnly?: boolean;
  /** `--controllers` (kube-controller-manager's flag): `*` when absent. */
  controllers?: readonly string[];
  /** `--authorization-mode`: AlwaysAllow when absent. */
  authorizationModes?: readonly AuthorizationMode[];
  /** `--gmsa`: install the GMSACredentialSpec CRD (src/cluster/gmsa-crd.ts) and the GMSA webhook (gmsa-webhook.ts). */
  gmsa?: boolean;
  /** `--dns-port`: serve the cluster DNS on 127.0.0.1 at this port (0 picks one); not served when absent. */
  dnsPort?: number;
  /** `--expose`: every NodePort and LoadBalancer Service on 127.0.0.1 (annotated ones are, without it). */
  expose?: boolean;
  /** `--metrics-server`: run metrics-server behind the aggregator (src/cluster/metrics-server.ts); not with `apiOnly`. */
  metricsServer?: boolean;
  /** `--encryption-provider-config`: the resources whose values are encrypted at rest; stored as given when absent. */
  encryptionConfig?: EncryptionConfiguration;
  /** `--audit-policy-file` with `--audit-log-path`: the audit log; nothing is audited when absent. */
  auditLog?: AuditLogOptions;
  /** `--storage` with the `--etcd-*` flags: SQLite in the data directory when absent. */
  storage?: StorageBackendOptions;
}

export interface RunningCluster {
  port: number;
  version: string;
  kubeconfigPath: string;
  /** The web view's login link (the admin token in its fragment). */
  uiLink: string;
  store: Store;
  /** The cluster DNS's UDP and TCP port on 127.0.0.1, when `--dns-port` asked for it. */
  dnsPort?: number;
  stop(): Promise<void>;
}

function adminToken(dir: string): string {
  const file = join(dir, 'admin.token');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const token = randomBytes(24).toString('base64url');
  writeFileSync(file, token + '\n', { mode: 0o600 });
  return token;
}

/** The group versions the store serves, each once. */
function servedGroupVersions(defs: readonly { group: string; version: string }[]): { group: string; version: string }[] {
  const seen = new Map<string, { group: string; version: string }>();
  for (const d of defs) seen.set(`${d.group}/${d.version}`, { group: d.group, version: d.version });
  return [...seen.values()];
}

/** Opens the data directory, starts the API server and the built-in controllers. */
export async function startCluster(opts: ClusterOptions): Promise<RunningCluster> {
  const log = opts.log ?? ((m: string) => console.error(m));
  const nodes = expandPools(opts.nodePools ?? DEFAULT_POOLS);
  const dataDir = resolve(opts.dataDir);
  prepareDataDir(dataDir);
  // This machine's address of the server: the loopback one when it listens on every address.
  const localHost = opts.bindAddress === '0.0.0.0' ? '127.0.0.1' : opts.bindAddress;
  // A second server on another loopback address (127.0.0.2) is named in the serving certificate too.
  const pki = await ensurePki(dataDir, KUBERNETES_SERVICE_IP, [localHost]);
  const backend = await openStorageBackend(opts.storage ?? { kind: 'sqlite' }, dataDir);
  const storage = opts.encryptionConfig ? new TransformingStorage(backend, opts.encryptionConfig) : backend;
  const store = new Store(storage, allResources());
  const auditLog = opts.auditLog && openAuditLog(opts.auditLog);
  if (auditLog) store.audit = auditLog.auditor;
  // The authorizer every request meets, the in-process clients' too; RBAC reads the roles and bindings in memory.
  const modes = opts.authorizationModes ?? DEFAULT_AUTHORIZATION_MODES;
  // The Node mode's graph of what each node's pods name, followed only when the mode is on.
  const nodeAuthorization = modes.includes(MODE_NODE) ? { graph: await NodeGraph.start(store), rules: nodeRules() } : undefined;
  store.authorization = newAuthorizationPolicy(modes, await RbacIndex.start(store), nodeAuthorization);
  const authorizer = store.authorization.authorizer;
  // The apiextensions-apiserver's controllers: CRDs' names and conditions, their custom resources served once Established.
  const crdController = new CustomResourceDefinitionController(store, log);
  await crdController.start();
  const containerLogs = new ContainerLogs();
  // The CPU the containers' servers spend on requests: written by the pod workers, read by the kubelets' stats.
  const servedWork = new ServedWorkStore();
  // The emulated nodes' events.
  const events = new EventRecorder(new LoopbackClient(store, APISERVER_LOOPBACK, 'kubelet', authorizer), log);
  let ready = false;
  let port = opts.port;
  const apiURL = () => new URL(`https://${localHost}:${port}`);
  // The emulated machines: the configured nodes, as `winkube node add|remove|stop` left them in an earlier run.
  const nodeChanges = applyNodeChanges(nodes, loadNodeChanges(dataDir));
  // The kubelets' shared reads, in process; each node writes as system:node:<name>.
  const kubeletClient = new LoopbackClient(store, APISERVER_LOOPBACK, 'kubelet', authorizer);
  const farm = new NodeFarm(kubeletClient, nodeChanges.nodes, log, undefined, opts.nodePools ?? DEFAULT_POOLS, events);
  const nodeOperations = new NodeOperations(farm, dataDir);
  /** The kubelets of this process, once started: exec runs in their containers' own contexts. */
  let runningKubelet: Kubelet | undefined;
  // Webhooks, conversion webhooks: Services whose endpoints are this process's emulated pods are reached through their network,
  // from the control-plane node kube-apiserver runs on.
  store.podEndpoints = clusterNetworkDialer(() => runningKubelet?.network, nodeChanges.nodes.find((n) => n.role === 'control-plane')?.name);
  /** kube-scheduler: binds pending pods of its profiles' schedulerNames. */
  async function startScheduler(): Promise<() => Promise<void>> {
    const scheduler = new Scheduler(schedulerClient, new EventRecorder(schedulerClient, log), { config: opts.schedulerConfig, log });
    await scheduler.start();
    return () => scheduler.stop();
  }
  async function startNodes(): Promise<() => Promise<void>> {
    // The emulated kubelets: the default cluster's nodes register Ready and start heartbeating.
    await farm.start(nodeChanges.stopped);
    // The kubelets' pod workers: pods bound to the farm's nodes run in the emulated container runtime.
    const podTokens = await PodTokenIssuer.start(store, new ServiceAccountTokens(join(dataDir, 'pki')));
    // The farm's current machines: nodes added at run time included, removed ones not.
    const kubelet = new Kubelet(kubeletClient, farm.nodeConfigs, {
      logs: containerLogs, servedWork, events, log,
      // Simulated first-pull time per image and node (ms); WINKUBE_IMAGE_PULL_MS=0 for benchmarks.
      pullMs: process.env.WINKUBE_IMAGE_PULL_MS ? Number(process.env.WINKUBE_IMAGE_PULL_MS) : undefined,
      // Nodes report the images their runtime holds in status.images.
      onImagesChanged: (node) => farm.imagesChanged(node),
      // Each node's eviction manager: MemoryPressure in its status; periods shortened by WINKUBE_EVICTION_* for tests.
      onMemoryPressure: (node, underPressure) => farm.setMemoryPressure(node, underPressure),
      eviction: evictionTimingsFromEnv(),
      // The pods' kubernetes Service leads to this server (a wildcard bind is reached on loopback).
      apiServer: apiServerEndpoint(apiURL(), pki.ca.cert),
      token: (pod, audience, expirationSeconds) => podTokens.issue(pod, audience ? [audience] : [TOKEN_ISSUER], expirationSeconds, new Date()),
    });
    await kubelet.start();
    runningKubelet = kubelet;
    farm.setImageSource((node) => kubelet.imagesOf(node));
    for (const n of farm.list()) if (!n.running) kubelet.setNodeRunning(n.name, false);
    farm.addListener({
      onNodeAdded: (cfg) => kubelet.addNode(cfg), onNodeRemoved: (name) => kubelet.removeNode(name),
      onNodeStopped: (name) => kubelet.setNodeRunning(name, false), onNodeStarted: (name) => kubelet.setNodeRunning(name, true),
    });
    const addons = await startNodeAddons();
    return async () => {
      await addons();
      runningKubelet = undefined;
      await kubelet.stop();
      await farm.stop();
    };
  }
  /** What runs beside the nodes: metrics-server scrapes their kubelets, the exposer dials their pods. */
  async function startNodeAddons(): Promise<() => Promise<void>> {
    // metrics-server behind the aggregator; WINKUBE_METRIC_RESOLUTION (a Go duration) shortens its 15 s scrape period for tests.
    const metricsServer = !opts.metricsServer ? undefined : await installMetricsServer({
      installer: new LoopbackClient(store, APISERVER_LOOPBACK, 'winkube', authorizer),
      client: new LoopbackClient(store, serviceAccountUser('kube-system', 'metrics-server'), 'metrics-server', authorizer),
      ca: pki.ca, frontProxyCA: pki.frontProxyCA, bindAddress: localHost, resourceMetrics: (node, now) => kubelets.resourceMetrics(node, now),
      writeEndpoints: (namespace, obj) => reconcileOwnEndpoints(store, namespace, obj),
      metricResolutionMs: process.env.WINKUBE_METRIC_RESOLUTION ? parseDuration(process.env.WINKUBE_METRIC_RESOLUTION) : undefined,
      log,
    });
    // NodePort and LoadBalancer Services on this machine: all of them with --expose, else the annotated ones.
    const exposer = await startServiceExposer({
      client: new LoopbackClient(store, APISERVER_LOOPBACK, 'winkube-expose', authorizer),
      exposeAll: opts.expose === true, network: () => runningKubelet?.network, log,
    });
    return async () => {
      await exposer.stop();
      await metricsServer?.stop();
    };
  }

  // API Priority and Fairness: the mandatory levels until the configuration in the cluster is read.
  const flowControl = new FlowControl();
  const schedulerClient = new LoopbackClient(store, KUBE_SCHEDULER, SCHEDULER, authorizer);
  const kubelets = farmKubelets(farm, (node) => runningKubelet?.podsOn(node) ?? [], { ip: CLUSTER_DNS_IP, domain: DNS_DOMAIN }, servedWork);
  const aggregation = new APIServiceProxy({ resolve: (resource, namespace, name) => store.get('', resource, namespace, name), proxyClient: pki.frontProxyClient, podEndpoints: () => store.podEndpoints });
  const token = adminToken(dataDir);
  const saTokens = new ServiceAccountTokens(join(dataDir, 'pki'));
  // The web view's endpoint reads the API as its caller, over the same listener (any address reaches 127.0.0.1).
  const localAddress = () => `${['0.0.0.0', '::', ''].includes(opts.bindAddress) ? '127.0.0.1' : opts.bindAddress}:${port}`;
  const server = createApiServer({
    store,
    flowControl,
    tls: { key: pki.serving.key, cert: pki.serving.cert, ca: pki.ca.cert },
    authenticator: new Authenticator(token, saTokens, store,
      anonymousAuthAllowed(modes)),
    issuerDiscovery: {
      issuer: TOKEN_ISSUER,
      // kube-apiserver's --service-account-jwks-uri: the advertised address is this machine's loopback, which pods
      // cannot reach, so the keys are published under the issuer's in-cluster name instead.
      jwksURI: `${TOKEN_ISSUER}/openid/v1/jwks`,
      keys: () => [saTokens.publicJWK()],
    },
    authorizer,
    advertiseAddress: () => `${opts.bindAddress}:${port}`,
    ready: () => ready,
    log,
    containerLogs,
    // kubectl exec: the kubelet's shell model in the container's environment and files; attach: its log.
    containerStreams: kubeletContainerStreams(
      async (pod, container, node) => execShellFor(runningContainerContext(runningKubelet, pod, container) ?? await execContext(
        kubeletClient.as(nodeUser(String((pod.spec as { nodeName?: string } | undefined)?.nodeName ?? '')), 'kubelet'), pod, container, node)),
      containerLogs,
      // kubectl port-forward: the pod's listeners in the cluster network, through its node's sandbox.
      () => runningKubelet?.network, (pod) => runningKubelet?.sandboxOf(pod)),
    winkubeRoutes: winkubeRoutes(onlyInNodeFarmHolder(nodeControlHandler(nodeOperations), () => runningKubelet !== undefined),
      netCheckHandler(() => runningKubelet?.network, (resource, ns, name) => store.get('', resource, ns, name))),
    // nodes/NAME/proxy: the running nodes' kubelet servers.
    kubelets: kubelets.servers,
    // ReadHeaderTimeout (32 s); WINKUBE_READ_HEADER_TIMEOUT_MS shortens it, for tests of slow clients.
    readHeaderTimeoutMs: process.env.WINKUBE_READ_HEADER_TIMEOUT_MS ? Number(process.env.WINKUBE_READ_HEADER_TIMEOUT_MS) : undefined,
    // The aggregator's proxy to service-backed APIServices, presenting the front-proxy client certificate.
    aggregation,
    ui: uiRoutes({ address: localAddress, ca: pki.ca.cert }, opts.schedulerConfig),
  });
  await new Promise<void>((res, rej) => {
    server.once('error', rej);
    server.listen(opts.port, opts.bindAddress, () => res());
  });
  port = (server.address() as AddressInfo).port;
  await bootstrapCluster(store, { serviceIP: KUBERNETES_SERVICE_IP, port, hostIP: opts.bindAddress, network: nodes[0]?.network ?? DEFAULT_NETWORK, gmsa: opts.gmsa });
  // The API server's own writes of the priority and fairness configuration (its post-start hooks' loopback client).
  // The rbac/bootstrap-roles post-start hook: the bootstrap policy, created or reconciled at each start.
  await ensureRBACPolicy(new LoopbackClient(store, APISERVER_LOOPBACK, 'kube-apiserver', authorizer), log);
  // `--gmsa`: sig-windows' GMSA admission webhook too, run in process as its service account.
  const gmsaWebhook = opts.gmsa ? await installGMSAWebhook(new LoopbackClient(store, APISERVER_LOOPBACK, 'winkube', authorizer),
    (user) => new LoopbackClient(store, user, 'gmsa-webhook', authorizer), pki.ca, localHost,
    (namespace, obj) => reconcileOwnEndpoints(store, namespace, obj)) : undefined;
  // The aggregator's controllers: an APIService for each served group version (and each CRD's), local ones Available.
  const aggregatorClient = new LoopbackClient(store, APISERVER_LOOPBACK, 'kube-apiserver', authorizer);
  const autoRegistration = new APIServiceAutoRegistration(aggregatorClient, servedGroupVersions(store.defs), log);
  await autoRegistration.start();
  const localAvailability = new LocalAPIServiceAvailability(aggregatorClient, log);
  await localAvailability.start();
  const apiserver = new LoopbackClient(store, APISERVER_LOOPBACK, 'api-priority-and-fairness-config-producer-v1', authorizer);
  await ensureFlowControlObjects(apiserver);
  const stopFlowControl = await startFlowControlConfig(apiserver, flowControl, log);
  // kube-apiserver's own controllers on its loopback client: the extension-apiserver-authentication
  // ConfigMap and the aggregator's availability checks of service-backed APIServices.
  const aggregatorContext = newControllerContext({ client: new LoopbackClient(store, APISERVER_LOOPBACK, 'kube-apiserver', authorizer), log });
  const authenticationTrust = new ClusterAuthenticationTrustController(aggregatorContext, kubeadmAuthenticationInfo(pki));
  await authenticationTrust.start();
  const apiServiceAvailability = new APIServiceAvailabilityController(aggregatorContext, { proxyClient: pki.frontProxyClient, podEndpoints: () => store.podEndpoints });
  await apiServiceAvailability.start();
  // kube-controller-manager, under its leader Lease: namespaces, garbage collector, quotas, and (not with
  // --api-only) the workload, service and node controllers.
  const kcm = new LoopbackClient(store, KUBE_CONTROLLER_MANAGER, 'kube-controller-manager', authorizer);
  const kcmEvents = new EventRecorder(kcm, log);
  const leaseTimings = leaseTimingsFromEnv();
  const controllerManager = await runControllerManager({
    client: kcm, newContext: () => newControllerContext({ client: kcm, events: kcmEvents, log }), events: kcmEvents, log, ca: pki.ca,
    workloads: opts.apiOnly ? undefined : { lbPool: LBPool.parse(opts.lbPool ?? DEFAULT_LB_POOL), hpa: hpaApi(apiURL(), pki.ca) },
    controllers: parseControllersFlag(opts.controllers ?? DEFAULT_CONTROLLERS),
  }, (client, component, callbacks, events, elog) => electorFor(client, component, leaseTimings, callbacks, events, elog));
  // The emulated nodes with their add-ons, and the scheduler: run once among the servers sharing the storage
  // (src/cluster/leader-elected.ts); `--api-only` leaves them out, for figures of the API server alone.
  const nodeFarmClient = new LoopbackClient(store, APISERVER_LOOPBACK, NODE_FARM_LEASE, authorizer);
  const leaderElected = opts.apiOnly ? [] : [
    await runLeaderElected(nodeFarmClient, NODE_FARM_LEASE, leaseTimings, startNodes, new EventRecorder(nodeFarmClient, log), log, true),
    await runLeaderElected(schedulerClient, 'kube-scheduler', leaseTimings, startScheduler, new EventRecorder(schedulerClient, log), log, false,
      opts.schedulerConfig?.profiles[0]?.schedulerName ?? SCHEDULER),
  ];
  const stopComponents = async () => { for (const l of leaderElected.reverse()) await l.stop(); };
  // The `kubernetes` Service's endpoints: every live server sharing the storage.
  const endpointReconciler = new LeaseEndpointReconciler({ store, storage, ip: localHost, port, log, ...endpointReconcilerTimingsFromEnv() });
  await endpointReconciler.start();
  const compactor = startCompactor(storage);
  const dns = opts.dnsPort === undefined ? undefined
    : await serveClusterDNS(new LoopbackClient(store, APISERVER_LOOPBACK, 'coredns', authorizer), '127.0.0.1', opts.dnsPort, log);
  ready = true;
  const kubeconfigPath = join(dataDir, 'kubeconfig.yaml');
  writeFileSync(kubeconfigPath, adminKubeconfig(`https://${opts.bindAddress}:${port}`, pki), { mode: 0o600 });
  // It holds the admin key; one written wider by an earlier version is narrowed (mode only applies on creation).
  chmodSync(kubeconfigPath, 0o600);
  return {
    port,
    version: `v${EMULATED_VERSION.major}.${EMULATED_VERSION.minor}`,
    kubeconfigPath,
    uiLink: loginLink(localAddress(), token),
    store,
    ...(dns ? { dnsPort: dns.port } : {}),
    async stop() {
      // Graceful termination first: requests in flight finish against a running cluster.
      await server.drain();
      compactor.stop();
      await endpointReconciler.stop();
      await dns?.close();
      await gmsaWebhook?.stop();
      crdController.stop();
      autoRegistration.stop();
      localAvailability.stop();
      stopFlowControl();
      apiServiceAvailability.stop();
      aggregation.close();
      authenticationTrust.stop();
      aggregatorContext.informers.stop();
      await controllerManager.stop();
      await stopComponents();
      await storage.close();
      auditLog?.close();
    },
  };
}

/** winkube's own endpoints by path: `winkube net check`'s, else node control's. */
function winkubeRoutes(nodeControl: NodeControlHandler, netCheck: NodeControlHandler): NodeControlHandler {
  return (req, res, path, user) => (path === NET_CHECK_PATH ? netCheck(req, res, path, user) : nodeControl(req, res, path, user));
}
