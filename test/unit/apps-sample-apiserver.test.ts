/**
 * The sample-apiserver image's rules (k8s.io/sample-apiserver v0.17: wardle.example.com's
 * discovery, defaulting, conversion, validation, BanFlunder, Status errors, the default Table)
 * and its etcd sidecar's key space and JSON gateway.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  apiGroupList, apiResourceList, bannedBy, discoveryStorageVersionHash, convertObject, defaultV1alpha1, internalSpec, invalid, notFound, ordered, storageVersionHash,
  table, validateFlunder, validateName, wantsTable,
} from '../../src/node/apps/wardle/wardle-api.js';
import { EtcdKeySpace, etcdClientPort, serveEtcd } from '../../src/node/apps/wardle/etcd-member.js';
import { requestHeaderConfig, sampleAPIServer, sampleAPIServerFlags } from '../../src/node/apps/wardle/sample-apiserver.js';
import { applicationFor } from '../../src/node/apps/registry.js';
import { ContainerFS } from '../../src/node/shell/fs.js';
import { Pending } from '../../src/node/shell/pending.js';
import { createCA, issue } from '../../src/pki/issue.js';

test('discovery: v1beta1 is preferred; v1alpha1 serves fischers and flunders', () => {
  assert.deepEqual(apiGroupList(), {
    kind: 'APIGroupList', apiVersion: 'v1', groups: [{
      name: 'wardle.example.com',
      versions: [{ groupVersion: 'wardle.example.com/v1beta1', version: 'v1beta1' }, { groupVersion: 'wardle.example.com/v1alpha1', version: 'v1alpha1' }],
      preferredVersion: { groupVersion: 'wardle.example.com/v1beta1', version: 'v1beta1' },
    }],
  });
  const v1alpha1 = apiResourceList('v1alpha1') as { resources: { name: string; namespaced: boolean; kind: string }[] };
  assert.deepEqual(v1alpha1.resources.map((r) => [r.name, r.namespaced, r.kind]), [['fischers', false, 'Fischer'], ['flunders', true, 'Flunder']]);
  assert.deepEqual((apiResourceList('v1beta1') as { resources: { name: string }[] }).resources.map((r) => r.name), ['flunders']);
  assert.equal(apiResourceList('v2'), undefined);
  // The algorithm gives upstream's published hashes of pods and deployments; a Flunder's is of its storage version.
  assert.equal(discoveryStorageVersionHash('', 'v1', 'Pod'), 'xPOwRZ+Yhw8=');
  assert.equal(discoveryStorageVersionHash('apps', 'v1', 'Deployment'), '8aSe+NMegvE=');
  assert.equal(storageVersionHash('Flunder'), discoveryStorageVersionHash('wardle.example.com', 'v1alpha1', 'Flunder'));
  assert.equal(storageVersionHash('Flunder'), 'UHqNx5H3K7A=');
});

test('v1alpha1 defaults a reference to a Flunder; conversion maps it to v1beta1 fields', () => {
  const f: Record<string, unknown> = { kind: 'Flunder', spec: { reference: 'a' } };
  defaultV1alpha1(f);
  assert.deepEqual(f.spec, { reference: 'a', referenceType: 'Flunder' });
  assert.deepEqual(convertObject({ kind: 'Flunder', apiVersion: 'wardle.example.com/v1alpha1', spec: { reference: 'b', referenceType: 'Fischer' } }, 'v1alpha1', 'v1beta1'),
    { kind: 'Flunder', apiVersion: 'wardle.example.com/v1beta1', spec: { fischerReference: 'b', referenceType: 'Fischer' } });
  // An unknown v1alpha1 type converts to none at all (the conversion's switch has no default).
  assert.deepEqual(internalSpec('v1alpha1', { reference: 'x', referenceType: 'Foo' }), { referenceType: '', flunderReference: '', fischerReference: '' });
});

test('validation words the field errors as ValidateFlunderSpec does', () => {
  assert.deepEqual(validateFlunder({ flunderReference: 'a', fischerReference: 'b', referenceType: 'Flunder' }),
    ['spec.fischerReference: Invalid value: "b": cannot be set with flunderReference at the same time']);
  assert.deepEqual(validateFlunder({ flunderReference: '', fischerReference: '', referenceType: 'Fischer' }),
    ['spec.fischerReference: Invalid value: "": cannot be empty if referenceType is Fischer']);
  assert.deepEqual(validateFlunder({ flunderReference: '', fischerReference: '', referenceType: 'Foo' }),
    ['spec.referenceType: Invalid value: "Foo": must be Flunder or Fischer']);
  assert.deepEqual(validateFlunder({ flunderReference: '', fischerReference: '', referenceType: '' }), []);
  assert.deepEqual(validateName('', ''), ['metadata.name: Required value: name or generateName is required']);
  assert.deepEqual(validateName('a/b', ''), ["metadata.name: Invalid value: \"a/b\": may not contain '/'"]);
  assert.deepEqual(invalid('Flunder', 'x', ['spec.referenceType: Invalid value: "Foo": must be Flunder or Fischer']), {
    code: 422, reason: 'Invalid', message: 'Flunder.wardle.example.com "x" is invalid: spec.referenceType: Invalid value: "Foo": must be Flunder or Fischer',
    details: { name: 'x', group: 'wardle.example.com', kind: 'Flunder', causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: "Foo": must be Flunder or Fischer', field: 'spec.referenceType' }] },
  });
  assert.equal(notFound('flunders', 'a').message, 'flunders.wardle.example.com "a" not found');
});

test('BanFlunder forbids the names a Fischer disallows', () => {
  const fischers = [{ disallowedFlunders: ['x', 'y'] }, {}];
  assert.equal(bannedBy(fischers, 'y'), true);
  assert.equal(bannedBy(fischers, 'z'), false);
});

test('objects are written in their Go types\' field order; the Table has Name and Created At', () => {
  const o = ordered({ spec: {}, metadata: { uid: 'u', name: 'n', namespace: 'd' }, apiVersion: 'wardle.example.com/v1alpha1', kind: 'Flunder' });
  assert.equal(JSON.stringify(o), '{"kind":"Flunder","apiVersion":"wardle.example.com/v1alpha1","metadata":{"name":"n","namespace":"d","uid":"u"},"spec":{},"status":{}}');
  const t = table([o], { resourceVersion: '5' }) as { columnDefinitions: { name: string }[]; rows: { cells: unknown[] }[] };
  assert.deepEqual(t.columnDefinitions.map((c) => c.name), ['Name', 'Created At']);
  assert.deepEqual(t.rows[0]!.cells, ['n', null]);
  assert.equal(wantsTable('application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json'), true);
  assert.equal(wantsTable('application/json'), false);
});

test('etcd: puts take revisions, ranges by prefix, transactions guard on mod revision', () => {
  const s = new EtcdKeySpace();
  const b = (x: string) => Buffer.from(x).toString('base64');
  assert.deepEqual(s.txn({ compare: [{ key: b('/r/a'), target: 'MOD', result: 'EQUAL', mod_revision: '0' }], success: [{ request_put: { key: b('/r/a'), value: b('1') } }] }),
    { header: { cluster_id: '14841639068965178418', member_id: '10276657743932975437', revision: '2', raft_term: '2' }, succeeded: true, responses: [{ response_put: { header: { cluster_id: '14841639068965178418', member_id: '10276657743932975437', revision: '2', raft_term: '2' } } }] });
  // The same guard fails now that the key exists.
  assert.equal(s.txn({ compare: [{ key: b('/r/a'), target: 'MOD', result: 'EQUAL', mod_revision: '0' }], success: [{ request_put: { key: b('/r/a'), value: b('2') } }] }).succeeded, undefined);
  s.put({ key: b('/r/b'), value: b('3') });
  s.put({ key: b('/s/c'), value: b('4') });
  const r = s.range({ key: b('/r/'), range_end: b('/r0') }) as { kvs: { key: string; mod_revision: string; value: string }[]; count: string };
  assert.deepEqual(r.kvs.map((kv) => [Buffer.from(kv.key, 'base64').toString(), kv.mod_revision, Buffer.from(kv.value, 'base64').toString()]), [['/r/a', '2', '1'], ['/r/b', '3', '3']]);
  assert.equal(r.count, '2');
  assert.deepEqual(s.deleteRange({ key: b('/r/a') }), { header: { cluster_id: '14841639068965178418', member_id: '10276657743932975437', revision: '5', raft_term: '2' }, deleted: '1' });
  assert.deepEqual(s.range({ key: b('/r/a') }), { header: { cluster_id: '14841639068965178418', member_id: '10276657743932975437', revision: '5', raft_term: '2' } });
});

test('etcd gateway: JSON over HTTP/1.1, 404 for what it does not serve', () => {
  const s = new EtcdKeySpace();
  const now = new Date('2026-11-29T07:00:00Z');
  const health = serveEtcd(s, { method: 'GET', target: '/health', headers: [], body: new Uint8Array() }, now);
  assert.equal(Buffer.from(health.body).toString(), '{"health":"true","reason":""}');
  assert.equal(serveEtcd(s, { method: 'POST', target: '/v3/watch', headers: [], body: new Uint8Array() }, now).status, 404);
  assert.equal(etcdClientPort(['--listen-client-urls', 'http://127.0.0.1:2379', '--advertise-client-urls', 'http://127.0.0.1:2379']), 2379);
  assert.equal(etcdClientPort(['--listen-client-urls=http://127.0.0.1:12379']), 12379);
});

test('the images run as the e2e tests start them', () => {
  assert.deepEqual(sampleAPIServerFlags(['--etcd-servers=http://127.0.0.1:2379', '--tls-cert-file=/c/tls.crt', '--tls-private-key-file=/c/tls.key', '--audit-log-path=-']),
    { etcdServers: 'http://127.0.0.1:2379', certFile: '/c/tls.crt', keyFile: '/c/tls.key', securePort: 443 });
  assert.ok(applicationFor({ image: 'k8s.gcr.io/e2e-test-images/sample-apiserver:1.17.5', command: [], args: ['--etcd-servers=http://127.0.0.1:2379'] }));
  assert.ok(applicationFor({ image: 'k8s.gcr.io/etcd:3.5.1-0', command: ['/usr/local/bin/etcd', '--listen-client-urls', 'http://127.0.0.1:2379'], args: [] }));
  assert.equal(applicationFor({ image: 'k8s.gcr.io/etcd:3.5.1-0', command: ['sh', '-c', 'sleep 1'], args: [] }), undefined);
});

test('the front-proxy headers are the ones extension-apiserver-authentication names, and only with its client CA', () => {
  const data = {
    'requestheader-client-ca-file': '-----BEGIN CERTIFICATE-----', 'requestheader-username-headers': '["X-Remote-User"]',
    'requestheader-group-headers': '["X-Remote-Group"]', 'requestheader-extra-headers-prefix': '["X-Remote-Extra-"]',
  };
  assert.deepEqual(requestHeaderConfig(data), { usernameHeaders: ['x-remote-user'], groupHeaders: ['x-remote-group'], extraHeaderPrefixes: ['x-remote-extra-'] });
  assert.equal(requestHeaderConfig({ ...data, 'requestheader-client-ca-file': '' }), undefined);
  assert.equal(requestHeaderConfig(undefined), undefined);
});

test('without the auth-reader binding the server cannot read its ConfigMap and exits as klog.Fatal does', async () => {
  const fs = new ContainerFS('linux');
  const cert = await issue(await createCA(), 'CN=sample-api.ns.svc', 'server', { dns: ['sample-api.ns.svc'], ip: [] });
  fs.mountFile('/var/run/secrets/kubernetes.io/serviceaccount/token', 'tok');
  fs.mountFile('/certs/tls.crt', cert.cert);
  fs.mountFile('/certs/tls.key', cert.key);
  const message = 'configmaps "extension-apiserver-authentication" is forbidden: User "system:serviceaccount:ns:default" cannot get resource "configmaps" in API group "" in the namespace "kube-system"';
  const asked: string[] = [];
  const net = {
    podIP: '10.244.1.5', resolve: () => undefined, lookup: () => undefined, ping: () => ({ kind: 'timeout' as const }), listen: () => undefined,
    connect: () => ({
      kind: 'connected' as const, local: { ip: '10.244.1.5', port: 40000 }, remote: { ip: '10.96.0.1', port: 443 },
      exchange: (req: { target: string; headers: [string, string][] }) => {
        asked.push(`${req.target} ${req.headers.find(([k]) => k === 'Authorization')?.[1]}`);
        return Pending.of({ status: 403, reason: 'Forbidden', headers: [], body: new Uint8Array(Buffer.from(JSON.stringify({ kind: 'Status', message }))) });
      },
    }),
  };
  const p = sampleAPIServer({ now: () => new Date('2026-11-29T07:00:00.250Z'), hostname: 'h', cpus: 1, env: { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' }, fs, net },
    ['--etcd-servers=http://127.0.0.1:2379', '--tls-cert-file=/certs/tls.crt', '--tls-private-key-file=/certs/tls.key']);
  const out: string[] = [];
  for (let r = p.next(); !r.done; r = p.next()) {
    const s = r.value;
    if (s.kind === 'wait') { await new Promise<void>((resolve) => s.on.onSettle(resolve)); continue; }
    if (s.kind === 'stderr' || s.kind === 'stdout') out.push(s.text);
    if (s.kind === 'exit') { out.push(`exit ${s.code}`); break; }
  }
  assert.deepEqual(asked, ['/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication Bearer tok']);
  assert.deepEqual(out, [
    "W1129 07:00:00.250000       1 authentication.go:348] Unable to get configmap/extension-apiserver-authentication in kube-system.  Usually fixed by 'kubectl create rolebinding -n kube-system ROLEBINDING_NAME --role=extension-apiserver-authentication-reader --serviceaccount=YOUR_NS:YOUR_SA'\n",
    `Error: unable to load configmap based request-header-client-ca-file: ${message}\n`,
    `F1129 07:00:00.250000       1 main.go:39] unable to load configmap based request-header-client-ca-file: ${message}\n`,
    'exit 255',
  ]);
});
