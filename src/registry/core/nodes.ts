/** core/v1 nodes. */
import type { Node } from 'kubernetes-types/core/v1.js';
import { ALL_VERBS, type ResourceDef } from '../types.js';
import { type KObject } from '../../apimachinery/object.js';
import { decoding, isObject, normalizeMeta } from './decode.js';
import { metaValidators, nameIsDNSSubdomain } from '../../validation/object-meta.js';
import { validateNodeSpec, validateNodeUpdateSpec } from '../../validation/node.js';
import { defaultResourceList } from '../../apimachinery/quantity.js';

/** NodeSystemInfo's fields have no omitempty: Go writes every one, empty or not. */
const NODE_INFO_FIELDS = ['machineID', 'systemUUID', 'bootID', 'kernelVersion', 'osImage', 'containerRuntimeVersion',
  'kubeletVersion', 'kubeProxyVersion', 'operatingSystem', 'architecture'];

/**
 * SetObjectDefaults_Node: allocatable defaults to capacity, both rounded; the
 * NodeSpec/NodeStatus structs and their non-omitempty members written out;
 * spec.podCIDR mirrors podCIDRs[0] (the singular wins when they differ).
 */
export function defaultNode(node: Record<string, any>): void {
  normalizeMeta(node);
  if (!isObject(node.spec)) node.spec = {};
  const spec = node.spec;
  const cidrs: string[] = Array.isArray(spec.podCIDRs) ? spec.podCIDRs : [];
  if (spec.podCIDR && (cidrs.length === 0 || cidrs[0] !== spec.podCIDR)) spec.podCIDRs = [spec.podCIDR];
  if ((spec.podCIDRs ?? []).length) spec.podCIDR = spec.podCIDRs[0]; else { delete spec.podCIDRs; delete spec.podCIDR; }
  if (spec.unschedulable === false) delete spec.unschedulable;
  if (!isObject(node.status)) node.status = {};
  const st = node.status;
  if (st.allocatable == null && isObject(st.capacity)) st.allocatable = { ...st.capacity };
  defaultResourceList(st.capacity);
  defaultResourceList(st.allocatable);
  if (!isObject(st.daemonEndpoints)) st.daemonEndpoints = {};
  if (!isObject(st.daemonEndpoints.kubeletEndpoint)) st.daemonEndpoints.kubeletEndpoint = {};
  if (typeof st.daemonEndpoints.kubeletEndpoint.Port !== 'number') st.daemonEndpoints.kubeletEndpoint.Port = 0;
  if (!isObject(st.nodeInfo)) st.nodeInfo = {};
  for (const f of NODE_INFO_FIELDS) if (typeof st.nodeInfo[f] !== 'string') st.nodeInfo[f] = '';
}

/**
 * PrepareForCreate: nodes may set status on create, but not the dynamic
 * config source (config fields), nor status.features (SupplementalGroupsPolicy
 * is off in v1.32).
 */
function prepareForCreate(node: KObject): void {
  delete (node.spec as any)?.configSource;
  const st = node.status as any;
  if (isObject(st)) { delete st.config; delete st.features; }
}

function prepareForUpdate(node: KObject, old: KObject): void {
  if (old.status === undefined) delete node.status; else node.status = old.status;
  if ((old.spec as any)?.configSource == null) delete (node.spec as any)?.configSource;
}

/** TaintNodesByCondition admission: a new node starts tainted not-ready until the node lifecycle controller clears it. */
async function admitCreate(node: KObject): Promise<void> {
  const spec = (node.spec ??= {}) as Record<string, any>;
  const taints: any[] = spec.taints ?? [];
  if (taints.some((t) => t?.key === 'node.kubernetes.io/not-ready' && t?.effect === 'NoSchedule')) return;
  spec.taints = [...taints, { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }];
}

const meta = metaValidators({ namespaced: false, nameFn: nameIsDNSSubdomain });

export const nodes: ResourceDef<Node> = {
  group: '',
  version: 'v1',
  resource: 'nodes',
  singular: 'node',
  kind: 'Node',
  namespaced: false,
  shortNames: ['no'],
  verbs: ALL_VERBS,
  subresources: [
    { name: 'proxy', kind: 'NodeProxyOptions', verbs: ['create', 'delete', 'get', 'patch', 'update'] },
    { name: 'status', kind: 'Node', verbs: ['get', 'patch', 'update'] },
  ],
  storageVersionHash: 'XwShjMxG9Fs=',
  storagePrefix: '/core/nodes',
  hasGeneration: false,
  hasStatusSubresource: true,
  defaults: (obj: KObject) => decoding('Node', () => defaultNode(obj)),
  prepareForCreate,
  prepareForUpdate,
  admitCreate,
  validate: (obj) => [...meta.validate(obj), ...validateNodeSpec(obj)],
  // The strategy runs ValidateNode, then ValidateNodeUpdate; the status strategy only ValidateNodeUpdate.
  validateUpdate: (obj, old, subresource) => [
    ...(subresource === 'status' ? [] : [...meta.validate(obj), ...validateNodeSpec(obj)]),
    ...meta.validateUpdate(obj, old), ...validateNodeUpdateSpec(obj, old),
  ],
  fieldSelectors: {
    'spec.unschedulable': (n) => String(n.spec?.unschedulable === true),
  },
};
