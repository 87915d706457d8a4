/**
 * POST pods/binding (pkg/registry/core/pod/storage: BindingREST.Create and
 * assignPod): sets the pod's node and PodScheduled=True in one update, for a
 * pod that has no node yet and is not being deleted. The scheduler binds
 * through it, as any client may.
 */
import type { Binding, PodCondition, PodSpec, PodStatus } from 'kubernetes-types/core/v1.js';
import { errors } from '../../apimachinery/errors.js';
import type { KObject } from '../../apimachinery/object.js';
import { rfc3339 } from '../../apimachinery/time.js';
import type { Store } from '../store.js';
import type { ResourceDef, SubresourceWrite } from '../types.js';
import type { WriteContext } from '../../apimachinery/write-context.js';
import { mutateSubresourceCreate, validateSubresourceCreate, type SubresourceCreate } from '../../admission/chain.js';

/** The answer of a subresource POST that has no object to return: metav1.Status{Status: Success}, with the create's 201. */
export function createdStatus(): KObject {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 };
}

/** A pod condition as stored: a nil metav1.Time serializes as null. */
type StoredCondition = Omit<PodCondition, 'lastProbeTime'> & { lastProbeTime?: string | null };

/** assignPod / setPodNodeAndMetadata: the node, and PodScheduled=True replacing any earlier PodScheduled condition. */
export async function assignPod(store: Store, def: ResourceDef, namespace: string, name: string, node: string,
  ctx: WriteContext): Promise<void> {
  await store.update(def, namespace, name, (obj) => {
    const pod = obj as KObject & { spec?: PodSpec; status?: PodStatus };
    if (pod.metadata.deletionTimestamp) {
      throw errors.conflict({ group: '', resource: 'pods' }, name, `pod ${name} is being deleted, cannot be assigned to a host`);
    }
    const spec = pod.spec ?? (pod.spec = { containers: [] });
    if (spec.nodeName) {
      throw errors.conflict({ group: '', resource: 'pods' }, name, `pod ${name} is already assigned to node "${spec.nodeName}"`);
    }
    spec.nodeName = node;
    const status = pod.status ?? (pod.status = {});
    const conditions: StoredCondition[] = (status.conditions ?? []).filter((c) => c.type !== 'PodScheduled');
    conditions.push({ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: rfc3339(ctx.now) });
    status.conditions = conditions as PodCondition[];
    return pod;
  }, ctx, 'binding');
}

/** BindingREST.Create: a Binding must name its target node. */
export const createBinding: SubresourceWrite = async (store, def, namespace, name, body, ctx) => {
  // createHandler's Admit (a CREATE of pods/binding, the Binding as the object), then BindingREST.Create's
  // validation and its createValidation.
  const admission: SubresourceCreate = { def, subresource: 'binding', namespace, name, object: body, ctx, lookup: store };
  await mutateSubresourceCreate(admission);
  const node = (body as Partial<Binding>).target?.name;
  if (!node) {
    throw errors.invalid({ group: '', kind: 'Binding' }, name, [{ type: 'FieldValueRequired', field: 'target.name', detail: '' }]);
  }
  await validateSubresourceCreate(admission);
  await assignPod(store, def, namespace, name, node, ctx);
  return createdStatus();
};
