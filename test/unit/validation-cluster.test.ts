/**
 * Validation of the remaining kinds (v1.32): Namespace, Node, RuntimeClass,
 * PriorityClass, Lease, PodDisruptionBudget, Endpoints, EndpointSlice,
 * HorizontalPodAutoscaler, PersistentVolume(Claim).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errorBody, type FieldError } from '../../src/apimachinery/field-errors.js';
import { namespaces } from '../../src/registry/core/namespaces.js';
import { nodes } from '../../src/registry/core/nodes.js';
import { endpoints } from '../../src/registry/core/endpoints.js';
import { persistentvolumes } from '../../src/registry/core/persistentvolumes.js';
import { persistentvolumeclaims } from '../../src/registry/core/persistentvolumeclaims.js';
import { runtimeclasses } from '../../src/registry/groups/node/runtimeclasses.js';
import { priorityclasses } from '../../src/registry/groups/scheduling/priorityclasses.js';
import { leases } from '../../src/registry/groups/coordination/leases.js';
import { poddisruptionbudgets } from '../../src/registry/groups/policy/poddisruptionbudgets.js';
import { endpointslices } from '../../src/registry/groups/discovery/endpointslices.js';
import { horizontalpodautoscalersV2 } from '../../src/registry/groups/autoscaling/horizontalpodautoscalers.js';

const msgs = (errs: FieldError[]) => errs.map((e) => `${e.field}: ${errorBody(e)}`);
const m = (name: string, namespace?: string) => ({ name, ...(namespace ? { namespace } : {}) });

test('namespace: spec.finalizers must be standard or qualified (no index in the path)', () => {
  assert.deepEqual(msgs(namespaces.validate!({ metadata: m('n'), spec: { finalizers: ['kubernetes', 'mine'] } } as any)),
    ['spec.finalizers: Invalid value: "mine": name is neither a standard finalizer name nor is it fully qualified']);
});

test('node: taints (under metadata, as upstream builds the path), pod CIDRs and capacity', () => {
  const node: any = {
    metadata: m('n1'),
    spec: { taints: [{ key: 'a', effect: 'NoSchedule' }, { key: 'a', effect: 'NoSchedule' }, { key: 'b', effect: 'Sometimes' }], podCIDRs: ['10.0.0.0/33'] },
    status: { capacity: { pods: '1500m' } },
  };
  assert.deepEqual(msgs(nodes.validate!(node)), [
    'metadata.taints[1]: Duplicate value: core.Taint{Key:"a", Value:"", Effect:"NoSchedule", TimeAdded:(*v1.Time)(nil)}: taints must be unique by key and effect pair',
    'metadata.taints[2].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
    'status.capacity.pods: Invalid value: 1500m: must be an integer',
    'spec.podCIDRs[0]: Invalid value: "10.0.0.0/33": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)',
  ]);
});

test('node update: pod CIDRs and providerID are set once', () => {
  const old: any = { metadata: m('n1'), spec: { podCIDRs: ['10.0.0.0/24'], providerID: 'aws://1' } };
  const next: any = { metadata: m('n1'), spec: { podCIDRs: ['10.0.1.0/24'], providerID: 'aws://2' } };
  assert.deepEqual(msgs(nodes.validateUpdate!(next, old)), [
    'spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid',
    'spec.providerID: Forbidden: node updates may not change providerID except from "" to valid',
  ]);
});

test('runtimeclass: handler a DNS label, immutable; scheduling tolerations', () => {
  const rc: any = {
    metadata: m('rc'), handler: 'Runhcs_WCOW',
    scheduling: { tolerations: [{ key: 'os', operator: 'Exists', value: 'windows' }, { key: 'a' }, { key: 'a' }] },
  };
  assert.deepEqual(msgs(runtimeclasses.validate!(rc)), [
    "handler: Invalid value: \"Runhcs_WCOW\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    "scheduling.tolerations[0].operator: Invalid value: \"windows\": value must be empty when `operator` is 'Exists'",
    'scheduling.tolerations[2]: Duplicate value: core.Toleration{Key:"a", Operator:"", Value:"", Effect:"", TolerationSeconds:(*int64)(nil)}',
  ]);
  assert.deepEqual(msgs(runtimeclasses.validateUpdate!({ metadata: m('rc'), handler: 'b' } as any, { metadata: m('rc'), handler: 'a' } as any)),
    ['handler: Invalid value: "b": field is immutable']);
});

test('priorityclass: user classes at most one billion; value and preemptionPolicy immutable', () => {
  assert.deepEqual(msgs(priorityclasses.validate!({ metadata: m('high'), value: 2000000000, preemptionPolicy: 'Always' } as any)), [
    'value: Forbidden: maximum allowed value of a user defined priority is 1000000000',
    'preemptionPolicy: Unsupported value: "Always": supported values: "PreemptLowerPriority", "Never"',
  ]);
  assert.deepEqual(msgs(priorityclasses.validateUpdate!({ metadata: m('p'), value: 2, preemptionPolicy: 'Never' } as any,
    { metadata: m('p'), value: 1, preemptionPolicy: 'PreemptLowerPriority' } as any)), [
    'value: Forbidden: may not be changed in an update.',
    'preemptionPolicy: Invalid value: "Never": field is immutable',
  ]);
});

test('lease: durations positive, transitions not negative', () => {
  assert.deepEqual(msgs(leases.validate!({ metadata: m('l', 'ns'), spec: { leaseDurationSeconds: 0, leaseTransitions: -1 } } as any)), [
    'spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0',
    'spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0',
  ]);
});

test('poddisruptionbudget: int or percent, at most 100%, eviction policy', () => {
  assert.deepEqual(msgs(poddisruptionbudgets.validate!({
    metadata: m('p', 'ns'), spec: { maxUnavailable: '150%', unhealthyPodEvictionPolicy: 'Never' },
  } as any)), [
    'spec.maxUnavailable: Invalid value: 150%: must not be greater than 100%',
    'spec.unhealthyPodEvictionPolicy: Unsupported value: "Never": supported values: "AlwaysAllow", "IfHealthyBudget"',
  ]);
});

test('endpoints: addresses, special IPs and ports', () => {
  assert.deepEqual(msgs(endpoints.validate!({
    metadata: m('e', 'ns'), subsets: [{ addresses: [{ ip: '169.254.1.1' }], ports: [{ port: 80, protocol: 'TCP' }, { port: 0, protocol: 'TCP' }] }, {}],
  } as any)), [
    'subsets[0].addresses[0].ip: Invalid value: "169.254.1.1": may not be in the link-local range (169.254.0.0/16, fe80::/10)',
    'subsets[0].ports[0].name: Required value',
    'subsets[0].ports[1].name: Required value',
    'subsets[0].ports[1].port: Invalid value: 0: must be between 1 and 65535, inclusive',
    'subsets[1]: Required value: must specify `addresses` or `notReadyAddresses`',
  ]);
});

test('endpointslice: address type, addresses by type, immutable address type', () => {
  const eps: any = { metadata: m('s', 'ns'), addressType: 'IPv4', endpoints: [{ addresses: ['fd00::1'] }], ports: [{ name: '', protocol: 'TCP' }] };
  assert.deepEqual(msgs(endpointslices.validate!(eps)), ['endpoints[0].addresses[0]: Invalid value: "fd00::1": must be a valid IPv4 address']);
  assert.deepEqual(msgs(endpointslices.validate!({ ...eps, addressType: 'IP' })),
    ['addressType: Unsupported value: "IP": supported values: "FQDN", "IPv4", "IPv6"']);
});

test('horizontalpodautoscaler: replicas bounds, target reference and metric targets', () => {
  const hpa: any = {
    metadata: m('h', 'ns'),
    spec: {
      scaleTargetRef: { kind: 'Deployment', name: '' }, minReplicas: 0, maxReplicas: 0,
      metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 0 } } }],
    },
  };
  assert.deepEqual(msgs(horizontalpodautoscalersV2.validate!(hpa)), [
    'spec.minReplicas: Invalid value: 0: must be greater than or equal to 1',
    'spec.maxReplicas: Invalid value: 0: must be greater than 0',
    'spec.scaleTargetRef.name: Required value',
    'spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0',
    'spec.metrics: Forbidden: must specify at least one Object or External metric to support scaling to zero replicas',
  ]);
});

test('persistentvolume: access modes, capacity, one volume source', () => {
  assert.deepEqual(msgs(persistentvolumes.validate!({ metadata: m('pv'), spec: { capacity: { storage: '1Gi' } } } as any)), [
    'spec.accessModes: Required value',
    'spec: Required value: must specify a volume type',
  ]);
  assert.deepEqual(msgs(persistentvolumes.validate!({
    metadata: m('pv'), spec: { accessModes: ['ReadWriteOncePod', 'ReadWriteOnce'], capacity: { storage: '1Gi' }, local: { path: '/mnt/disk' } },
  } as any)), [
    'spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes',
    'spec.nodeAffinity: Required value: Local volume requires node affinity',
  ]);
});

test('persistentvolumeclaim: access modes and storage request; spec immutable, storage may grow', () => {
  assert.deepEqual(msgs(persistentvolumeclaims.validate!({ metadata: m('c', 'ns'), spec: { resources: {} } } as any)), [
    'spec.accessModes: Required value: at least 1 access mode is required',
    'spec.resources[storage]: Required value',
  ]);
  const old: any = { metadata: m('c', 'ns'), spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '2Gi' } } } };
  const smaller = structuredClone(old);
  smaller.spec.resources.requests.storage = '1Gi';
  const errs = msgs(persistentvolumeclaims.validateUpdate!(smaller, old));
  assert.equal(errs.length, 2);
  assert.match(errs[0] ?? '', /^spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n {2}core.PersistentVolumeClaimSpec\{/);
  assert.equal(errs[1], 'spec.resources.requests.storage: Forbidden: field can not be less than previous value');
});
