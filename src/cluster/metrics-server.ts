/**
 * metrics-server v0.7, installed as its components.yaml installs it (the
 * `metrics-server` ServiceAccount, Service and APIService
 * `v1beta1.metrics.k8s.io` in kube-system, `system:aggregated-metrics-reader`
 * aggregated into view/edit/admin, `system:metrics-server` and its binding,
 * the auth-reader and auth-delegator bindings), so `kubectl top` reaches it
 * through the aggregator as on a real cluster.
 *
 * What differs: it runs in this process as its service account, not as a
 * Deployment's pod (as the GMSA webhook does: the host cannot reach pod
 * addresses), so its Service has no selector and hand-written Endpoints
 * point at the local port it listens on; it reads each kubelet's
 * `/metrics/resource` samples in process rather than over port 10250 (the
 * same batch its decoder makes of the endpoint's text, without printing and
 * parsing every pod's lines each resolution). Installed by `winkube up --metrics-server`, as k3s and
 * managed clusters ship it; without it the cluster is kubeadm's, where
 * `kubectl top` says `error: Metrics API not available`.
 */
import type { APIService } from '../apimachinery/apiservice.js';
import type { ClusterRole, ClusterRoleBinding, RoleBinding } from 'kubernetes-types/rbac/v1.js';
import { isAlreadyExists } from '../apimachinery/errors.js';
import type { KObject } from '../apimachinery/object.js';
import { InformerFactory } from '../client/informer-factory.js';
import { apiservices, clusterrolebindings, clusterroles, nodes, pods, rolebindings, serviceaccounts, services } from '../client/resources.js';
import type { Client, ResourceRef } from '../client/types.js';
import type { MetricFamily } from '../exposition/prometheus-text.js';
import { startMetricsServer } from '../addons/metrics-server/server.js';
import { issue } from '../pki/issue.js';
import type { PemPair } from '../pki/certificates.js';

const NAME = 'metrics-server';
const NAMESPACE = 'kube-system';
const LABELS = { 'k8s-app': NAME };

async function ensure<T extends { metadata?: { name?: string } }>(client: Client, ref: ResourceRef<T>, namespace: string, obj: T): Promise<void> {
  try {
    await client.resource(ref).create(namespace, obj);
  } catch (e) {
    if (!isAlreadyExists(e)) throw e;
  }
}

/** components.yaml's RBAC objects. */
async function installRBAC(c: Client): Promise<void> {
  const rbac = 'rbac.authorization.k8s.io';
  await ensure(c, serviceaccounts, NAMESPACE, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: NAME, namespace: NAMESPACE, labels: LABELS } });
  const reader: ClusterRole = {
    apiVersion: `${rbac}/v1`, kind: 'ClusterRole',
    metadata: { name: 'system:aggregated-metrics-reader', labels: { ...LABELS, [`${rbac}/aggregate-to-admin`]: 'true', [`${rbac}/aggregate-to-edit`]: 'true', [`${rbac}/aggregate-to-view`]: 'true' } },
    rules: [{ apiGroups: ['metrics.k8s.io'], resources: ['pods', 'nodes'], verbs: ['get', 'list', 'watch'] }],
  };
  await ensure(c, clusterroles, '', reader);
  const own: ClusterRole = {
    apiVersion: `${rbac}/v1`, kind: 'ClusterRole', metadata: { name: 'system:metrics-server', labels: LABELS },
    rules: [
      { apiGroups: [''], resources: ['nodes/metrics'], verbs: ['get'] },
      { apiGroups: [''], resources: ['pods', 'nodes'], verbs: ['get', 'list', 'watch'] },
    ],
  };
  await ensure(c, clusterroles, '', own);
  const subjects = [{ kind: 'ServiceAccount', name: NAME, namespace: NAMESPACE }];
  const binding = (name: string, role: string): ClusterRoleBinding => ({
    apiVersion: `${rbac}/v1`, kind: 'ClusterRoleBinding', metadata: { name, labels: LABELS }, subjects,
    roleRef: { apiGroup: rbac, kind: 'ClusterRole', name: role },
  });
  await ensure(c, clusterrolebindings, '', binding('metrics-server:system:auth-delegator', 'system:auth-delegator'));
  await ensure(c, clusterrolebindings, '', binding('system:metrics-server', 'system:metrics-server'));
  const authReader: RoleBinding = {
    apiVersion: `${rbac}/v1`, kind: 'RoleBinding', metadata: { name: 'metrics-server-auth-reader', namespace: NAMESPACE, labels: LABELS }, subjects,
    roleRef: { apiGroup: rbac, kind: 'Role', name: 'extension-apiserver-authentication-reader' },
  };
  await ensure(c, rolebindings, NAMESPACE, authReader);
}

export interface MetricsServerInstall {
  /** Writes the objects (as the cluster's administrator). */
  installer: Client;
  /** A client acting as the metrics-server service account. */
  client: Client;
  ca: PemPair;
  frontProxyCA: PemPair;
  bindAddress: string;
  /** A node's kubelet `/metrics/resource` samples, read in process; undefined when its kubelet does not run. */
  resourceMetrics(nodeName: string, now: Date): Promise<readonly MetricFamily[] | undefined>;
  writeEndpoints(namespace: string, obj: KObject): Promise<void>;
  metricResolutionMs?: number;
  log(message: string): void;
}

/** Starts metrics-server and writes its objects; resolves with its stop. */
export async function installMetricsServer(o: MetricsServerInstall): Promise<{ stop(): Promise<void> }> {
  await installRBAC(o.installer);
  // Its listers: informers as its service account (system:metrics-server lets it list and watch).
  const informers = new InformerFactory(o.client);
  const nodeInformer = informers.forResource(nodes);
  const podInformer = informers.forResource(pods);
  await Promise.all([nodeInformer.start(), podInformer.start()]);
  const serviceName = `${NAME}.${NAMESPACE}.svc`;
  const serving = await issue(o.ca, serviceName, 'server', { dns: [serviceName, `${serviceName}.cluster.local`], ip: [o.bindAddress] });
  const server = await startMetricsServer({
    serving, requestHeaderCA: o.frontProxyCA.cert, allowedNames: ['front-proxy-client'], bindAddress: o.bindAddress,
    nodes: () => nodeInformer.cache.list(''),
    pods: (namespace) => podInformer.cache.list(namespace || '*'),
    scrape: (node, now) => o.resourceMetrics(node, now),
    metricResolutionMs: o.metricResolutionMs,
    log: (message) => o.log(message),
  });
  try {
    await ensure(o.installer, services, NAMESPACE, {
      apiVersion: 'v1', kind: 'Service', metadata: { name: NAME, namespace: NAMESPACE, labels: LABELS },
      spec: { ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: 'https' }] },
    });
    // On loopback, which validation refuses in Endpoints: written as the API server writes its own, and
    // kept out of EndpointSlice mirroring as its own are (a slice may not name a loopback address).
    await o.writeEndpoints(NAMESPACE, {
      apiVersion: 'v1', kind: 'Endpoints', metadata: { name: NAME, namespace: NAMESPACE, labels: { ...LABELS, 'endpointslice.kubernetes.io/skip-mirror': 'true' } },
      subsets: [{ addresses: [{ ip: o.bindAddress }], ports: [{ name: 'https', port: server.port, protocol: 'TCP' }] }],
    });
    const apiService: APIService = {
      apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1beta1.metrics.k8s.io', labels: LABELS },
      spec: { service: { name: NAME, namespace: NAMESPACE }, group: 'metrics.k8s.io', version: 'v1beta1', insecureSkipTLSVerify: true, groupPriorityMinimum: 100, versionPriority: 100 },
    };
    await ensure(o.installer, apiservices, '', apiService);
  } catch (e) {
    await server.stop();
    informers.stop();
    throw e;
  }
  return { async stop() { await server.stop(); informers.stop(); } };
}
