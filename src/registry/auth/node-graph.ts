/**
 * The Node authorizer's graph (plugin/pkg/auth/authorizer/node/graph.go and
 * graph_populator.go), kept from storage as upstream's is from informers:
 *
 *   pod → node                       (a pod bound to the node)
 *   secret, configmap, pvc, service account, resource claim → pod → node
 *                                    (what a bound pod names; none for mirror pods)
 *   pv → pvc, secret → pv            (a volume bound to a claim, and its secrets)
 *
 * (Upstream's volume attachment and resource slice edges have no objects
 * here: storage.k8s.io's VolumeAttachments and resource.k8s.io are not served.)
 * Rather than walking edges, each object a pod names keeps a count of the
 * bound pods naming it per node (upstream's destination edge index), so
 * that a decision is a few map reads.
 */
import type { PersistentVolume, Pod } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../../apimachinery/object.js';
import type { NodeRelations, RelatedKind } from '../../authorization/node-authorizer.js';
import { MIRROR_POD_ANNOTATION, podClaimNames, podConfigMapNames, podSecretNames } from '../../component-helpers/pod-references.js';
import type { Store } from '../store.js';
import { followStored } from './follow-stored.js';

const key = (kind: RelatedKind, namespace: string, name: string) => `${kind}\0${namespace}\0${name}`;

/** A bound pod as the graph holds it: its node, uid, and the objects it names. */
interface BoundPod { node: string; uid: string; refs: string[] }

/** What a PersistentVolume leads to: its claim, and the secrets the kubelet uses for it. */
interface VolumeEdges { claim: string; secrets: string[] }

export class NodeGraph implements NodeRelations {
  private readonly pods = new Map<string, BoundPod>();
  /** For each object bound pods name: how many of them each node runs. */
  private readonly onNodes = new Map<string, Map<string, number>>();
  private readonly volumes = new Map<string, VolumeEdges>();
  private readonly volumesOfSecret = new Map<string, Set<string>>();

  /** Reads the pods and volumes the store holds and follows their writes. */
  static async start(store: Store): Promise<NodeGraph> {
    const g = new NodeGraph();
    const def = (resource: string) => {
      const d = store.find('', 'v1', resource);
      if (!d) throw new Error(`${resource} are not served`);
      return d;
    };
    await Promise.all([
      followStored<Pod & KObject>(store, def('pods'), (p) => g.putPod(p), (p) => g.removePod(p)),
      followStored<PersistentVolume & KObject>(store, def('persistentvolumes'), (v) => g.putVolume(v), (v) => g.removeVolume(v.metadata.name!)),
    ]);
    return g;
  }

  hasPathFrom(nodeName: string, kind: RelatedKind, namespace: string, name: string): boolean {
    switch (kind) {
      case 'pod': return this.pods.get(`${namespace}/${name}`)?.node === nodeName;
      case 'volumeattachment': case 'resourceslice': return false;
      case 'pv': {
        const v = this.volumes.get(name);
        return !!v && this.runsOn(v.claim, nodeName);
      }
      case 'secret': {
        const k = key('secret', namespace, name);
        if (this.runsOn(k, nodeName)) return true;
        for (const pv of this.volumesOfSecret.get(k) ?? []) if (this.hasPathFrom(nodeName, 'pv', '', pv)) return true;
        return false;
      }
      default: return this.runsOn(key(kind, namespace, name), nodeName);
    }
  }

  private runsOn(objectKey: string, nodeName: string): boolean {
    return (this.onNodes.get(objectKey)?.get(nodeName) ?? 0) > 0;
  }

  /** updatePod: only a bound pod counts, and what it names cannot change while its node and uid stay. */
  private putPod(pod: Pod & KObject): void {
    const node = pod.spec?.nodeName;
    if (!node) return;
    const podKey = `${pod.metadata.namespace}/${pod.metadata.name}`;
    const old = this.pods.get(podKey);
    if (old && old.node === node && old.uid === pod.metadata.uid) return;
    if (old) this.count(old, -1);
    const bound: BoundPod = { node, uid: pod.metadata.uid ?? '', refs: [...new Set(namedBy(pod))] };
    this.pods.set(podKey, bound);
    this.count(bound, 1);
  }

  private removePod(pod: Pod & KObject): void {
    const podKey = `${pod.metadata.namespace}/${pod.metadata.name}`;
    const old = this.pods.get(podKey);
    if (!old) return;
    this.pods.delete(podKey);
    this.count(old, -1);
  }

  private count(pod: BoundPod, by: 1 | -1): void {
    for (const ref of pod.refs) {
      let perNode = this.onNodes.get(ref);
      if (!perNode) this.onNodes.set(ref, perNode = new Map());
      const n = (perNode.get(pod.node) ?? 0) + by;
      if (n > 0) perNode.set(pod.node, n);
      else perNode.delete(pod.node);
      if (perNode.size === 0) this.onNodes.delete(ref);
    }
  }

  /** AddPV: a volume leads somewhere only once it is bound to a claim. */
  private putVolume(pv: PersistentVolume & KObject): void {
    const name = pv.metadata.name!;
    this.removeVolume(name);
    const ref = pv.spec?.claimRef;
    if (!ref) return;
    const edges: VolumeEdges = {
      claim: key('pvc', ref.namespace ?? '', ref.name ?? ''),
      secrets: kubeletVisibleSecrets(pv).map(([ns, secret]) => key('secret', ns, secret)),
    };
    this.volumes.set(name, edges);
    for (const s of edges.secrets) {
      let set = this.volumesOfSecret.get(s);
      if (!set) this.volumesOfSecret.set(s, set = new Set());
      set.add(name);
    }
  }

  private removeVolume(name: string): void {
    const old = this.volumes.get(name);
    if (!old) return;
    this.volumes.delete(name);
    for (const s of old.secrets) {
      const set = this.volumesOfSecret.get(s);
      set?.delete(name);
      if (set?.size === 0) this.volumesOfSecret.delete(s);
    }
  }
}

/** AddPod's edges into the pod (graph keys); a mirror pod leads nowhere but to its node. */
function namedBy(pod: Pod & KObject): string[] {
  if (pod.metadata.annotations?.[MIRROR_POD_ANNOTATION] !== undefined) return [];
  const ns = pod.metadata.namespace ?? '';
  const spec = pod.spec!;
  const refs: string[] = [];
  if (spec.serviceAccountName) refs.push(key('serviceAccount', ns, spec.serviceAccountName));
  for (const s of podSecretNames(spec)) refs.push(key('secret', ns, s));
  for (const c of podConfigMapNames(spec)) refs.push(key('configmap', ns, c));
  for (const c of podClaimNames(pod.metadata.name!, spec)) refs.push(key('pvc', ns, c));
  for (const s of pod.status?.resourceClaimStatuses ?? []) {
    if (s.resourceClaimName) refs.push(key('resourceclaim', ns, s.resourceClaimName));
  }
  return refs;
}

/**
 * pvutil.VisitPVSecretNames, the secrets the kubelet reads (kubeletVisible):
 * a volume source's secret reference, in its own namespace or (for the
 * sources written before references had one) the claim's; CSI's node
 * publish, stage and expand secrets.
 */
function kubeletVisibleSecrets(pv: PersistentVolume): [string, string][] {
  const s = pv.spec ?? {};
  const claimNs = s.claimRef?.namespace ?? '';
  const out: [string, string][] = [];
  const ref = (r: { name?: string; namespace?: string } | undefined, defaultNs: string) => {
    if (r?.name !== undefined) out.push([r.namespace || defaultNs, r.name]);
  };
  if (s.azureFile) {
    if (s.azureFile.secretName) out.push([s.azureFile.secretNamespace || claimNs, s.azureFile.secretName]);
  } else if (s.cephfs) ref(s.cephfs.secretRef, claimNs);
  else if (s.cinder) ref(s.cinder.secretRef, '');
  else if (s.flexVolume) ref(s.flexVolume.secretRef, claimNs);
  else if (s.rbd) ref(s.rbd.secretRef, claimNs);
  else if (s.scaleIO) ref(s.scaleIO.secretRef, claimNs);
  else if (s.iscsi) ref(s.iscsi.secretRef, claimNs);
  else if (s.storageos) ref(s.storageos.secretRef, '');
  else if (s.csi) {
    ref(s.csi.nodePublishSecretRef, '');
    ref(s.csi.nodeStageSecretRef, '');
    ref(s.csi.nodeExpandSecretRef, '');
  }
  return out;
}
