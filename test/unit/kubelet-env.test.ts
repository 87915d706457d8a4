import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../src/apimachinery/object.js';
import { containerEnv, ContainerConfigError, expand, serviceEnvVars, type EnvSources, type PodNetworkInfo } from '../../src/node/runtime/env.js';
import { containerFS, VolumeNotReadyError, VolumeSetUpError } from '../../src/node/runtime/volumes.js';

const obj = (o: Record<string, unknown>) => o as unknown as KObject;
const svc = (ns: string, name: string, ip: string, ports: unknown[]) => obj({ metadata: { namespace: ns, name }, spec: { clusterIP: ip, ports } });
const sources = (extra: Partial<EnvSources> = {}): EnvSources => ({
  configMap: (ns, name) => (ns === 'default' && name === 'cfg' ? obj({ metadata: { name }, data: { a: '1', b: 'two' } }) : undefined),
  secret: (ns, name) => (name === 'sec' ? obj({ metadata: { name }, data: { token: Buffer.from('s3cr3t').toString('base64') } }) : undefined),
  services: () => [svc('default', 'kubernetes', '10.96.0.1', [{ name: 'https', port: 443, protocol: 'TCP' }]), svc('default', 'my-db', '10.96.0.20', [{ port: 5432 }]),
    svc('other', 'elsewhere', '10.96.0.30', [{ port: 80 }]), svc('default', 'headless', 'None', [{ port: 80 }])],
  ...extra,
});
const net: PodNetworkInfo = { nodeName: 'linux-1', hostIPs: ['172.18.0.3'], podIPs: ['10.244.1.7'], allocatable: { cpu: '4', memory: '16Gi' }, os: 'linux' };
const pod = (container: Record<string, unknown>, spec: Record<string, unknown> = {}) => obj({
  metadata: { name: 'p', namespace: 'default', uid: 'u-1', labels: { app: 'x', tier: 'web' } },
  spec: { nodeName: 'linux-1', serviceAccountName: 'default', containers: [container], ...spec },
});

const envOf = (p: KObject) => containerEnv(p, (p.spec as any).containers[0], net, sources());

test('service link variables as envvars.FromServices writes them', () => {
  assert.deepEqual(serviceEnvVars([svc('default', 'my-db', '10.96.0.20', [{ name: 'pg', port: 5432, protocol: 'TCP' }, { name: 'metrics', port: 9187, protocol: 'UDP' }])]), [
    ['MY_DB_SERVICE_HOST', '10.96.0.20'], ['MY_DB_SERVICE_PORT', '5432'], ['MY_DB_SERVICE_PORT_PG', '5432'], ['MY_DB_SERVICE_PORT_METRICS', '9187'],
    ['MY_DB_PORT', 'tcp://10.96.0.20:5432'],
    ['MY_DB_PORT_5432_TCP', 'tcp://10.96.0.20:5432'], ['MY_DB_PORT_5432_TCP_PROTO', 'tcp'], ['MY_DB_PORT_5432_TCP_PORT', '5432'], ['MY_DB_PORT_5432_TCP_ADDR', '10.96.0.20'],
    ['MY_DB_PORT_9187_UDP', 'udp://10.96.0.20:9187'], ['MY_DB_PORT_9187_UDP_PROTO', 'udp'], ['MY_DB_PORT_9187_UDP_PORT', '9187'], ['MY_DB_PORT_9187_UDP_ADDR', '10.96.0.20'],
  ]);
});

test('$(VAR) expansion as third_party/forked/golang/expansion', () => {
  const m = (n: string) => ({ A: 'x', B: 'y' } as Record<string, string>)[n];
  assert.equal(expand('$(A)-$(B)-$(C)-$$(A)-$A', m), 'x-y-$(C)-$(A)-$A');
});

test('makeEnvironmentVariables: envFrom with prefix, env with refs and expansion, then service variables', () => {
  const env = new Map(envOf(pod({
    name: 'c', image: 'x',
    envFrom: [{ prefix: 'CFG_', configMapRef: { name: 'cfg' } }],
    env: [
      { name: 'A', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'b' } } },
      { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'sec', key: 'token' } } },
      { name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
      { name: 'IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
      { name: 'HOST', valueFrom: { fieldRef: { fieldPath: 'status.hostIP' } } },
      { name: 'LABELS', valueFrom: { fieldRef: { fieldPath: 'metadata.labels' } } },
      { name: 'TIER', valueFrom: { fieldRef: { fieldPath: "metadata.labels['tier']" } } },
      { name: 'MEM', valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor: '1Mi' } } },
      { name: 'URL', value: 'http://$(MY_DB_SERVICE_HOST):$(MY_DB_SERVICE_PORT)/$(A)' },
    ],
  })));
  assert.equal(env.get('CFG_a'), '1');
  assert.equal(env.get('A'), 'two');
  assert.equal(env.get('TOKEN'), 's3cr3t');
  assert.deepEqual([env.get('NODE'), env.get('IP'), env.get('HOST')], ['linux-1', '10.244.1.7', '172.18.0.3']);
  assert.equal(env.get('LABELS'), 'app="x"\ntier="web"');
  assert.equal(env.get('TIER'), 'web');
  assert.equal(env.get('MEM'), '16384');
  assert.equal(env.get('URL'), 'http://10.96.0.20:5432/two');
  assert.equal(env.get('KUBERNETES_SERVICE_HOST'), '10.96.0.1');
  assert.equal(env.get('KUBERNETES_PORT_443_TCP'), 'tcp://10.96.0.1:443');
  assert.equal(env.has('ELSEWHERE_SERVICE_HOST'), false);
  assert.equal(env.has('HEADLESS_SERVICE_HOST'), false);
  // enableServiceLinks: false keeps only the kubernetes service's variables.
  const off = new Map(envOf(pod({ name: 'c', image: 'x' }, { enableServiceLinks: false })));
  assert.equal(off.has('MY_DB_SERVICE_HOST'), false);
  assert.equal(off.get('KUBERNETES_SERVICE_PORT'), '443');
});

test('missing sources: the errors upstream gives (configmap/secret managers name the resource in the singular)', () => {
  const fail = (env: unknown[]) => { try { envOf(pod({ name: 'c', image: 'x', env })); return ''; } catch (e) { assert.ok(e instanceof ContainerConfigError); return (e as Error).message; } };
  assert.equal(fail([{ name: 'X', valueFrom: { configMapKeyRef: { name: 'nope', key: 'k' } } }]), 'configmap "nope" not found');
  assert.equal(fail([{ name: 'X', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'k' } } }]), "couldn't find key k in ConfigMap default/cfg");
  assert.equal(fail([{ name: 'X', valueFrom: { secretKeyRef: { name: 'nope', key: 'k' } } }]), 'secret "nope" not found');
  assert.equal(fail([{ name: 'X', valueFrom: { configMapKeyRef: { name: 'nope', key: 'k', optional: true } } }]), '');
});

test('volumes: configMap/secret/downwardAPI files at the mount path; a missing source is a SetUp error', () => {
  const p = pod({ name: 'c', image: 'x', volumeMounts: [{ name: 'cfg', mountPath: '/etc/cfg' }, { name: 'sec', mountPath: '/etc/sec' }, { name: 'info', mountPath: '/etc/info' }] }, {
    volumes: [{ name: 'cfg', configMap: { name: 'cfg', items: [{ key: 'b', path: 'sub/b.txt' }] } }, { name: 'sec', secret: { secretName: 'sec' } },
      { name: 'info', downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] } }],
  });
  const fs = containerFS(p, (p.spec as any).containers[0], 'linux', { sources: sources(), net });
  assert.equal(fs.read('/etc/cfg/sub/b.txt'), 'two');
  assert.equal(fs.read('/etc/sec/token'), 's3cr3t');
  assert.equal(fs.read('/etc/info/labels'), 'app="x"\ntier="web"');
  assert.equal(fs.write('/etc/cfg/new', 'x'), 'read-only');
  const win = containerFS(p, (p.spec as any).containers[0], 'windows', { sources: sources(), net });
  assert.equal(win.read('C:\\etc\\cfg\\sub\\b.txt'), 'two');
  const missing = pod({ name: 'c', image: 'x', volumeMounts: [{ name: 'v', mountPath: '/x' }] }, { volumes: [{ name: 'v', secret: { secretName: 'gone' } }] });
  assert.throws(() => containerFS(missing, (missing.spec as any).containers[0], 'linux', { sources: sources(), net }),
    (e: unknown) => e instanceof VolumeSetUpError && e.eventMessage === 'MountVolume.SetUp failed for volume "v" : secret "gone" not found');
});

test('volumes: an item key the ConfigMap lacks is a SetUp error, whatever its name (configmap.MakePayload looks keys up in the data map)', () => {
  for (const key of ['nope', 'toString', 'constructor']) {
    const p = pod({ name: 'c', image: 'x', volumeMounts: [{ name: 'cfg', mountPath: '/etc/cfg' }] },
      { volumes: [{ name: 'cfg', configMap: { name: 'cfg', items: [{ key, path: 'f' }] } }] });
    assert.throws(() => containerFS(p, (p.spec as any).containers[0], 'linux', { sources: sources(), net }),
      (e: unknown) => e instanceof VolumeSetUpError && e.eventMessage === `MountVolume.SetUp failed for volume "cfg" : configmap references non-existent config key: ${key}`, key);
  }
});

test('persistentVolumeClaim volumes: a missing or unbound claim is waited for (no FailedMount); a bound claim mounts a writable directory', () => {
  const claims: Record<string, any> = {
    pending: { metadata: { name: 'pending' }, spec: {}, status: { phase: 'Pending' } },
    bound: { metadata: { name: 'bound' }, spec: { volumeName: 'pvc-1' }, status: { phase: 'Bound' } },
  };
  const src = sources({ pvc: (_ns, name) => claims[name], pv: (name) => (name === 'pvc-1' ? obj({ metadata: { name } }) : undefined) });
  const withClaim = (claimName: string, mountPath = '/data') =>
    pod({ name: 'c', image: 'x', volumeMounts: [{ name: 'd', mountPath }] }, { volumes: [{ name: 'd', persistentVolumeClaim: { claimName } }] });
  const fsOf = (p: KObject, os: 'linux' | 'windows' = 'linux') => containerFS(p, (p.spec as any).containers[0], os, { sources: src, net });
  assert.throws(() => fsOf(withClaim('pending')), (e: unknown) => e instanceof VolumeNotReadyError &&
    e.message === 'error processing PVC default/pending: PVC default/pending has non-bound phase ("Pending") or empty pvc.Spec.VolumeName ("")');
  assert.throws(() => fsOf(withClaim('absent')), (e: unknown) => e instanceof VolumeNotReadyError &&
    e.message === 'error processing PVC default/absent: failed to fetch PVC from API server: persistentvolumeclaims "absent" not found');
  const fs = fsOf(withClaim('bound'));
  assert.equal(fs.write('/data/hello.txt', 'hi'), 'ok');
  assert.equal(fs.read('/data/hello.txt'), 'hi');
  const win = fsOf(withClaim('bound', 'C:\\data'), 'windows');
  assert.equal(win.write('C:\\data\\hello.txt', 'hi'), 'ok');
});
