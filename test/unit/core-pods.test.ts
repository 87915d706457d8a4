/** Pod QoS classes, graceful deletion periods and field selectors; quantities and service allocation details. */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { Stored } from '../../src/registry/types.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { computePodQOS, getPodQOS } from '../../src/meta/pod-qos.js';
import { podGracePeriod, pods } from '../../src/registry/core/pods.js';
import { defaultResourceList, formatQuantity, parseQuantity, roundUpMilli } from '../../src/apimachinery/quantity.js';
import { goBase64Decode } from '../../src/openapi/go-base64.js';
import { imageTag } from '../../src/meta/image-ref.js';
import { services } from '../../src/registry/core/services.js';
import type { WriteContext } from '../../src/apimachinery/write-context.js';

const pod = (containers: any[], initContainers: any[] = []) => ({ spec: { containers, initContainers } });
const res = (requests?: object, limits?: object) => ({ name: 'c', resources: { requests, limits } });

test('QoS: BestEffort without cpu/memory requests or limits', () => {
  assert.equal(computePodQOS(pod([{ name: 'c' }])), 'BestEffort');
  assert.equal(computePodQOS(pod([res({ 'ephemeral-storage': '1Gi' })])), 'BestEffort');
  assert.equal(computePodQOS(pod([res({ cpu: '0' })])), 'BestEffort');
});

test('QoS: Guaranteed when every container limits cpu and memory and requests equal limits', () => {
  assert.equal(computePodQOS(pod([res({ cpu: '500m', memory: '128Mi' }, { cpu: '0.5', memory: '134217728' })])), 'Guaranteed');
  assert.equal(computePodQOS(pod([res(undefined, { cpu: '1', memory: '1Gi' })])), 'Burstable'); // requests not defaulted here
  assert.equal(computePodQOS(pod([res({ cpu: '1', memory: '1Gi' }, { cpu: '1', memory: '1Gi' })],
    [res({ cpu: '1', memory: '1Gi' }, { cpu: '1', memory: '1Gi' })])), 'Guaranteed');
});

test('QoS: Burstable otherwise', () => {
  assert.equal(computePodQOS(pod([res({ cpu: '100m' })])), 'Burstable');
  assert.equal(computePodQOS(pod([res({ cpu: '1', memory: '1Gi' }, { cpu: '2', memory: '1Gi' })])), 'Burstable');
  assert.equal(computePodQOS(pod([res({ cpu: '1', memory: '1Gi' }, { cpu: '1', memory: '1Gi' }), { name: 'd' }])), 'Burstable');
  assert.equal(computePodQOS(pod([res(undefined, { cpu: '1' })])), 'Burstable');
});

test('QoS: a class the client put in status is kept (GetPodQOS)', () => {
  assert.equal(getPodQOS({ ...pod([{ name: 'c' }]), status: { qosClass: 'Guaranteed' } }), 'Guaranteed');
});

test('QoS through the pod defaults: requests default to limits', () => {
  const p: Stored<Pod> = { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'x:1', resources: { limits: { cpu: '1', memory: '1Gi' } } }] } };
  pods.defaults!(p);
  pods.prepareForCreate!(p, { namespace: 'ns', now: new Date(), dryRun: false, fieldManager: 't', warn: () => {} });
  assert.deepEqual((p as any).status, { phase: 'Pending', qosClass: 'Guaranteed' });
});

test('grace period: requested, else terminationGracePeriodSeconds, 0 when unscheduled or finished, 1 for negative', () => {
  const scheduled = { spec: { nodeName: 'n1', terminationGracePeriodSeconds: 45 }, status: { phase: 'Running' } };
  assert.equal(podGracePeriod(scheduled, undefined), 45);
  assert.equal(podGracePeriod(scheduled, 5), 5);
  assert.equal(podGracePeriod(scheduled, 0), 0);
  assert.equal(podGracePeriod(scheduled, -3), 1);
  assert.equal(podGracePeriod({ spec: { nodeName: 'n1' } }, undefined), 0);
  assert.equal(podGracePeriod({ spec: { terminationGracePeriodSeconds: 45 } }, 10), 0);
  assert.equal(podGracePeriod({ ...scheduled, status: { phase: 'Succeeded' } }, 10), 0);
  assert.equal(podGracePeriod({ ...scheduled, status: { phase: 'Failed' } }, undefined), 0);
  // eslint-disable-next-line @typescript-eslint/unbound-method -- compares the function's identity, never calls it
  assert.equal(pods.gracePeriod, podGracePeriod);
  assert.equal(pods.returnDeletedObject, true);
});

test('pod field selectors', () => {
  const p: Stored<Pod> = { metadata: {}, spec: { containers: [], nodeName: 'n', hostNetwork: true }, status: { phase: 'Running', podIPs: [{ ip: '10.0.0.5' }] } };
  const f = pods.fieldSelectors!;
  assert.equal(f['spec.nodeName']?.(p), 'n');
  assert.equal(f['spec.hostNetwork']?.(p), 'true');
  assert.equal(f['spec.hostNetwork']?.({ metadata: {}, spec: { containers: [] } }), 'false');
  assert.equal(f['status.podIP']?.(p), '10.0.0.5');
  assert.equal(f['status.phase']?.(p), 'Running');
});

const canon = (s: string) => formatQuantity(roundUpMilli(parseQuantity(s)));

test('quantities: canonical forms as upstream writes them', () => {
  assert.equal(canon('500m'), '500m');
  assert.equal(canon('0.5'), '500m');
  assert.equal(canon('1000m'), '1');
  assert.equal(canon('1000'), '1k');
  assert.equal(canon('128Mi'), '128Mi');
  assert.equal(canon('1024Ki'), '1Mi');
  assert.equal(canon('1.5Gi'), '1536Mi');
  assert.equal(canon('0.5Ki'), '512');
  assert.equal(canon('1e3'), '1e3');
  assert.equal(canon('100u'), '1m');
  assert.equal(canon('1.5k'), '1500');
  assert.equal(canon('0'), '0');
  assert.equal(canon('1Ki'), '1Ki');
  assert.equal(formatQuantity(parseQuantity('100n')), '100n');
  assert.equal(formatQuantity(parseQuantity('0.0000000001')), '1n');
});

test('quantities: decode errors carry upstream messages', () => {
  assert.throws(() => parseQuantity('half'), /quantities must match the regular expression/);
  assert.throws(() => parseQuantity('1Qi'), /quantities must match the regular expression/);
  assert.throws(() => parseQuantity('1e'), /unable to parse quantity's suffix/);
  assert.throws(() => parseQuantity(''), /quantities must match/);
  const list: Record<string, unknown> = { cpu: 2, memory: '1G' };
  defaultResourceList(list);
  assert.deepEqual(list, { cpu: '2', memory: '1G' });
});

test('base64 like Go: offsets of the first bad byte, newlines ignored', () => {
  assert.equal(goBase64Decode('YWJj').toString(), 'abc');
  assert.equal(goBase64Decode('YW\nJj').toString(), 'abc');
  assert.equal(goBase64Decode('YQ==').toString(), 'a');
  assert.throws(() => goBase64Decode('s3cr3t!'), /illegal base64 data at input byte 6/);
  assert.throws(() => goBase64Decode('YWJ'), /illegal base64 data at input byte 0/);
  assert.throws(() => goBase64Decode('YQ=x'), /illegal base64 data at input byte 2/);
});

test('image tags decide the pull policy', () => {
  assert.equal(imageTag('nginx'), 'latest');
  assert.equal(imageTag('nginx:1.25'), '1.25');
  assert.equal(imageTag('localhost:5000/app'), 'latest');
  assert.equal(imageTag('repo/app@sha256:' + 'a'.repeat(64)), '');
  assert.equal(imageTag('Nginx'), '');
  assert.equal(imageTag(''), '');
});

test('services: allocation in the dynamic band, node ports shared per port number, headless without selector', async () => {
  const ctx: WriteContext = { namespace: 'ns', now: new Date(), dryRun: false, fieldManager: 't', warn: () => {} };
  const lookup = { get: async () => undefined, listAll: async () => [] };
  const np: any = { metadata: { name: 'dns', namespace: 'ns' }, spec: { type: 'NodePort',
    ports: [{ name: 'a', port: 53, protocol: 'UDP' }, { name: 'b', port: 53, protocol: 'TCP' }] } };
  services.defaults!(np);
  services.prepareForCreate!(np, ctx);
  (await services.beginCreate!(np, ctx, lookup))(false);
  const [a, b] = np.spec.ports;
  assert.equal(a.nodePort, b.nodePort);
  assert.ok(a.nodePort >= 30086 && a.nodePort <= 32767);
  const ip = np.spec.clusterIP.split('.').map(Number);
  assert.ok(ip[0] === 10 && ip[1] >= 96 && ip[1] <= 111 && !(ip[1] === 96 && ip[2] === 0));
  assert.deepEqual(np.spec.clusterIPs, [np.spec.clusterIP]);
  assert.equal(np.spec.externalTrafficPolicy, 'Cluster');

  const headless: any = { metadata: { name: 'h', namespace: 'ns' }, spec: { clusterIP: 'None', ports: [{ port: 80 }] } };
  services.defaults!(headless);
  (await services.beginCreate!(headless, ctx, lookup))(false);
  assert.equal(headless.spec.ipFamilyPolicy, 'RequireDualStack');
  assert.deepEqual(headless.spec.ipFamilies, ['IPv4', 'IPv6']);
  assert.deepEqual(headless.spec.clusterIPs, ['None']);
});

test('services: a PUT without the allocated values keeps them; a type change to ClusterIP drops node ports', () => {
  const old: any = { metadata: { name: 's' }, spec: { type: 'NodePort', clusterIP: '10.96.5.5', clusterIPs: ['10.96.5.5'],
    ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack', ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 80, nodePort: 31000 }],
    sessionAffinity: 'None', externalTrafficPolicy: 'Cluster', internalTrafficPolicy: 'Cluster' }, status: { loadBalancer: {} } };
  const ctx: WriteContext = { namespace: 'ns', now: new Date(), dryRun: false, fieldManager: 't', warn: () => {} };
  const put: any = { metadata: { name: 's' }, spec: { type: 'NodePort', ports: [{ name: 'http', port: 80 }] } };
  services.defaults!(put);
  services.prepareForUpdate!(put, old, ctx);
  assert.equal(put.spec.clusterIP, '10.96.5.5');
  assert.deepEqual(put.spec.clusterIPs, ['10.96.5.5']);
  assert.equal(put.spec.ports[0].nodePort, 31000);
  const toClusterIP: any = structuredClone(old);
  toClusterIP.spec.type = 'ClusterIP';
  services.defaults!(toClusterIP);
  services.prepareForUpdate!(toClusterIP, old, ctx);
  assert.equal(toClusterIP.spec.ports[0].nodePort, undefined);
  assert.equal(toClusterIP.spec.externalTrafficPolicy, undefined);
});
