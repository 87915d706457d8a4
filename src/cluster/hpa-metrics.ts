/**
 * How the HPA controller reads metrics.k8s.io and its targets' scale
 * subresources: as kube-controller-manager does, over HTTPS through the API
 * server, whose aggregator proxies to metrics-server (the in-process loopback
 * client serves only the registry's own resources) and which serves every
 * kind's scale subresource, custom resources included. It authenticates as its
 * service account (system:serviceaccount:kube-system:horizontal-pod-autoscaler)
 * with a client certificate the cluster CA issues, so RBAC judges it as that
 * account; without metrics-server the list fails as it does upstream.
 */
import { controllerServiceAccount } from '../client/identities.js';
import { HttpsClient } from '../client/https.js';
import type { HPAApi } from '../controllers/podautoscaler/controller.js';
import { apiResourceMetrics } from '../controllers/podautoscaler/metrics-client.js';
import { apiScales } from '../controllers/podautoscaler/scale-client.js';
import type { PemPair } from '../pki/certificates.js';
import { issue } from '../pki/issue.js';

/** The client is made (its certificate issued) on the first call: a cluster without HPAs pays nothing at start. */
export function hpaApi(server: URL, ca: PemPair): HPAApi {
  let client: Promise<HttpsClient> | undefined;
  const connect = async (): Promise<HttpsClient> => {
    const user = controllerServiceAccount('horizontal-pod-autoscaler');
    // As Go's pkix.Name: the organizations in one RDN, then the common name.
    const credentials = await issue(ca, [{ O: user.groups }, { CN: [user.name] }], 'client', { dns: [], ip: [] });
    return new HttpsClient({ server, ca: Buffer.from(ca.cert), cert: Buffer.from(credentials.cert), key: Buffer.from(credentials.key) },
      user, 'kube-controller-manager');
  };
  const connected = (): Promise<HttpsClient> => (client ??= connect());
  return {
    metrics: {
      async resourceMetric(resource, namespace, selector, container) {
        return apiResourceMetrics(await connected()).resourceMetric(resource, namespace, selector, container);
      },
    },
    scales: apiScales({ call: async (method, path, body) => (await connected()).call(method, path, body) }),
  };
}
