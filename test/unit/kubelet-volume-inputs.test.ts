/** The change detection of the kubelet's volume resync: which volumes' inputs moved, and when a token is due. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Volume } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../../src/apimachinery/object.js';
import { tokenRefreshDue, volumeInputsKey, volumesToRewrite, volumeTokenExpiration, type VolumeInputContext } from '../../src/node/kubelet/volume-inputs.js';

const cm = (name: string, rv: string) => ({ metadata: { name, namespace: 'default', uid: `uid-${name}`, resourceVersion: rv } }) as KObject;
function ctx(objects: Record<string, KObject>, podIPs = ['10.244.1.5']): VolumeInputContext {
  return {
    sources: { configMap: (_ns, n) => objects[`cm/${n}`], secret: (_ns, n) => objects[`secret/${n}`], services: () => [] },
    net: { nodeName: 'linux-1', hostIPs: ['172.18.0.2'], podIPs, allocatable: { cpu: '4', memory: '16Gi' }, os: 'linux' },
  };
}
const pod = (labels: Record<string, string>, limits?: Record<string, string>) => ({
  metadata: { name: 'p', namespace: 'default', uid: 'u', labels },
  spec: { containers: [{ name: 'app', ...(limits ? { resources: { limits } } : {}) }] },
}) as unknown as KObject;

test('configMap and secret volumes: the key follows the source\'s resourceVersion and its presence', () => {
  const v: Volume = { name: 'config', configMap: { name: 'app' } };
  const a = volumeInputsKey(pod({}), v, ctx({ 'cm/app': cm('app', '10') }));
  assert.equal(a, volumeInputsKey(pod({}), v, ctx({ 'cm/app': cm('app', '10') })));
  assert.notEqual(a, volumeInputsKey(pod({}), v, ctx({ 'cm/app': cm('app', '11') })));
  assert.notEqual(a, volumeInputsKey(pod({}), v, ctx({})));
  const s: Volume = { name: 'sec', secret: { secretName: 'pw' } };
  assert.notEqual(volumeInputsKey(pod({}), s, ctx({ 'secret/pw': cm('pw', '1') })), volumeInputsKey(pod({}), s, ctx({ 'secret/pw': cm('pw', '2') })));
  assert.equal(volumeInputsKey(pod({}), { name: 'scratch', emptyDir: {} }, ctx({})), undefined);
});

test('downward API: the key follows the pod fields and node values the items read, nothing else', () => {
  const v: Volume = { name: 'podinfo', downwardAPI: { items: [
    { path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } },
    { path: 'cpu', resourceFieldRef: { containerName: 'app', resource: 'limits.cpu', divisor: '1m' } },
  ] } };
  const base = volumeInputsKey(pod({ a: '1' }), v, ctx({}));
  assert.equal(base, volumeInputsKey(pod({ a: '1' }), v, ctx({ 'cm/x': cm('x', '9') }, ['10.244.1.9'])), 'a pod IP the items do not read');
  assert.notEqual(base, volumeInputsKey(pod({ a: '2' }), v, ctx({})), 'a label changed');
  assert.notEqual(volumeInputsKey(pod({ a: '1' }, { cpu: '500m' }), v, ctx({})), volumeInputsKey(pod({ a: '1' }, { cpu: '1' }), v, ctx({})), 'a limit changed');
});

test('projected volumes: every source counts; a token is refreshed at 80 % of its lifetime, at most after 24 h', () => {
  const v: Volume = { name: 'kube-api-access', projected: { sources: [
    { serviceAccountToken: { path: 'token', expirationSeconds: 3607 } },
    { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
    { downwardAPI: { items: [{ path: 'namespace', fieldRef: { fieldPath: 'metadata.namespace' } }] } },
  ] } };
  const k1 = volumeInputsKey(pod({}), v, ctx({ 'cm/kube-root-ca.crt': cm('kube-root-ca.crt', '1') }))!;
  assert.notEqual(k1, volumeInputsKey(pod({}), v, ctx({ 'cm/kube-root-ca.crt': cm('kube-root-ca.crt', '2') })));
  assert.equal(volumeTokenExpiration(v), 3607);
  assert.equal(volumeTokenExpiration({ name: 'x', configMap: { name: 'a' } }), undefined);
  assert.equal(tokenRefreshDue(0, 3607, 2_885_000), false);
  assert.equal(tokenRefreshDue(0, 3607, 2_885_600), true);
  assert.equal(tokenRefreshDue(0, 7 * 24 * 3600, 24 * 3600 * 1000), true);
  const written = new Map([['kube-api-access', { key: k1, atMs: 0 }], ['config', { key: 'cm:a@1', atMs: 0 }]]);
  const current = new Map([['kube-api-access', k1], ['config', 'cm:a@1']]);
  const ttl = new Map([['kube-api-access', 3607]]);
  assert.deepEqual([...volumesToRewrite(written, current, ttl, 60_000)], []);
  assert.deepEqual([...volumesToRewrite(written, new Map([...current, ['config', 'cm:a@2']]), ttl, 60_000)], ['config']);
  assert.deepEqual([...volumesToRewrite(written, current, ttl, 2_885_600)], ['kube-api-access']);
  assert.deepEqual([...volumesToRewrite(new Map(), current, ttl, 0)], ['kube-api-access', 'config']);
});
