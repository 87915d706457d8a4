/**
 * kube-aggregator's remote availability controller: each check's condition with upstream's reason
 * and message, the discovery GET as system:kube-aggregator with the front-proxy certificate, and
 * status writes only on change, the transition time only when the status turns.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { loopback } from '../helpers/loopback.js';
import { SqliteStorage } from '../../src/storage/sqlite.js';
import { Store } from '../../src/registry/store.js';
import { allResources } from '../../src/registry/resources.js';
import { inProcessWriteContext } from '../../src/apimachinery/write-context.js';
import { newControllerContext } from '../../src/controllers/runtime/controller-context.js';
import { APIServiceAvailabilityController } from '../../src/controllers/apiservice-availability.js';
import { APISERVER_LOOPBACK } from '../../src/client/identities.js';
import type { APIService, APIServiceCondition } from '../../src/apimachinery/apiservice.js';
import type { KObject } from '../../src/apimachinery/object.js';
import { createCA, issue } from '../../src/pki/issue.js';

let backend: https.Server;
let backendPort = 0;
/** Endpoints may not name loopback (ValidateNonSpecialIP): the backend listens on this machine's first non-loopback IPv4 address. */
let hostIP = '';
let status = 200;
const seen: { path: string; user: string; groups: string[]; cn: string }[] = [];

before(async () => {
  const frontProxyCA = await createCA('CN=front-proxy-ca');
  const ca = await createCA('CN=wardle-ca');
  const serving = await issue(ca, 'CN=api', 'server', { dns: ['api.wardle.svc'], ip: [] });
  hostIP = Object.values(os.networkInterfaces()).flat().find((i) => i && i.family === 'IPv4' && !i.internal)?.address ?? '';
  assert.ok(hostIP, 'this test needs a non-loopback IPv4 address');
  backend = https.createServer({ cert: serving.cert, key: serving.key, ca: frontProxyCA.cert, requestCert: true, rejectUnauthorized: true }, (req, res) => {
    const groups: string[] = [];
    for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i]!.toLowerCase() === 'x-remote-group') groups.push(req.rawHeaders[i + 1]!);
    seen.push({ path: req.url ?? '', user: String(req.headers['x-remote-user']), groups, cn: String((req.socket as TLSSocket).getPeerCertificate().subject?.CN) });
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end('{}');
  });
  await new Promise<void>((r) => backend.listen(0, '0.0.0.0', r));
  backendPort = (backend.address() as AddressInfo).port;
  proxyClient = await issue(frontProxyCA, 'CN=front-proxy-client', 'client', { dns: [], ip: [] });
});
let proxyClient: { cert: string; key: string };

after(async () => {
  backend.closeAllConnections();
  await new Promise((r) => backend.close(r));
});

test('conditions follow the Service, its port and endpoints, then the discovery check', async () => {
  const store = new Store(new SqliteStorage(':memory:'), allResources());
  const wctx = inProcessWriteContext('test');
  const def = (g: string, r: string) => store.find(g, 'v1', r)!;
  await store.create(def('', 'namespaces'), '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'wardle' } } as KObject, wctx);
  await store.create(def('apiregistration.k8s.io', 'apiservices'), '', {
    apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1alpha1.wardle.example.com' },
    spec: { group: 'wardle.example.com', version: 'v1alpha1', service: { namespace: 'wardle', name: 'api' }, insecureSkipTLSVerify: true, groupPriorityMinimum: 1000, versionPriority: 15 },
  } as KObject, wctx);
  const ctx = newControllerContext({ client: loopback(store, APISERVER_LOOPBACK, 'kube-apiserver') });
  const controller = new APIServiceAvailabilityController(ctx, { proxyClient });
  const condition = async () => ((await store.get('apiregistration.k8s.io', 'apiservices', '', 'v1alpha1.wardle.example.com')) as APIService).status?.conditions?.[0];
  const until = async (reason: string): Promise<APIServiceCondition> => {
    for (let i = 0; i < 2000; i++) {
      const c = await condition();
      if (c?.reason === reason) return c;
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.fail(`no ${reason}: ${JSON.stringify(await condition())}`);
  };
  await controller.start();
  try {
    const notFound = await until('ServiceNotFound');
    assert.deepEqual({ ...notFound, lastTransitionTime: undefined }, { type: 'Available', status: 'False', lastTransitionTime: undefined, reason: 'ServiceNotFound', message: 'service/api in "wardle" is not present' });
    const rvAfterFirst = ((await store.get('apiregistration.k8s.io', 'apiservices', '', 'v1alpha1.wardle.example.com')) as KObject).metadata.resourceVersion;

    await store.create(def('', 'services'), 'wardle', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'api', namespace: 'wardle' }, spec: { clusterIP: '10.96.0.50', ports: [{ name: 'https', port: 8443 }] } } as KObject, wctx);
    const portError = await until('ServicePortError');
    assert.equal(portError.message, 'service/api in "wardle" is not listening on port 443');
    // Still False: the transition time stays.
    assert.equal(portError.lastTransitionTime, notFound.lastTransitionTime);
    assert.notEqual(rvAfterFirst, undefined);

    await store.update(def('', 'services'), 'wardle', 'api', (s) => ({ ...s, spec: { ...(s.spec as object), ports: [{ name: 'https', port: 443 }] } }), wctx);
    assert.equal((await until('EndpointsNotFound')).message, 'cannot find endpoints for service/api in "wardle"');

    await store.create(def('', 'endpoints'), 'wardle', { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'api', namespace: 'wardle' }, subsets: [{ addresses: [{ ip: hostIP }], ports: [{ name: 'other', port: backendPort }] }] } as KObject, wctx);
    assert.equal((await until('MissingEndpoints')).message, 'endpoints for service/api in "wardle" have no addresses with port name "https"');

    status = 404;
    await store.update(def('', 'endpoints'), 'wardle', 'api', (e) => ({ ...e, subsets: [{ addresses: [{ ip: hostIP }], ports: [{ name: 'https', port: backendPort }] }] }), wctx);
    const failed = await until('FailedDiscoveryCheck');
    assert.equal(failed.status, 'False');
    assert.equal(failed.message, 'failing or missing response from https://10.96.0.50:443/apis/wardle.example.com/v1alpha1: bad status from https://10.96.0.50:443/apis/wardle.example.com/v1alpha1: 404');
    assert.deepEqual(seen.at(-1), { path: '/apis/wardle.example.com/v1alpha1', user: 'system:kube-aggregator', groups: ['system:masters'], cn: 'front-proxy-client' });

    // A failed check is tried again with back-off, without waiting for a change.
    status = 200;
    const passed = await until('Passed');
    assert.deepEqual({ ...passed, lastTransitionTime: undefined }, { type: 'Available', status: 'True', lastTransitionTime: undefined, reason: 'Passed', message: 'all checks passed' });
    assert.notEqual(passed.lastTransitionTime, undefined);

    // Checked again with the same result: nothing is written.
    const rv = ((await store.get('apiregistration.k8s.io', 'apiservices', '', 'v1alpha1.wardle.example.com')) as KObject).metadata.resourceVersion;
    const before = seen.length;
    await controller.sync('v1alpha1.wardle.example.com');
    assert.ok(seen.length >= before + 1);
    assert.equal(((await store.get('apiregistration.k8s.io', 'apiservices', '', 'v1alpha1.wardle.example.com')) as KObject).metadata.resourceVersion, rv);

    // Nobody listening at the endpoint: Go's dial error, with the cluster address.
    await store.update(def('', 'endpoints'), 'wardle', 'api', (e) => ({ ...e, subsets: [{ addresses: [{ ip: hostIP }], ports: [{ name: 'https', port: 1 }] }] }), wctx);
    assert.equal((await until('FailedDiscoveryCheck')).message,
      'failing or missing response from https://10.96.0.50:443/apis/wardle.example.com/v1alpha1: Get "https://10.96.0.50:443/apis/wardle.example.com/v1alpha1": dial tcp 10.96.0.50:443: connect: connection refused');
  } finally {
    controller.stop();
    ctx.informers.stop();
  }
});

test('an endpoint that is an emulated pod is checked through the cluster network model', async () => {
  const store = new Store(new SqliteStorage(':memory:'), allResources());
  const wctx = inProcessWriteContext('test');
  const def = (g: string, r: string) => store.find(g, 'v1', r)!;
  await store.create(def('', 'namespaces'), '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'wardle' } } as KObject, wctx);
  await store.create(def('', 'services'), 'wardle', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'api', namespace: 'wardle' }, spec: { clusterIP: '10.96.0.50', ports: [{ name: 'https', port: 443 }] } } as KObject, wctx);
  await store.create(def('', 'endpoints'), 'wardle', { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'api', namespace: 'wardle' }, subsets: [{ addresses: [{ ip: '10.244.1.7' }], ports: [{ name: 'https', port: 8443 }] }] } as KObject, wctx);
  await store.create(def('apiregistration.k8s.io', 'apiservices'), '', {
    apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1alpha1.wardle.example.com' },
    spec: { group: 'wardle.example.com', version: 'v1alpha1', service: { namespace: 'wardle', name: 'api' }, groupPriorityMinimum: 1000, versionPriority: 15 },
  } as KObject, wctx);
  const serving = await issue(await createCA('CN=anyone'), 'CN=api', 'server', { dns: ['api.wardle.svc'], ip: [] });
  // What the pod's port does; the check does not verify the certificate, but needs TLS.
  let pod: 'refused' | 'plain' | 'tls' = 'refused';
  const asked: { target: string; user: string[] }[] = [];
  const podEndpoints = () => ({
    dialFrom: () => ({ kind: 'timeout' as const }),
    dial: (ip: string, port: number) => {
      if (ip !== '10.244.1.7' || port !== 8443) return undefined;
      if (pod === 'refused') return { kind: 'refused' as const };
      return {
        kind: 'connected' as const, ...(pod === 'tls' ? { serverCertificate: serving.cert } : {}),
        exchange: async (req: { target: string; headers: [string, string][] }) => {
          asked.push({ target: req.target, user: req.headers.filter(([k]) => k.toLowerCase() === 'x-remote-user').map(([, v]) => v) });
          return { status: 200, reason: 'OK', headers: [] as [string, string][], body: new Uint8Array() };
        },
      };
    },
  });
  const ctx = newControllerContext({ client: loopback(store, APISERVER_LOOPBACK, 'kube-apiserver') });
  const controller = new APIServiceAvailabilityController(ctx, { proxyClient, podEndpoints, resyncMs: 50 });
  const until = async (reason: string): Promise<APIServiceCondition> => {
    for (let i = 0; i < 2000; i++) {
      const c = ((await store.get('apiregistration.k8s.io', 'apiservices', '', 'v1alpha1.wardle.example.com')) as APIService).status?.conditions?.[0];
      if (c?.reason === reason && (reason !== 'FailedDiscoveryCheck' || (c.message ?? '').includes(pod === 'plain' ? 'HTTP response' : 'refused'))) return c;
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.fail(`no ${reason}`);
  };
  await controller.start();
  try {
    assert.equal((await until('FailedDiscoveryCheck')).message,
      'failing or missing response from https://10.96.0.50:443/apis/wardle.example.com/v1alpha1: Get "https://10.96.0.50:443/apis/wardle.example.com/v1alpha1": dial tcp 10.96.0.50:443: connect: connection refused');
    pod = 'plain';
    assert.equal((await until('FailedDiscoveryCheck')).message,
      'failing or missing response from https://10.96.0.50:443/apis/wardle.example.com/v1alpha1: Get "https://10.96.0.50:443/apis/wardle.example.com/v1alpha1": http: server gave HTTP response to HTTPS client');
    pod = 'tls';
    assert.equal((await until('Passed')).message, 'all checks passed');
    assert.deepEqual(asked.at(-1), { target: '/apis/wardle.example.com/v1alpha1', user: ['system:kube-aggregator'] });
  } finally {
    controller.stop();
  }
});
