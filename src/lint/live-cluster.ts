/**
 * `--kubeconfig`: the nodes of a live cluster (winkube or any conformant
 * one), read over HTTPS with the kubeconfig's credentials, and whether
 * sig-windows' GMSA webhook is registered there.
 */
import type { Node } from 'kubernetes-types/core/v1.js';
import type { ServerTarget } from '../client/https.js';
import { callControl, targetFromKubeconfig } from '../node/control/client.js';
import { describeNodes } from './cluster-description.js';
import type { ClusterDescription } from './types.js';

/** The webhook name of windows-gmsa's deploy template (admission-webhook/deploy/gmsa-webhook.yml.tpl). */
const GMSA_WEBHOOK_SUFFIX = 'windows-gmsa.sigs.k8s.io';

export async function describeLiveCluster(kubeconfig: string): Promise<ClusterDescription> {
  return describeLiveTarget(targetFromKubeconfig(kubeconfig));
}

/** The same from a server and credentials found otherwise (the admission webhook's in-cluster service account). */
export async function describeLiveTarget(target: ServerTarget): Promise<ClusterDescription> {
  const nodes = await callControl(target, 'GET', '/api/v1/nodes');
  if (nodes.status !== 200) throw new Error(`listing nodes at ${target.server.origin}: ${String(nodes.body?.message ?? `HTTP ${nodes.status}`)}`);
  const hooks = await callControl(target, 'GET', '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations');
  // Without the right to list webhook configurations the answer is unknown, and the GMSA rule stays quiet.
  const gmsa = hooks.status === 200
    ? (hooks.body?.items ?? []).some((c: { webhooks?: Array<{ name?: string }> }) => (c.webhooks ?? []).some((w) => w.name?.endsWith(GMSA_WEBHOOK_SUFFIX)))
    : undefined;
  return describeNodes((nodes.body?.items ?? []) as Node[], target.server.origin, gmsa);
}
