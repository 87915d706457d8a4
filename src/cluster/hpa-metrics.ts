/**
 * How the HPA controller reads metrics.k8s.io: as kube-controller-manager
 * does, over HTTPS through the API server, whose aggregator proxies to
 * metrics-server (the in-process loopback client serves only the
 * registry's own resources). It authenticates as its service account
 * (system:serviceaccount:kube-system:horizontal-pod-autoscaler) with a
 * client certificate the cluster CA issues, so RBAC judges it as that
 * account; without metrics-server the list fails as it does upstream.
 */
import { controllerServiceAccount } from '../client/identities.js';
import { HttpsClient } from '../client/https.js';
import { apiResourceMetrics, type ResourceMetricsClient } from '../controllers/podautoscaler/metrics-client.js';
import type { PemPair } from '../pki/certificates.js';
import { issue } from '../pki/issue.js';

/** The client is made (its certificate issued) on the first read: a cluster without HPAs pays nothing at start. */
export function hpaResourceMetrics(server: URL, ca: PemPair): ResourceMetricsClient {
  let reader: Promise<ResourceMetricsClient> | undefined;
  const connect = async (): Promise<ResourceMetricsClient> => {
    const user = controllerServiceAccount('horizontal-pod-autoscaler');
    // As Go's pkix.Name: the organizations in one RDN, then the common name.
    const credentials = await issue(ca, [{ O: user.groups }, { CN: [user.name] }], 'client', { dns: [], ip: [] });
    const client = new HttpsClient({ server, ca: Buffer.from(ca.cert), cert: Buffer.from(credentials.cert), key: Buffer.from(credentials.key) },
      user, 'kube-controller-manager');
    return apiResourceMetrics(client);
  };
  return {
    async resourceMetric(resource, namespace, selector, container) {
      return (await (reader ??= connect())).resourceMetric(resource, namespace, selector, container);
    },
  };
}
