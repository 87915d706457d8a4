import { isAlreadyExists } from '../apimachinery/errors.js';
import type { Store } from '../registry/store.js';
import type { ResourceDef } from '../registry/types.js';
import { endpoints } from '../registry/core/endpoints.js';
import { namespaces } from '../registry/core/namespaces.js';
import { services } from '../registry/core/services.js';
import { endpointslices } from '../registry/groups/discovery/endpointslices.js';
import { priorityclasses } from '../registry/groups/scheduling/priorityclasses.js';
import type { KObject } from '../apimachinery/object.js';
import { systemPriorityClasses } from '../registry/groups/index.js';
import { inProcessWriteContext } from '../apimachinery/write-context.js';
import type { ClusterNetwork } from '../node/network.js';
import { ensureSystemWorkloads } from './system-workloads.js';
import { gmsaCredentialSpecCRD } from './gmsa-crd.js';
import { customresourcedefinitions } from '../registry/apiextensions/customresourcedefinitions.js';

export const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

async function ensure(
  store: Store, found: ResourceDef, namespace: string, obj: KObject, unvalidated = false,
): Promise<void> {
  // The endpoint reconciler writes straight to storage: its (possibly loopback) address is not validated.
  const def = unvalidated ? { ...found, validate: undefined } : found;
  if (await store.get(def.group, def.resource, namespace, obj.metadata.name!)) return;
  try {
    await store.create(def, namespace, obj, { ...inProcessWriteContext('kube-apiserver'), namespace });
  } catch (e) {
    if (!(isAlreadyExists(e))) throw e;
  }
}

/**
 * Endpoints of a server in this process (the API server's own, an in-process webhook's), written
 * as upstream's endpoint reconciler writes the API server's: straight to storage, their (possibly
 * loopback) address not validated, replaced when this start's differ.
 */
export async function reconcileOwnEndpoints(store: Store, namespace: string, obj: KObject): Promise<void> {
  const def: ResourceDef = { ...endpoints, validate: undefined, validateUpdate: undefined };
  const ctx = { ...inProcessWriteContext('kube-apiserver'), namespace };
  if (!(await store.get(def.group, def.resource, namespace, obj.metadata.name!))) {
    try {
      await store.create(def, namespace, obj, ctx);
      return;
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
    }
  }
  await store.update(def, namespace, obj.metadata.name!, (current) => ({ ...current, subsets: obj.subsets }), ctx);
}

/**
 * What kube-apiserver creates for itself at start: the system namespaces,
 * the built-in priority classes and the `kubernetes` Service with its
 * endpoints.
 */
export async function bootstrapCluster(store: Store, opts: {
  serviceIP: string; port: number; hostIP: string;
  /** With the cluster's pod network: kube-system's add-ons too (CoreDNS, kube-proxy, the CNI), as kubeadm and the CNI manifests install them. */
  network?: ClusterNetwork;
  /** `--gmsa`: the GMSACredentialSpec CRD too. */
  gmsa?: boolean;
}): Promise<void> {
  for (const name of SYSTEM_NAMESPACES) {
    await ensure(store, namespaces, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  }
  for (const pc of systemPriorityClasses()) await ensure(store, priorityclasses, '', pc);
  await ensure(store, services, 'default', {
    apiVersion: 'v1', kind: 'Service',
    metadata: { name: 'kubernetes', labels: { component: 'apiserver', provider: 'kubernetes' } },
    spec: {
      type: 'ClusterIP', clusterIP: opts.serviceIP, sessionAffinity: 'None',
      ports: [{ name: 'https', protocol: 'TCP', port: 443, targetPort: opts.port }],
    },
  });
  await reconcileOwnEndpoints(store, 'default', {
    apiVersion: 'v1', kind: 'Endpoints',
    metadata: { name: 'kubernetes', labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } },
    subsets: [{ addresses: [{ ip: opts.hostIP }], ports: [{ name: 'https', port: opts.port, protocol: 'TCP' }] }],
  });
  await ensure(store, endpointslices, 'default', {
    apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
    metadata: { name: 'kubernetes', labels: { 'kubernetes.io/service-name': 'kubernetes' } },
    addressType: 'IPv4',
    endpoints: [{ addresses: [opts.hostIP], conditions: { ready: true } }],
    ports: [{ name: 'https', port: opts.port, protocol: 'TCP' }],
  }, true);
  if (opts.gmsa) await ensure(store, customresourcedefinitions, '', gmsaCredentialSpecCRD());
  if (opts.network) {
    await ensureSystemWorkloads(store, { network: opts.network, controlPlaneEndpoint: `https://${opts.hostIP}:${opts.port}` });
  }
}
