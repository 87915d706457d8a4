/**
 * `winkube up --gmsa`: sig-windows' GMSA admission webhook, installed as its deploy script
 * (windows-gmsa admission-webhook/deploy/gmsa-webhook.yml.tpl at 993de21, name and namespace
 * `gmsa-webhook`) installs it, so users see the same objects: the namespace (labelled so the webhook
 * skips it), the service account with its ClusterRole and binding, the Service, and the validating
 * and mutating webhook configurations with the CA bundle.
 *
 * What differs: the webhook runs in this process as its service account, not as a Deployment's pod
 * (no pod network to reach one), so its Service has no selector and hand-written Endpoints point at
 * the local port it listens on, the way a user points a Service at a webhook run on their machine;
 * its serving certificate is issued by the cluster CA rather than kept in a Secret.
 */
import type { Server } from 'node:https';
import type { ClusterRole, ClusterRoleBinding } from 'kubernetes-types/rbac/v1.js';
import type { MutatingWebhookConfiguration, ValidatingWebhookConfiguration, MutatingWebhook, ValidatingWebhook } from 'kubernetes-types/admissionregistration/v1.js';
import type { WebhookRule } from '../admission/rule-matching.js';
import { isAlreadyExists } from '../apimachinery/errors.js';
import type { KObject } from '../apimachinery/object.js';
import { serviceAccountUser } from '../client/identities.js';
import {
  clusterrolebindings, clusterroles, mutatingwebhookconfigurations, namespaces, serviceaccounts, services,
  validatingwebhookconfigurations,
} from '../client/resources.js';
import type { Client, ResourceRef } from '../client/types.js';
import { clientLookups } from '../addons/gmsa-webhook/lookups.js';
import { startGMSAWebhook } from '../addons/gmsa-webhook/server.js';
import { issue } from '../pki/issue.js';
import type { PemPair } from '../pki/certificates.js';

const NAME = 'gmsa-webhook';
const NAMESPACE = 'gmsa-webhook';
const RBAC_ROLE_NAME = `${NAMESPACE}-${NAME}-rbac-role`;
/** The webhooks' name in both configurations. */
export const GMSA_WEBHOOK_NAME = 'admission-webhook.windows-gmsa.sigs.k8s.io';

/** The template's webhook entry for one path: pods, failing closed, skipping namespaces labelled disabled. */
function webhook(path: string, operations: string[], caBundle: string): MutatingWebhook & ValidatingWebhook {
  const rule: WebhookRule = { operations, apiGroups: [''], apiVersions: ['*'], resources: ['pods'] };
  return {
    name: GMSA_WEBHOOK_NAME,
    clientConfig: { service: { name: NAME, namespace: NAMESPACE, path }, caBundle },
    rules: [rule],
    failurePolicy: 'Fail',
    admissionReviewVersions: ['v1', 'v1beta1'],
    sideEffects: 'None',
    namespaceSelector: { matchExpressions: [{ key: 'gmsa-webhook', operator: 'NotIn', values: ['disabled'] }] },
  };
}

/** Creates obj, or replaces what `replace` says is this installation's part of an existing one. */
async function ensure<T extends { metadata?: { name?: string } }>(client: Client, ref: ResourceRef<T>, namespace: string, obj: T, replace?: (current: T) => T): Promise<void> {
  try {
    await client.resource(ref).create(namespace, obj);
  } catch (e) {
    if (!isAlreadyExists(e)) throw e;
    if (replace) await client.resource(ref).update(namespace, obj.metadata!.name!, replace);
  }
}

/**
 * Starts the webhook (a client acting as its service account) and writes its objects through
 * `installer` (the Endpoints and CA bundle follow this start's port and CA); resolves with a stop.
 */
export async function installGMSAWebhook(installer: Client, webhookClient: (user: ReturnType<typeof serviceAccountUser>) => Client, ca: PemPair,
  bindAddress: string, writeEndpoints: (namespace: string, obj: KObject) => Promise<void>): Promise<{ stop(): Promise<void> }> {
  const serviceName = `${NAME}.${NAMESPACE}.svc`;
  const serving = await issue(ca, serviceName, 'server', { dns: [serviceName, `${serviceName}.cluster.local`], ip: [bindAddress] });
  const { server, port } = await startGMSAWebhook(serving, clientLookups(webhookClient(serviceAccountUser(NAMESPACE, NAME))), bindAddress);
  const caBundle = Buffer.from(ca.cert).toString('base64');
  try {
    await ensure(installer, namespaces, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE, labels: { 'gmsa-webhook': 'disabled' } } });
    await ensure(installer, serviceaccounts, NAMESPACE, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: NAME, namespace: NAMESPACE } });
    const role: ClusterRole = {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: RBAC_ROLE_NAME },
      rules: [
        { apiGroups: ['windows.k8s.io'], resources: ['gmsacredentialspecs'], verbs: ['get'] },
        { apiGroups: ['authorization.k8s.io'], resources: ['localsubjectaccessreviews'], verbs: ['create'] },
      ],
    };
    await ensure(installer, clusterroles, '', role);
    const binding: ClusterRoleBinding = {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: `${NAMESPACE}-${NAME}-binding-to-${RBAC_ROLE_NAME}` },
      subjects: [{ kind: 'ServiceAccount', name: NAME, namespace: NAMESPACE }],
      roleRef: { kind: 'ClusterRole', name: RBAC_ROLE_NAME, apiGroup: 'rbac.authorization.k8s.io' },
    };
    await ensure(installer, clusterrolebindings, '', binding);
    await ensure(installer, services, NAMESPACE, {
      apiVersion: 'v1', kind: 'Service', metadata: { name: NAME, namespace: NAMESPACE },
      spec: { ports: [{ port: 443, targetPort: 443 }] },
    });
    // On loopback, which validation refuses in Endpoints: written as the API server writes its own.
    await writeEndpoints(NAMESPACE, { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: NAME, namespace: NAMESPACE }, subsets: [{ addresses: [{ ip: bindAddress }], ports: [{ port }] }] });
    const validating: ValidatingWebhookConfiguration = {
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: NAME },
      webhooks: [webhook('/validate', ['CREATE', 'UPDATE'], caBundle)],
    };
    await ensure(installer, validatingwebhookconfigurations, '', validating, (current) => ({ ...current, webhooks: validating.webhooks }));
    const mutating: MutatingWebhookConfiguration = {
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name: NAME },
      webhooks: [webhook('/mutate', ['CREATE'], caBundle)],
    };
    await ensure(installer, mutatingwebhookconfigurations, '', mutating, (current) => ({ ...current, webhooks: mutating.webhooks }));
  } catch (e) {
    server.close();
    throw e;
  }
  return { stop: () => closeServer(server) };
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
